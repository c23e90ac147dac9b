// Stage 5, defuzzification (docs/ENGINE.md, "Centroid and crisp"; fuzzylite: Centroid, here exact): the
// area centroid of each output's combined polygon, from the area and moments aggregation adds edge
// by edge. Layout: each output's normalised coordinates, in which those sums are taken.

import type { Trapezoid } from './shape.js';
import type { Scratch } from './scratch.js';

export interface DefuzzificationLayout {
  /**
   * Each output's range minimum, and the power of two nearest above its width (see powerOfTwoScale):
   * the envelope is integrated in normalised coordinates u = (x − origin) · inverseScale, within
   * [0, 2), so that moments neither overflow at ±1e308 nor underflow at 1e-300; the centroid is
   * mapped back to origin + ū · scale. Scaling by a power of two is exact, so on ordinary ranges the
   * result is the very number integrating in x (about the origin) gives.
   */
  readonly origins: Float64Array;
  readonly scales: Float64Array;
  readonly inverseScales: Float64Array;
  /** each output's range maximum, which a centroid rounded beyond it is kept to */
  readonly maxima: Float64Array;
}

/**
 * The power of two at or above `width`, kept within 2^-1022 .. 2^1023 so that it and its inverse
 * are both doubles (a width above 2^1023 then normalises into [0, 2)); 1 for a width of 0.
 */
function powerOfTwoScale(width: number): number {
  if (width === 0) return 1;
  let scale = 1;
  while (scale < width && scale < 2 ** 1023) scale *= 2;
  while (scale / 2 >= width && scale > 2 ** -1022) scale /= 2;
  return scale;
}

/** `setStart` as in IndexedVariables: output o owns shapes setStart[o] .. setStart[o + 1] − 1. */
export function layOutDefuzzification(shapes: readonly Trapezoid[], setStart: Int32Array): DefuzzificationLayout {
  const count = setStart.length - 1;
  const layout = {
    origins: new Float64Array(count),
    scales: new Float64Array(count),
    inverseScales: new Float64Array(count),
    maxima: new Float64Array(count),
  };
  for (let o = 0; o < count; o++) {
    let min = Infinity;
    let max = -Infinity;
    for (let s = setStart[o]!; s < setStart[o + 1]!; s++) {
      min = Math.min(min, shapes[s]![0]);
      max = Math.max(max, shapes[s]![3]);
    }
    const scale = powerOfTwoScale(max - min);
    layout.origins[o] = min;
    layout.scales[o] = scale;
    layout.inverseScales[o] = 1 / scale;
    layout.maxima[o] = max;
  }
  return layout;
}

/** x in output o's normalised coordinates. */
export function normalise(layout: DefuzzificationLayout, o: number, x: number): number {
  return (x - layout.origins[o]!) * layout.inverseScales[o]!;
}

/**
 * Adds the trapezoid under the straight edge from (ua, ya) to (ub, yb), in normalised coordinates,
 * to sums = [2·area, 6·moment in u, 6·moment in y].
 */
export function addEdge(sums: Float64Array, ua: number, ya: number, ub: number, yb: number): void {
  const du = ub - ua;
  sums[0]! += du * (ya + yb);
  sums[1]! += du * (ua * (2 * ya + yb) + ub * (ya + 2 * yb));
  sums[2]! += du * (ya * ya + ya * yb + yb * yb);
}

/** x = origin + u · scale for output o, kept within its range where rounding would step outside. */
function fromNormalised(layout: DefuzzificationLayout, o: number, u: number): number {
  const origin = layout.origins[o]!;
  return Math.min(Math.max(origin + u * layout.scales[o]!, origin), layout.maxima[o]!);
}

/**
 * Writes output o's centroid into scratch.centroid from scratch.sums, which aggregation filled:
 * [2·area, 6·moment in u, 6·moment in y] of the envelope, then the height, moment in u and moment
 * in y of its spikes. False when the region has neither area nor spikes. A region of zero area is
 * made of vertical segments only (every reached set has zero width), and its centroid is theirs,
 * each weighted by its height.
 */
export function locateCentroid(layout: DefuzzificationLayout, o: number, scratch: Scratch): boolean {
  const { sums, centroid } = scratch;
  const area2 = sums[0]!;
  if (area2 > 0) {
    centroid[0] = fromNormalised(layout, o, sums[1]! / (3 * area2));
    centroid[1] = sums[2]! / (3 * area2);
    return true;
  }
  const weight = sums[3]!;
  if (!(weight > 0)) return false;
  centroid[0] = fromNormalised(layout, o, sums[4]! / weight);
  centroid[1] = sums[5]! / weight;
  return true;
}
