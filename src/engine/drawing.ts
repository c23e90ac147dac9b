// Curves as the trace and the demo draw them: polygons through points of the exact curve.

import type { Polygon } from './types.js';

/** Largest distance from the chord a drawn curve may have, in degrees. */
const DRAWING_TOLERANCE = 1e-3;

/** A curve as a polygon through its points: vertices at every bound, refined until chords are within DRAWING_TOLERANCE. */
export function drawCurve(curve: (x: number) => number, bounds: readonly number[]): Polygon {
  const polygon: Polygon = [[bounds[0]!, 0]];
  const refine = (a: number, ya: number, b: number, yb: number, depth: number) => {
    const middle = a + (b - a) / 2;
    const ym = curve(middle);
    if (depth < 12 && Math.abs(ym - (ya + yb) / 2) > DRAWING_TOLERANCE) {
      refine(a, ya, middle, ym, depth + 1);
      polygon.push([middle, ym]);
      refine(middle, ym, b, yb, depth + 1);
    } else if (depth < 2) {
      polygon.push([middle, ym]);
    }
  };
  for (let k = 0; k + 1 < bounds.length; k++) {
    const a = bounds[k]!;
    const b = bounds[k + 1]!;
    if (!(b > a)) continue;
    // just inside each end, where a formula may jump
    const ya = curve(a + (b - a) * 1e-12);
    const yb = curve(b - (b - a) * 1e-12);
    polygon.push([a, ya]);
    refine(a, ya, b, yb, 0);
    polygon.push([b, yb]);
  }
  polygon.push([bounds.at(-1)!, 0]);
  return polygon;
}
