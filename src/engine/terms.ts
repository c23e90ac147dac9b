// Term kinds (docs/ENGINE.md, "Term kinds, universes, operators"): fuzzylite 7's terms, each named
// by its class name in lowerCamelCase with its parameters named as fuzzylite's members. This table
// is the one list of them: the JSON schema, validation and the formats all read it.

import type { TermKind } from './types.js';

/** Each kind's numeric parameters, in fuzzylite's order (the order FLL writes them in). */
export const TERM_PARAMETERS = {
  triangle: ['vertexA', 'vertexB', 'vertexC'],
  trapezoid: ['vertexA', 'vertexB', 'vertexC', 'vertexD'],
  ramp: ['start', 'end'],
  rectangle: ['start', 'end'],
  gaussian: ['mean', 'standardDeviation'],
  gaussianProduct: ['meanA', 'standardDeviationA', 'meanB', 'standardDeviationB'],
  bell: ['center', 'width', 'slope'],
  sigmoid: ['inflection', 'slope'],
  sigmoidDifference: ['left', 'rising', 'falling', 'right'],
  sigmoidProduct: ['left', 'rising', 'falling', 'right'],
  sShape: ['start', 'end'],
  zShape: ['start', 'end'],
  piShape: ['bottomLeft', 'topLeft', 'topRight', 'bottomRight'],
  cosine: ['center', 'width'],
  spike: ['center', 'width'],
  concave: ['inflection', 'end'],
  binary: ['start', 'direction'],
  discrete: [],
  constant: ['value'],
  linear: [],
} as const satisfies Record<TermKind, readonly string[]>;

export const TERM_KINDS = Object.keys(TERM_PARAMETERS) as TermKind[];

/** Takagi–Sugeno terms: a value, not a fuzzy set; outputs only, defuzzified by a weighted average or sum. */
export const SUGENO_KINDS: ReadonlySet<TermKind> = new Set(['constant', 'linear']);

/** Terms that rise or fall monotonically over their whole domain: what Tsukamoto's method inverts. */
export const MONOTONIC_KINDS: ReadonlySet<TermKind> = new Set(['ramp', 'sigmoid', 'sShape', 'zShape', 'concave']);
