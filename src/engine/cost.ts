// What one evaluation of a compiled agent can cost at most, in "steps" (docs/ENGINE.md, "Cost of an
// evaluation"): a bound a service multiplies by the items of a request and checks against a budget
// before it evaluates anything. Computed from the compiled layout in one pass (no evaluation), so
// asking costs microseconds; kept per compiled agent, which is immutable.

import { LOAD_OUTPUT } from './activation.js';
import { PROGRAM, type CompiledAgent } from './compile.js';
import type { Program } from './program.js';

// A step is about a nanosecond of a traced evaluation here (docs/ENGINE.md): what each part of the
// agent costs in steps was fitted on agents from the tipper to the size limits.
/** every evaluation, whatever the agent: reading its inputs, building its result and trace */
const BASE_STEPS = 1500;
/** per input set: its degree, and its entry in the trace */
const INPUT_SET_STEPS = 20;
/** per output set: its inferred degree and clipped polygon in the trace */
const OUTPUT_SET_STEPS = 150;
/** per rule, and per literal, operation or conclusion of one */
const RULE_STEPS = 20;
const TERM_STEPS = 5;
/** per interval of an output where at most one set is reached */
const INTERVAL_STEPS = 30;

/**
 * The most work the envelope of one interval can take where `n` pieces overlap, `sloped` of them not
 * flat: candidate breakpoints are the start, one clipping kink per sloped piece, the crossing of
 * every pair of lines of which at least one slopes, and every other piece's height crossing a sloped
 * line; each breakpoint is then evaluated against all n pieces, after sorting.
 */
function overlapSteps(n: number, sloped: number): number {
  if (n <= 1) return INTERVAL_STEPS;
  const flat = n - sloped;
  const breaks = 1 + sloped + (sloped * (sloped - 1)) / 2 + sloped * flat + sloped * (n - 1);
  const pairs = (n * (n - 1)) / 2;
  return n + 3 * pairs + breaks * (n + Math.log2(breaks + 1));
}

function programSteps(program: Program): number {
  const { fuzzification, activation, implication, aggregation } = program;
  let steps = BASE_STEPS + INPUT_SET_STEPS * fuzzification.inputSetNames.length + OUTPUT_SET_STEPS * program.outputSetNames.length;
  // each rule: its condition's literals or postfix operations, and its conclusions
  const terms = activation.literals.length + activation.ops.length + activation.conclusionSets.length;
  steps += RULE_STEPS * activation.ruleTexts.length + TERM_STEPS * terms;
  // a piece is flat where its set is, whichever implication scales or cuts it
  const { pieceStart, pieceFrom, pieceTo } = implication;
  for (let k = 0; k + 1 < pieceStart.length; k++) {
    let sloped = 0;
    for (let p = pieceStart[k]!; p < pieceStart[k + 1]!; p++) if (pieceFrom[p] !== pieceTo[p]) sloped++;
    steps += overlapSteps(pieceStart[k + 1]! - pieceStart[k]!, sloped);
  }
  // a condition on an output set reads every activation concluding it; a formula is its steps, per activation weighing it
  for (let k = 0; k < activation.ops.length; k++) {
    if (activation.ops[k] !== LOAD_OUTPUT) continue;
    const set = activation.opArgs[k]!;
    steps += TERM_STEPS * (activation.setPairStart[set + 1]! - activation.setPairStart[set]!);
  }
  for (const plan of program.outputs.plans) {
    if (!plan || !('formulas' in plan)) continue;
    for (const c of plan.pairConclusion) steps += TERM_STEPS * (plan.formulas[activation.conclusionSets[c]! - plan.firstSet]?.kinds.length ?? 0);
  }
  return steps + INTERVAL_STEPS * aggregation.spikeSet.length;
}

const known = new WeakMap<CompiledAgent, number>();

/**
 * An upper bound on the work of one evaluation of `compiled`, traced or not, in steps: every
 * interval of every output as if all its sets were reached at different strengths. Requests cost
 * items × this; docs/ENGINE.md gives what a step takes.
 */
export function evaluationCost(compiled: CompiledAgent): number {
  let steps = known.get(compiled);
  if (steps === undefined) known.set(compiled, (steps = Math.ceil(programSteps(compiled[PROGRAM]))));
  return steps;
}
