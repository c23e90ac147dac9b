// Membership functions and set shapes (docs/ENGINE.md, "Membership"). Every set is handled as a trapezoid
// [a, b, c, d]: a triangle [a, b, c] is [a, b, b, c]; a shoulder becomes a trapezoid reaching to the
// edge of its variable's range (for shapes) or to ±Infinity (for membership, so that it saturates).

import type { Polygon, SetDefinition } from './types.js';

export type Trapezoid = readonly [number, number, number, number];

/** A shoulder falls when its midpoint lies below the midpoint of its variable's range; otherwise it rises. */
export function isFallingShoulder(points: SetDefinition, range: readonly [number, number]): boolean {
  const sum = points[0]! + points[1]!;
  const rangeSum = range[0] + range[1];
  if (Number.isFinite(sum) && Number.isFinite(rangeSum)) return sum < rangeSum;
  // near ±1.7e308 the sums overflow; halving such large numbers is exact
  return points[0]! / 2 + points[1]! / 2 < range[0] / 2 + range[1] / 2;
}

function asTrapezoid(points: SetDefinition, range: readonly [number, number], low: number, high: number): Trapezoid {
  const [a, b, c, d] = points as [number, number, number?, number?];
  if (points.length === 2) return isFallingShoulder(points, range) ? [low, low, a, b] : [a, b, high, high];
  if (points.length === 3) return [a, b, b, c!];
  return [a, b, c!, d!];
}

/** The set as a trapezoid within its variable's range: the shape that is drawn, clipped and aggregated. */
export function shapeTrapezoid(points: SetDefinition, range: readonly [number, number]): Trapezoid {
  return asTrapezoid(points, range, range[0], range[1]);
}

/** The set as a trapezoid whose shoulders reach to ±Infinity: the function that fuzzifies an input. */
export function membershipTrapezoid(points: SetDefinition, range: readonly [number, number]): Trapezoid {
  return asTrapezoid(points, range, -Infinity, Infinity);
}

/** Degree of x in trapezoid [a, b, c, d]; equal neighbouring points make a vertical edge of degree 1. */
export function trapezoidDegree(a: number, b: number, c: number, d: number, x: number): number {
  if (x < a || x > d) return 0;
  if (x < b) return (x - a) / (b - a);
  if (x <= c) return 1;
  return (d - x) / (d - c);
}

/** (1 − t)·from + t·to: exact at t = 0 and t = 1, and never outside [from, to] whatever the rounding. */
function lerp(from: number, to: number, t: number): number {
  const value = (1 - t) * from + t * to;
  return from < to ? Math.min(Math.max(value, from), to) : Math.min(Math.max(value, to), from);
}

/** The trapezoid cut at its inferred `degree` (0 < degree ≤ 1), as a minimal polygon from left to right. */
export function clipTrapezoid([a, b, c, d]: Trapezoid, degree: number): Polygon {
  const polygon: Polygon = [];
  appendPoint(polygon, a, 0);
  appendPoint(polygon, lerp(a, b, degree), degree);
  appendPoint(polygon, lerp(d, c, degree), degree);
  appendPoint(polygon, d, 0);
  return polygon;
}

/** An array set's full shape as a polygon (shoulders as trapezoids to the range's edge), for drawing. */
export function pointsShape(points: SetDefinition, range: readonly [number, number]): Polygon {
  return clipTrapezoid(shapeTrapezoid(points, range), 1);
}

/** How far from straight, relative to their own extent, three points may be and still count as collinear. */
const COLLINEAR = 1e-12;

/**
 * B lies on the segment from A to C (A ≠ C); a spike that goes up and back down (A = C) is kept.
 * Collinearity survives scaling x and y apart, so the three points are first scaled to their own
 * extent in each direction: a bend counts however flat the degrees or however wide the range.
 */
function onSegment(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  if (ax === cx && ay === cy) return false;
  // the larger distance, not the sum, which overflows for points near ±1e308
  const width = Math.max(Math.abs(bx - ax), Math.abs(cx - ax));
  const height = Math.max(Math.abs(by - ay), Math.abs(cy - ay));
  const abx = width === 0 ? 0 : (bx - ax) / width;
  const aby = height === 0 ? 0 : (by - ay) / height;
  const acx = width === 0 ? 0 : (cx - ax) / width;
  const acy = height === 0 ? 0 : (cy - ay) / height;
  const cross = abx * acy - aby * acx;
  if (Math.abs(cross) > COLLINEAR * (Math.abs(abx) + Math.abs(aby)) * (Math.abs(acx) + Math.abs(acy))) return false;
  const along = abx * acx + aby * acy;
  return along >= 0 && along <= acx * acx + acy * acy;
}

/** Appends (x, y) to a polygon built left to right, dropping a repeat and the points it makes collinear. */
export function appendPoint(polygon: Polygon, x: number, y: number): void {
  let n = polygon.length;
  const last = polygon[n - 1];
  if (last && last[0] === x && last[1] === y) return;
  while (n >= 2) {
    const a = polygon[n - 2]!;
    const b = polygon[n - 1]!;
    if (!onSegment(a[0], a[1], b[0], b[1], x, y)) break;
    polygon.pop();
    n--;
  }
  polygon.push([x, y]);
}
