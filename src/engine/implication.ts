// Stage 3, implication (docs/ENGINE.md, "Clipped"; fuzzylite: the rule block's implication, Activated
// terms): each reached output set's shape, cut at its inferred degree (min, the default) or scaled
// by it (product). Layout: on every interval between consecutive corners of an output (see
// aggregation), the sets that are non-zero there as straight pieces, their degrees at both ends.
// Either implication keeps every piece straight (min caps a line at a height, product scales it), so
// aggregation and defuzzification stay exact and closed-form whichever the agent uses.

import { appendPoint, clipTrapezoid, type Trapezoid } from './shape.js';
import type { AggregationLayout } from './aggregation.js';
import type { Scratch } from './scratch.js';
import type { Polygon } from './types.js';

export const MINIMUM = 0;
export const PRODUCT = 1;

export interface ImplicationLayout {
  /** MINIMUM or PRODUCT */
  readonly kind: number;
  /** interval k has pieces pieceStart[k] .. : output set pieceSet, degree pieceFrom at its left end, pieceTo at its right */
  readonly pieceStart: Int32Array;
  readonly pieceSet: Int32Array;
  readonly pieceFrom: Float64Array;
  readonly pieceTo: Float64Array;
  /** the most pieces on one interval: the size of the scratch they are implied into */
  readonly mostPieces: number;
}

/** Degrees of a trapezoid at both ends of [from, to], on which it is one straight piece. */
function pieceDegrees([a, b, c, d]: Trapezoid, from: number, to: number): [number, number] {
  const middle = from + (to - from) / 2; // from + to overflows near ±1.7e308
  if (middle < b) return [(from - a) / (b - a), (to - a) / (b - a)];
  if (middle <= c) return [1, 1];
  return [(d - from) / (d - c), (d - to) / (d - c)];
}

export function layOutImplication(kind: number, shapes: readonly Trapezoid[], setStart: Int32Array, aggregation: AggregationLayout): ImplicationLayout {
  const { intervalStart, intervalFrom, intervalTo } = aggregation;
  const pieceStart = new Int32Array(intervalFrom.length + 1);
  const pieceSet: number[] = [];
  const pieceFrom: number[] = [];
  const pieceTo: number[] = [];
  let mostPieces = 1;
  for (let o = 0; o + 1 < setStart.length; o++) {
    for (let k = intervalStart[o]!; k < intervalStart[o + 1]!; k++) {
      const from = intervalFrom[k]!;
      const to = intervalTo[k]!;
      pieceStart[k] = pieceSet.length;
      for (let s = setStart[o]!; s < setStart[o + 1]!; s++) {
        const shape = shapes[s]!;
        if (shape[0] >= to || shape[3] <= from) continue;
        const [degreeFrom, degreeTo] = pieceDegrees(shape, from, to);
        pieceSet.push(s);
        pieceFrom.push(degreeFrom);
        pieceTo.push(degreeTo);
      }
      mostPieces = Math.max(mostPieces, pieceSet.length - pieceStart[k]!);
    }
  }
  pieceStart[intervalFrom.length] = pieceSet.length;
  return {
    kind,
    pieceStart,
    pieceSet: Int32Array.from(pieceSet),
    pieceFrom: Float64Array.from(pieceFrom),
    pieceTo: Float64Array.from(pieceTo),
    mostPieces,
  };
}

/** A piece's implied degree where the set's own degree is `degree` and it was reached to `inferred`, before the cap. */
export function impliedDegree(layout: ImplicationLayout, degree: number, inferred: number): number {
  return layout.kind === PRODUCT ? inferred * degree : degree;
}

/**
 * Writes the implied pieces of the sets reached on interval k into scratch.impliedFrom/To (their
 * degrees at both ends) and scratch.impliedCap (the degree they are cut at: the inferred degree);
 * returns how many. Under product the piece is scaled, and never reaches its cap.
 */
export function imply(layout: ImplicationLayout, k: number, inferred: Float64Array, scratch: Scratch): number {
  const { pieceStart, pieceSet, pieceFrom, pieceTo } = layout;
  const { impliedFrom, impliedTo, impliedCap } = scratch;
  const end = pieceStart[k + 1]!;
  let n = 0;
  if (layout.kind === MINIMUM) {
    for (let p = pieceStart[k]!; p < end; p++) {
      const degree = inferred[pieceSet[p]!]!;
      if (degree === 0) continue;
      impliedFrom[n] = pieceFrom[p]!;
      impliedTo[n] = pieceTo[p]!;
      impliedCap[n++] = degree;
    }
  } else {
    for (let p = pieceStart[k]!; p < end; p++) {
      const degree = inferred[pieceSet[p]!]!;
      if (degree === 0) continue;
      impliedFrom[n] = degree * pieceFrom[p]!;
      impliedTo[n] = degree * pieceTo[p]!;
      impliedCap[n++] = degree;
    }
  }
  return n;
}

/** An output set's shape implied at degree 0 < degree ≤ 1, as a minimal polygon (the trace's `clipped`). */
export function impliedShape(kind: number, trapezoid: Trapezoid, degree: number): Polygon {
  if (kind === MINIMUM) return clipTrapezoid(trapezoid, degree);
  const [a, b, c, d] = trapezoid;
  const polygon: Polygon = [];
  appendPoint(polygon, a, 0);
  appendPoint(polygon, b, degree);
  appendPoint(polygon, c, degree);
  appendPoint(polygon, d, 0);
  return polygon;
}
