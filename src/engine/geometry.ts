// The exact geometry of SPEC 4.5 and 4.6 on polygons: the upper envelope of clipped sets with its
// crossing points, and the area centroid in closed form. This is the traced path; the fast path
// (integrate.ts) computes the same centroid without building any polygon.

import { simplify } from './shape.js';
import type { Polygon } from './types.js';

/** The polygon's value just right of x (`side` = 1) or just left of x (`side` = −1); 0 outside it. */
function sideValue(polygon: Polygon, x: number, side: 1 | -1): number {
  for (let i = 0; i + 1 < polygon.length; i++) {
    const [x0, y0] = polygon[i]!;
    const [x1, y1] = polygon[i + 1]!;
    if (x0 === x1) continue;
    const inside = side === 1 ? x0 <= x && x < x1 : x0 < x && x <= x1;
    if (!inside) continue;
    if (x === x0) return y0;
    if (x === x1) return y1;
    return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return 0;
}

/** The highest point of the polygon above x, vertical edges included. */
function topValue(polygon: Polygon, x: number): number {
  let top = Math.max(sideValue(polygon, x, 1), sideValue(polygon, x, -1));
  for (const [px, py] of polygon) if (px === x && py > top) top = py;
  return top;
}

function maxOver(polygons: readonly Polygon[], value: (polygon: Polygon) => number): number {
  let max = 0;
  for (const polygon of polygons) max = Math.max(max, value(polygon));
  return max;
}

/**
 * The upper envelope (pointwise max) of polygons given left to right on y = 0. Between two
 * consecutive corners every polygon is one straight line, so the envelope there changes only where
 * two of those lines cross; at a corner it may jump, which becomes a vertical edge.
 */
export function upperEnvelope(polygons: readonly Polygon[]): Polygon {
  if (polygons.length === 1) return simplify(polygons[0]!.map(([x, y]) => [x, y]));
  const xs = [...new Set(polygons.flatMap((polygon) => polygon.map(([x]) => x)))].sort((p, q) => p - q);
  const points: Polygon = [];
  xs.forEach((x, k) => {
    points.push(
      [x, maxOver(polygons, (polygon) => sideValue(polygon, x, -1))],
      [x, maxOver(polygons, (polygon) => topValue(polygon, x))],
      [x, maxOver(polygons, (polygon) => sideValue(polygon, x, 1))],
    );
    const next = xs[k + 1];
    if (next === undefined) return;
    const lines = polygons.map((polygon) => [sideValue(polygon, x, 1), sideValue(polygon, next, -1)] as const);
    const crossings: number[] = [];
    for (let i = 0; i < lines.length; i++) {
      for (let j = i + 1; j < lines.length; j++) {
        const [p0, p1] = lines[i]!;
        const [q0, q1] = lines[j]!;
        const t = (q0 - p0) / (p1 - p0 - (q1 - q0));
        if (t > 0 && t < 1) crossings.push(t);
      }
    }
    crossings.sort((s, t) => s - t);
    for (const t of crossings) {
      points.push([x + t * (next - x), Math.max(...lines.map(([y0, y1]) => y0 + t * (y1 - y0)))]);
    }
  });
  return simplify(points);
}

/** Area of the region under the polygon and its centroid (closed form per edge; vertical edges add nothing). */
export function areaCentroid(polygon: Polygon): { area: number; centroid: [number, number] } {
  const origin = polygon[0]?.[0] ?? 0;
  let area = 0;
  let momentX = 0;
  let momentY = 0;
  for (let i = 0; i + 1 < polygon.length; i++) {
    const [xa, ya] = polygon[i]!;
    const [xb, yb] = polygon[i + 1]!;
    const x0 = xa - origin;
    const x1 = xb - origin;
    const dx = x1 - x0;
    area += (dx * (ya + yb)) / 2;
    momentX += (dx * (x0 * (2 * ya + yb) + x1 * (ya + 2 * yb))) / 6;
    momentY += (dx * (ya * ya + ya * yb + yb * yb)) / 6;
  }
  return { area, centroid: [origin + momentX / area, momentY / area] };
}
