import { compileAgent, evaluate, printRule } from '../engine/index.js';
import type { AgentDefinition, Condition, Inputs, SetDefinition } from '../engine/types.js';
import type { Interval } from './offpolicy.js';
import type { Change } from './tuning.js';

/**
 * A table agent learnt from the log: each input's range cut into cells (tent-shaped sets that hand
 * over linearly between neighbouring cell centres), one rule per combination of cells, and one
 * output set per rule placed where the log says the metric is best. It is an ordinary agent like
 * any other: a person reads it as a table ("IF temperature IS "near 16" THEN price IS "at 16"") and
 * can edit it like any other. The original output sets stay in the definition, unused, so every
 * output keeps the range its designer gave it (and with it the exploration's spread).
 */
export interface CellLayout {
  /** the agent's inputs, each with its cell centres in ascending order */
  readonly inputs: ReadonlyArray<{ readonly name: string; readonly centres: readonly number[] }>;
  /** the agent's outputs with their ranges */
  readonly outputs: ReadonlyArray<{ readonly name: string; readonly range: readonly [number, number] }>;
  /** every combination of cells, as one index per input */
  readonly cells: ReadonlyArray<readonly number[]>;
  /** the output set names of each cell, one per output */
  readonly setNames: readonly string[];
}

/** The most rules a table agent may have: beyond it the log (and a person) cannot fill the table. */
export const MAX_CELLS = 36;
/** Fewest and most cells per input (an input that only ever takes its range's two ends gets 2). */
const MIN_PER_INPUT = 3;
const MAX_PER_INPUT = 10;
/** Evaluations with feedback per cell that a table of that size needs. */
export const EVALUATIONS_PER_CELL = 25;
/** An output cell set's half-width, as a share of the output's range: narrow, so the answer is where the set is. */
const HALF_WIDTH = 0.05;
/** A logged input within this share of its range's ends counts as at the end (where the engine clamps what lies beyond). */
const AT_END = 0.001;

/**
 * How many cells each input gets from a log of `evaluations` whose inputs, in shares of each range
 * (`shares`: evaluations × inputs), are as logged; empty when not even the fewest fit. A table
 * needs EVALUATIONS_PER_CELL per cell, and at most MAX_CELLS. An input whose logged values all lie
 * at its range's two ends (a 0/1 input) gets 2 cells: a middle cell would never be reached. The
 * others start at MIN_PER_INPUT (2 when that many do not fit: four inputs), and the cells left are
 * handed out one at a time to the input with the most logged values strictly inside its range per
 * cell it has: an input sent mostly past its sets (clamped to the end) has little data to fill
 * cells with, so its cells go to an input whose values spread over its range.
 */
export function cellsPerInput(inputCount: number, evaluations: number, shares?: ArrayLike<number>): number[] {
  if (inputCount === 0) return [];
  const total = Math.min(MAX_CELLS, Math.floor(evaluations / EVALUATIONS_PER_CELL));
  const inside = new Float64Array(inputCount);
  const binary = Array.from({ length: inputCount }, () => shares !== undefined && evaluations > 0);
  if (shares) {
    for (let i = 0; i < evaluations; i++)
      for (let d = 0; d < inputCount; d++) {
        const share = shares[i * inputCount + d]!;
        if (share > AT_END && share < 1 - AT_END) {
          inside[d]!++;
          binary[d] = false;
        }
      }
  } else inside.fill(1);
  const fewest = binary.map((isBinary) => (isBinary ? 2 : MIN_PER_INPUT));
  const product = (counts: readonly number[]) => counts.reduce((a, b) => a * b, 1);
  const counts = product(fewest) > MAX_CELLS ? fewest.map(() => 2) : fewest;
  if (product(counts) > total) return [];
  for (;;) {
    let grow = -1;
    for (let d = 0; d < inputCount; d++) {
      if (binary[d] || counts[d]! >= MAX_PER_INPUT || (product(counts) / counts[d]!) * (counts[d]! + 1) > total) continue;
      if (grow < 0 || inside[d]! / counts[d]! > inside[grow]! / counts[grow]!) grow = d;
    }
    if (grow < 0) return counts;
    counts[grow]!++;
  }
}

/** A short, readable number: at most 3 significant digits (more when cells are closer than that). */
function label(value: number, step: number): string {
  const digits = Math.max(0, Math.ceil(-Math.log10(Math.max(step, 1e-12))) + 1);
  return String(Number(value.toFixed(Math.min(digits, 6))));
}

/** The cells of `definition`'s inputs, `perInput[d]` evenly over input d's range. */
export function cellLayout(definition: AgentDefinition, perInput: readonly number[]): CellLayout {
  const compiled = compileAgent(definition);
  const inputs = Object.entries(compiled.inputs).map(([name, { range }], d) => ({
    name,
    centres: Array.from({ length: perInput[d]! }, (_, i) => range[0] + ((range[1] - range[0]) * i) / (perInput[d]! - 1)),
  }));
  const outputs = Object.entries(compiled.outputs).map(([name, { range }]) => ({ name, range }));
  let cells: number[][] = [[]];
  for (const { centres } of inputs) cells = cells.flatMap((cell) => centres.map((_, i) => [...cell, i]));
  const labels = inputs.map(({ centres }) => centres.map((c) => label(c, centres.length > 1 ? centres[1]! - centres[0]! : 1)));
  const setNames = cells.map((cell) => `at ${cell.map((i, d) => labels[d]![i]).join(' | ')}`);
  return { inputs, outputs, cells, setNames };
}

const inputSetName = (layout: CellLayout, input: number, cell: number) => {
  const { centres } = layout.inputs[input]!;
  return `near ${label(centres[cell]!, centres.length > 1 ? centres[1]! - centres[0]! : 1)}`;
};

/** The tent sets of one input: a falling shoulder, triangles, a rising shoulder, handing over between centres. */
function inputSets(layout: CellLayout, input: number): Record<string, SetDefinition> {
  const { centres } = layout.inputs[input]!;
  const sets: Record<string, SetDefinition> = {};
  if (centres.length === 2) {
    // Two shoulders over the whole range would both rise (a shoulder falls when its midpoint lies
    // below the range's): each ends a thousandth of the range short, so one falls and one rises.
    const [low, high] = centres as [number, number];
    const nudge = (high - low) / 1000;
    return { [inputSetName(layout, input, 0)]: [low, high - nudge], [inputSetName(layout, input, 1)]: [low + nudge, high] };
  }
  centres.forEach((centre, i) => {
    const name = inputSetName(layout, input, i);
    if (i === 0) sets[name] = [centre, centres[1]!];
    else if (i === centres.length - 1) sets[name] = [centres[i - 1]!, centre];
    else sets[name] = [centres[i - 1]!, centre, centres[i + 1]!];
  });
  return sets;
}

const roundTo = (value: number, quantum: number): number => Number((Math.round(value / quantum) * quantum).toPrecision(12));

/** The output set that answers `value`: a narrow triangle around it, inside the range. */
function outputSet(value: number, range: readonly [number, number]): SetDefinition {
  const [min, max] = range;
  const width = max - min;
  const quantum = width > 0 ? 10 ** Math.floor(Math.log10(width)) / 1e4 : 1e-4;
  const centre = Math.min(max, Math.max(min, roundTo(value, quantum)));
  return [Math.max(min, roundTo(centre - HALF_WIDTH * width, quantum)), centre, Math.min(max, roundTo(centre + HALF_WIDTH * width, quantum))];
}

/**
 * The table agent with `values[cell × outputs + output]` as each cell's answer. The original output
 * sets stay (unused: they keep each output's range), the inputs get the layout's cells.
 */
export function tableAgent(original: AgentDefinition, layout: CellLayout, values: Float64Array): AgentDefinition {
  const outputCount = layout.outputs.length;
  const inputs = Object.fromEntries(layout.inputs.map(({ name }, d) => [name, inputSets(layout, d)]));
  const outputs = Object.fromEntries(
    layout.outputs.map(({ name, range }, o) => [
      name,
      {
        ...Object.fromEntries(Object.entries(original.outputs[name]!).filter(([set]) => !layout.setNames.includes(set))),
        ...Object.fromEntries(layout.setNames.map((set, c) => [set, outputSet(values[c * outputCount + o]!, range)])),
      },
    ]),
  );
  const rules = layout.cells.map((cell, c) => {
    const terms: Condition[] = cell.map((i, d) => ({ type: 'is', variable: layout.inputs[d]!.name, set: inputSetName(layout, d, i) }));
    return printRule({
      type: 'if',
      condition: terms.length === 1 ? terms[0]! : { type: 'and', operands: terms },
      conclusions: layout.outputs.map(({ name }) => ({ variable: name, set: layout.setNames[c]! })),
      weight: 1,
    });
  });
  return { inputs, outputs, rules, ...(original.operators && { operators: original.operators }) };
}

/** Each cell's answer where `definition` answers at the cell's centre (the range's middle where it says nothing). */
export function valuesAtCentres(definition: AgentDefinition, layout: CellLayout): Float64Array {
  const compiled = compileAgent(definition);
  const outputCount = layout.outputs.length;
  const values = new Float64Array(layout.cells.length * outputCount);
  layout.cells.forEach((cell, c) => {
    const input: Inputs = Object.fromEntries(cell.map((i, d) => [layout.inputs[d]!.name, layout.inputs[d]!.centres[i]!]));
    const { crisp } = evaluate(compiled, input);
    layout.outputs.forEach(({ name, range }, o) => (values[c * outputCount + o] = crisp[name] ?? (range[0] + range[1]) / 2));
  });
  return values;
}

/**
 * The cells whose rule may fire for an input (shares of range per input, in the layout's order):
 * per input, the two centres it lies between.
 */
export function cellsFiring(layout: CellLayout, shares: ArrayLike<number>): number[] {
  let fired: number[] = [0];
  let stride = 1;
  for (let d = layout.inputs.length - 1; d >= 0; d--) {
    const steps = layout.inputs[d]!.centres.length - 1;
    const below = Math.min(steps - 1, Math.max(0, Math.floor(shares[d]! * steps)));
    fired = fired.flatMap((base) => [base + below * stride, base + (below + 1) * stride]);
    stride *= steps + 1;
  }
  return fired;
}

const figure = (value: number) => String(Number(value.toPrecision(3)));
const signed = (value: number) => `${value >= 0 ? '+' : ''}${figure(value)}`;

/**
 * What a proposal changes and why, in plain words, for the version's evidence: whether the
 * person's rules stay (and which numbers moved) or a table replaces them (its cells per input),
 * per variable how many answers or set points moved and how far, and the estimated gain in
 * `metric` (a name, and its direction where lower is better) per evaluation that earned it a trial.
 */
export function describeProposal(
  before: AgentDefinition,
  after: AgentDefinition,
  changes: readonly Change[],
  metric: string,
  gain: Interval | undefined,
  evaluations: number,
): string {
  // tuning moves numbers and weights but keeps every set's name; a table brings its own input sets
  const sameRules = Object.entries(before.inputs).every(([name, sets]) => Object.keys(sets).join('\n') === Object.keys(after.inputs[name] ?? {}).join('\n'));
  const parts: string[] = [];
  if (sameRules) parts.push(`Keeps the ${before.rules.length} rules`);
  else {
    const cells = Object.entries(after.inputs).map(([name, sets]) => `${name} in ${Object.keys(sets).length} cells`);
    parts.push(`Replaces the ${before.rules.length} rules by a table of ${after.rules.length} (${cells.join(', ')}), one rule per cell`);
  }
  const moved = new Map<string, number[]>();
  for (const change of changes) {
    const key = change.kind === 'weight' ? 'rule weights' : change.variable;
    moved.set(key, [...(moved.get(key) ?? []), change.to - change.from]);
  }
  for (const [name, moves] of moved) {
    const [least, most] = [Math.min(...moves), Math.max(...moves)];
    const what =
      name === 'rule weights' ? `${moves.length} rule weights changed` : `${name}: ${moves.length} ${sameRules ? 'set points' : 'cell answers'} moved`;
    parts.push(least === most ? `${what} by ${signed(least)}` : `${what}, by ${signed(least)} to ${signed(most)}`);
  }
  const why = gain
    ? `because on the newest ${evaluations} evaluations it is estimated better by ${signed(gain.value)} per evaluation in ${metric} (95% interval ${signed(gain.low)} to ${signed(gain.high)}), to be confirmed on fresh evaluations before it is adopted`
    : `from the newest ${evaluations} evaluations`;
  return `${parts.join('; ')}; ${why}.`;
}
