// The mutable working memory of one evaluation, kept apart from the compiled agent, which stays
// immutable: evaluate borrows the agent's scratch and marks it free when done, so that the usual
// call allocates nothing, while a nested call (an input's getter evaluating the same agent) finds
// it busy and gets a new one. The new one becomes the agent's: a call that threw (and so never
// freed its scratch) costs one allocation, not one per later call, and needs no try/finally.

import { breakCapacity } from './aggregation.js';
import type { Program } from './program.js';

export interface Scratch {
  /** fuzzification: degree per input set, NaN when its input is missing; each input's value (NaN when missing), for linear terms */
  readonly degrees: Float64Array;
  readonly inputValues: Float64Array;
  /** activation: the postfix stack, strength per rule, inferred degree per output set */
  readonly stack: Float64Array;
  readonly strengths: Float64Array;
  readonly inferred: Float64Array;
  /** implication: the implied pieces reached on one interval (degrees at both ends, the degree they are cut at) */
  readonly impliedFrom: Float64Array;
  readonly impliedTo: Float64Array;
  readonly impliedCap: Float64Array;
  /** aggregation: per piece, where its kink lies in the interval (0..1) or NaN, 1 when it rounded onto the end; the breakpoints */
  readonly kinkAt: Float64Array;
  readonly endKink: Uint8Array;
  readonly breaks: Float64Array;
  /** defuzzification: [2·area, 6·moment in u, 6·moment in y, spike height, spike moment in u, spike moment in y]; [x̄, ȳ] */
  readonly sums: Float64Array;
  readonly centroid: Float64Array;
  /** weighted defuzzification: each term's weight, per output set */
  readonly weights: Float64Array;
  /** each output's crisp value (its default, or NaN, where no rule reached it), for formulas that read outputs */
  readonly outputValues: Float64Array;
  /** in use by an evaluation */
  busy: boolean;
}

export function createScratch(program: Program): Scratch {
  const { activation, implication } = program;
  const mostPieces = implication.mostPieces;
  return {
    degrees: new Float64Array(program.fuzzification.inputSetNames.length),
    inputValues: new Float64Array(program.fuzzification.inputNames.length),
    stack: new Float64Array(activation.stackDepth),
    strengths: new Float64Array(activation.weights.length),
    inferred: new Float64Array(program.outputSetNames.length),
    impliedFrom: new Float64Array(mostPieces),
    impliedTo: new Float64Array(mostPieces),
    impliedCap: new Float64Array(mostPieces),
    kinkAt: new Float64Array(mostPieces),
    endKink: new Uint8Array(mostPieces),
    breaks: new Float64Array(breakCapacity(mostPieces)),
    sums: new Float64Array(6),
    centroid: new Float64Array(2),
    weights: new Float64Array(program.outputSetNames.length),
    outputValues: new Float64Array(program.outputNames.length).fill(NaN),
    busy: false,
  };
}

const scratches = new WeakMap<Program, Scratch>();
let lastProgram: Program | undefined;
let lastScratch: Scratch | undefined;

/** A scratch for `program`, marked busy (the caller sets busy = false when done): its kept one when free, else a new one it keeps. */
export function borrowScratch(program: Program): Scratch {
  if (lastProgram === program && !lastScratch!.busy) {
    lastScratch!.busy = true;
    return lastScratch!;
  }
  let scratch = lastProgram === program ? lastScratch : scratches.get(program);
  if (!scratch || scratch.busy) {
    scratch = createScratch(program);
    scratches.set(program, scratch);
  }
  lastProgram = program;
  lastScratch = scratch;
  scratch.busy = true;
  return scratch;
}
