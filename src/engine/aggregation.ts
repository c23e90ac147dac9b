// Stage 4, aggregation (docs/ENGINE.md, "Combined"; fuzzylite: Aggregated, accumulation Maximum): each
// output's implied sets combined by max into their exact upper envelope, walked edge by edge in
// closed form; defuzzification sums its area and moments as the walk goes, and the trace records
// the same edges as the combined polygon. Layout: each output's intervals between consecutive
// corners of its sets (on each, every implied set is one straight piece), and its zero-width sets.

import { addEdge, normalise, type DefuzzificationLayout } from './defuzzification.js';
import { imply, impliedDegree, type ImplicationLayout } from './implication.js';
import type { Scratch } from './scratch.js';
import { appendPoint, type Trapezoid } from './shape.js';
import type { Polygon } from './types.js';

export interface AggregationLayout {
  /** output o owns intervals intervalStart[o] .. intervalStart[o + 1] − 1, from left to right */
  readonly intervalStart: Int32Array;
  /** interval k spans [intervalFrom[k], intervalTo[k]], which is [intervalUFrom[k], intervalUTo[k]] normalised */
  readonly intervalFrom: Float64Array;
  readonly intervalTo: Float64Array;
  readonly intervalUFrom: Float64Array;
  readonly intervalUTo: Float64Array;
  /** output o's zero-width sets: spikeStart[o] .. ; spike s is output set spikeSet[s] at spikeX[s] (spikeU[s] normalised), sorted by x */
  readonly spikeStart: Int32Array;
  readonly spikeSet: Int32Array;
  readonly spikeX: Float64Array;
  readonly spikeU: Float64Array;
}

/**
 * `exact[o]` (default true): output o is aggregated here (the others by integral or weighted
 * defuzzification, with no intervals here); `universes[o]` (default unbounded): what its corners are
 * kept within, so that it is integrated over its universe only (without a declared range every
 * corner lies within it already).
 */
export function layOutAggregation(
  shapes: readonly Trapezoid[],
  setStart: Int32Array,
  defuzzification: DefuzzificationLayout,
  exact?: readonly boolean[],
  universes?: ReadonlyArray<readonly [number, number]>,
): AggregationLayout {
  const count = setStart.length - 1;
  const intervalStart = new Int32Array(count + 1);
  const intervalFrom: number[] = [];
  const intervalTo: number[] = [];
  const intervalUFrom: number[] = [];
  const intervalUTo: number[] = [];
  const spikeStart = new Int32Array(count + 1);
  const spikeSet: number[] = [];
  const spikeX: number[] = [];
  const spikeU: number[] = [];
  for (let o = 0; o < count; o++) {
    const sets: number[] = [];
    if (exact?.[o] ?? true) for (let s = setStart[o]!; s < setStart[o + 1]!; s++) sets.push(s);
    const [low, high] = universes?.[o] ?? [-Infinity, Infinity];
    const within = (x: number) => Math.min(Math.max(x, low), high);
    const corners = [...new Set(sets.flatMap((s) => shapes[s]!.map(within)))].sort((p, q) => p - q);
    intervalStart[o] = intervalFrom.length;
    for (let k = 0; k + 1 < corners.length; k++) {
      intervalFrom.push(corners[k]!);
      intervalTo.push(corners[k + 1]!);
      intervalUFrom.push(normalise(defuzzification, o, corners[k]!));
      intervalUTo.push(normalise(defuzzification, o, corners[k + 1]!));
    }
    spikeStart[o] = spikeSet.length;
    const spikes = sets
      .filter((s) => shapes[s]![0] === shapes[s]![3] && shapes[s]![0] >= low && shapes[s]![0] <= high)
      .sort((p, q) => shapes[p]![0] - shapes[q]![0]);
    for (const s of spikes) {
      spikeSet.push(s);
      spikeX.push(shapes[s]![0]);
      spikeU.push(normalise(defuzzification, o, shapes[s]![0]));
    }
  }
  intervalStart[count] = intervalFrom.length;
  spikeStart[count] = spikeSet.length;
  return {
    intervalStart,
    intervalFrom: Float64Array.from(intervalFrom),
    intervalTo: Float64Array.from(intervalTo),
    intervalUFrom: Float64Array.from(intervalUFrom),
    intervalUTo: Float64Array.from(intervalUTo),
    spikeStart,
    spikeSet: Int32Array.from(spikeSet),
    spikeX: Float64Array.from(spikeX),
    spikeU: Float64Array.from(spikeU),
  };
}

/** Breakpoints of one interval where n pieces meet: its start, one kink per piece, three crossings per pair. */
export function breakCapacity(mostPieces: number): number {
  return 1 + mostPieces + (3 * mostPieces * (mostPieces - 1)) / 2;
}

/** What aggregation walks: its own layout, the implication it combines, the coordinates defuzzification sums in. */
export interface AggregationStages {
  readonly aggregation: AggregationLayout;
  readonly implication: ImplicationLayout;
  readonly defuzzification: DefuzzificationLayout;
}

/** One edge of the envelope: summed in u; recorded in x (xa, ya, xb, yb) when tracing. */
function edge(scratch: Scratch, corners: number[] | undefined, xa: number, ua: number, ya: number, xb: number, ub: number, yb: number): void {
  addEdge(scratch.sums, ua, ya, ub, yb);
  corners?.push(xa, ya, xb, yb);
}

/** Appends breakpoint t to breaks[0 .. count − 1] when it lies strictly inside (0, 1); returns the new count. */
function addBreak(breaks: Float64Array, count: number, t: number): number {
  if (t > 0 && t < 1) breaks[count++] = t;
  return count;
}

/** Sorts breaks[1 .. count − 1]: by insertion while few (no allocation), natively when many overlapping sets make many. */
function sortBreaks(breaks: Float64Array, count: number): void {
  if (count > 32) {
    breaks.subarray(1, count).sort();
    return;
  }
  for (let i = 2; i < count; i++) {
    const t = breaks[i]!;
    let j = i;
    for (; breaks[j - 1]! > t; j--) breaks[j] = breaks[j - 1]!;
    breaks[j] = t;
  }
}

/**
 * The envelope on interval k where n > 1 implied pieces meet: each is min(its straight degree, its
 * cap), so the envelope is straight between kinks and crossings, the breakpoints here. At its own
 * kink a piece is exactly its cap, whatever rounding did to the kink's position; a kink that rounds
 * onto the interval's end (a tiny cap on a falling piece) becomes a vertical edge there.
 */
function integrateOverlap(stages: AggregationStages, o: number, k: number, n: number, scratch: Scratch, corners: number[] | undefined): void {
  const { impliedFrom: u0, impliedTo: u1, impliedCap: h, endKink, kinkAt, breaks } = scratch;
  const { aggregation, defuzzification } = stages;
  breaks[0] = 0;
  let count = 1;
  let endKinks = false;
  for (let j = 0; j < n; j++) {
    endKink[j] = 0;
    kinkAt[j] = NaN;
    if ((h[j]! - u0[j]!) * (h[j]! - u1[j]!) < 0) {
      const t = (h[j]! - u0[j]!) / (u1[j]! - u0[j]!);
      if (t >= 1) {
        endKink[j] = 1;
        endKinks = true;
      } else if (t > 0) {
        kinkAt[j] = t;
        breaks[count++] = t;
      }
    }
    for (let i = j + 1; i < n; i++) {
      count = addBreak(breaks, count, (u0[i]! - u0[j]!) / (u1[j]! - u0[j]! - (u1[i]! - u0[i]!)));
      count = addBreak(breaks, count, (h[i]! - u0[j]!) / (u1[j]! - u0[j]!));
      count = addBreak(breaks, count, (h[j]! - u0[i]!) / (u1[i]! - u0[i]!));
    }
  }
  sortBreaks(breaks, count);
  const from = aggregation.intervalFrom[k]!;
  const to = aggregation.intervalTo[k]!;
  const uTo = aggregation.intervalUTo[k]!;
  let previousX = from;
  let previousU = aggregation.intervalUFrom[k]!;
  let previousY = 0;
  // the breakpoints, then the interval's end: first with the pieces whose kink rounded onto it at their cap
  for (let b = 0; b <= count + 1; b++) {
    if (b === count && !endKinks) continue;
    const t = b < count ? breaks[b]! : 1;
    let y = 0;
    for (let j = 0; j < n; j++) {
      const atCap = b < count ? t === kinkAt[j] : b === count && endKink[j] === 1;
      y = Math.max(y, atCap ? h[j]! : Math.min((1 - t) * u0[j]! + t * u1[j]!, h[j]!));
    }
    const x = t === 1 ? to : Math.min(from + t * (to - from), to);
    const u = t === 1 ? uTo : normalise(defuzzification, o, x);
    if (b > 0) edge(scratch, corners, previousX, previousU, previousY, x, u, y);
    previousX = x;
    previousU = u;
    previousY = y;
  }
}

/**
 * Walks output o's envelope interval by interval, adding every edge to scratch.sums (which it
 * resets), then its spikes' height and moments. On an interval one implied piece (the usual case)
 * is min(straight degree, cap): one edge, or two around its kink. `corners`, when given, receives
 * every edge as xa, ya, xb, yb; an interval nothing reaches adds y = 0 there.
 */
export function aggregate(stages: AggregationStages, o: number, inferred: Float64Array, scratch: Scratch, corners?: number[]): void {
  const { intervalStart, intervalFrom, intervalTo, intervalUFrom, intervalUTo } = stages.aggregation;
  const implication = stages.implication;
  const { pieceStart, pieceSet } = implication;
  const sums = scratch.sums;
  for (let i = 0; i < 6; i++) sums[i] = 0;
  const end = intervalStart[o + 1]!;
  for (let k = intervalStart[o]!; k < end; k++) {
    // the usual case, one reached piece, straight from the layout; several are implied into scratch
    let n = 0;
    let only = 0;
    for (let p = pieceStart[k]!; p < pieceStart[k + 1]!; p++) {
      if (inferred[pieceSet[p]!]! === 0) continue;
      only = p;
      n++;
    }
    const from = intervalFrom[k]!;
    const to = intervalTo[k]!;
    if (n === 1) {
      const uFrom = intervalUFrom[k]!;
      const uTo = intervalUTo[k]!;
      const h = inferred[pieceSet[only]!]!;
      const a = impliedDegree(implication, implication.pieceFrom[only]!, h);
      const b = impliedDegree(implication, implication.pieceTo[only]!, h);
      if (a <= h && b <= h) {
        edge(scratch, corners, from, uFrom, a, to, uTo, b);
      } else if (a >= h && b >= h) {
        edge(scratch, corners, from, uFrom, h, to, uTo, h);
      } else {
        const t = (h - a) / (b - a);
        const kink = Math.min(from + t * (to - from), to);
        const uKink = normalise(stages.defuzzification, o, kink);
        edge(scratch, corners, from, uFrom, Math.min(a, h), kink, uKink, h);
        edge(scratch, corners, kink, uKink, h, to, uTo, Math.min(b, h));
      }
    } else if (n > 1) {
      imply(implication, k, inferred, scratch);
      integrateOverlap(stages, o, k, n, scratch, corners);
    } else if (corners) {
      corners.push(from, 0, to, 0);
    }
  }
  if (sums[0]! > 0) return;
  const { spikeStart, spikeU } = stages.aggregation;
  for (let s = spikeStart[o]!; s < spikeStart[o + 1]!; s = nextSpike(stages.aggregation, o, s)) {
    const height = spikeHeight(stages.aggregation, o, s, inferred);
    sums[3]! += height;
    sums[4]! += height * spikeU[s]!;
    sums[5]! += (height * height) / 2;
  }
}

/** The highest inferred degree among output o's zero-width sets at spikeX[s], s being the first of them. */
function spikeHeight(layout: AggregationLayout, o: number, s: number, inferred: Float64Array): number {
  const { spikeStart, spikeSet, spikeX } = layout;
  let height = 0;
  for (let t = s; t < spikeStart[o + 1]! && spikeX[t] === spikeX[s]; t++) height = Math.max(height, inferred[spikeSet[t]!]!);
  return height;
}

/** The index of output o's first zero-width set to the right of spikeX[s]. */
function nextSpike(layout: AggregationLayout, o: number, s: number): number {
  const { spikeStart, spikeX } = layout;
  let t = s;
  while (t < spikeStart[o + 1]! && spikeX[t] === spikeX[s]) t++;
  return t;
}

/**
 * Output o's combined polygon: the edges aggregate() walks, with reached zero-width sets inserted as
 * spikes at their corner, simplified as it is built, from the last y = 0 before the first rise to
 * the first y = 0 after the last fall. Leaves scratch.sums set for defuzzification.
 */
export function combinedPolygon(stages: AggregationStages, o: number, inferred: Float64Array, scratch: Scratch): Polygon {
  const { spikeStart, spikeX } = stages.aggregation;
  const edges: number[] = [];
  aggregate(stages, o, inferred, scratch, edges);
  const polygon: Polygon = [];
  let floorX = NaN; // the last x on y = 0 before anything rose
  const add = (x: number, y: number) => {
    if (polygon.length === 0) {
      if (y === 0) {
        floorX = x;
        return;
      }
      polygon.push([Number.isNaN(floorX) ? x : floorX, 0]);
    }
    appendPoint(polygon, x, y);
  };
  let e = 0;
  for (let s = spikeStart[o]!; s < spikeStart[o + 1]!; s = nextSpike(stages.aggregation, o, s)) {
    const x = spikeX[s]!;
    const height = spikeHeight(stages.aggregation, o, s, inferred);
    // edge ends (odd points) at x come before the spike, edge starts at x after it
    for (; e < edges.length && (edges[e]! < x || (edges[e] === x && e % 4 === 2)); e += 2) add(edges[e]!, edges[e + 1]!);
    if (height > 0) add(x, height);
  }
  for (; e < edges.length; e += 2) add(edges[e]!, edges[e + 1]!);
  while (polygon.length > 2 && polygon.at(-1)![1] === 0 && polygon.at(-2)![1] === 0) polygon.pop();
  const last = polygon.at(-1);
  if (last && last[1] !== 0) appendPoint(polygon, last[0], 0);
  return polygon;
}
