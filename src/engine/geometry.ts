// The area centroid of SPEC 4.6, in closed form over a polygon's edges.

import type { Polygon } from './types.js';

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

/**
 * The centroid of a combined polygon of zero area: it is made of spikes only (vertical segments
 * from y = 0 up to each point), each weighted by its height. Undefined when it has no height at all.
 */
export function spikeCentroid(polygon: Polygon): [number, number] | undefined {
  let weight = 0;
  let momentX = 0;
  let momentY = 0;
  for (const [x, y] of polygon) {
    weight += y;
    momentX += y * x;
    momentY += (y * y) / 2;
  }
  return weight > 0 ? [momentX / weight, momentY / weight] : undefined;
}
