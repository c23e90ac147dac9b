// Stage 1, fuzzification (docs/ENGINE.md, "Membership"; fuzzylite: InputVariable::fuzzify): the degree
// of every input set at the given inputs. Layout: each input set's membership trapezoid, shoulders
// reaching to ±Infinity so that they saturate; when any set is of another kind (or height), every
// set's compiled term, and the loop switches on its kind.

import { InputError, showValue } from './errors.js';
import { trapezoidDegree } from './shape.js';
import { membershipTerm, termDegree, TRAPEZOID, type CompiledTerm } from './terms.js';
import type { Inputs } from './types.js';
import type { IndexedVariables } from './variables.js';

export interface FuzzificationLayout {
  readonly inputNames: readonly string[];
  /** each input name's index in inputNames */
  readonly inputIndex: ReadonlyMap<string, number>;
  /** input i owns input sets inputSetStart[i] .. inputSetStart[i + 1] − 1 */
  readonly inputSetStart: Int32Array;
  readonly inputSetNames: readonly string[];
  /** 4 numbers per input set: its membership trapezoid (used when `terms` is absent) */
  readonly trapezoids: Float64Array;
  /** every input set's term, when some set is not a trapezoid of height 1 */
  readonly terms: readonly CompiledTerm[] | undefined;
}

export function layOutFuzzification(inputs: IndexedVariables): FuzzificationLayout {
  const terms = inputs.points.map((set, s) => membershipTerm(set, inputs.ranges[s]!));
  const trapezoids = new Float64Array(4 * inputs.setNames.length);
  terms.forEach((term, s) => trapezoids.set(term.params.subarray(0, 4), 4 * s));
  const plain = terms.every((term) => term.kind === TRAPEZOID && term.params[4] === 1);
  return {
    inputNames: inputs.names,
    inputIndex: new Map(inputs.names.map((name, i) => [name, i])),
    inputSetStart: inputs.start,
    inputSetNames: inputs.setNames,
    trapezoids,
    terms: plain ? undefined : terms,
  };
}

function knownInputs(layout: FuzzificationLayout): string {
  return layout.inputNames.map((name) => JSON.stringify(name)).join(', ');
}

/** Throws for the first input name the agent does not have. */
function rejectUnknownInputs(layout: FuzzificationLayout, inputs: object): void {
  for (const name of Object.keys(inputs)) {
    if (!layout.inputNames.includes(name)) {
      throw new InputError(`unknown input ${JSON.stringify(name)}: this agent's inputs are ${knownInputs(layout)}`);
    }
  }
}

/** Input i's set degrees at `value`, a finite number. */
function fuzzifyInput(layout: FuzzificationLayout, i: number, value: number, degrees: Float64Array): void {
  const { inputSetStart, trapezoids: t, terms } = layout;
  const end = inputSetStart[i + 1]!;
  if (terms) {
    for (let s = inputSetStart[i]!; s < end; s++) degrees[s] = termDegree(terms[s]!.kind, terms[s]!.params, value);
    return;
  }
  for (let s = inputSetStart[i]!; s < end; s++) degrees[s] = trapezoidDegree(t[4 * s]!, t[4 * s + 1]!, t[4 * s + 2]!, t[4 * s + 3]!, value);
}

/**
 * Writes every input set's degree into `degrees` and each input's value into `values`; a missing
 * input's sets and value get NaN, so that no rule using them fires. Throws InputError for an
 * unknown input or a value that is not a finite number.
 *
 * The usual inputs (known names, each a finite number) are read in one for-in pass, whose keyed
 * reads V8 serves from the object's own layout; anything else is left to checkedFuzzify, which
 * reads name by name and throws the first error in the agent's input order.
 */
export function fuzzify(layout: FuzzificationLayout, inputs: Inputs, degrees: Float64Array, values: Float64Array): void {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw new InputError(`inputs must be an object mapping input names to numbers, got ${showValue(inputs)}`);
  }
  const { inputNames, inputIndex } = layout;
  for (let i = 0; i < inputNames.length; i++) values[i] = NaN;
  let next = 0;
  for (const name in inputs) {
    const i = name === inputNames[next] ? next : inputIndex.get(name);
    const value: unknown = inputs[name];
    if (i === undefined || typeof value !== 'number' || value - value !== 0) {
      checkedFuzzify(layout, inputs, degrees, values);
      return;
    }
    values[i] = value;
    fuzzifyInput(layout, i, value, degrees);
    next = i + 1;
  }
  for (let i = 0; i < inputNames.length; i++) {
    if (values[i] !== values[i]) degrees.fill(NaN, layout.inputSetStart[i]!, layout.inputSetStart[i + 1]!);
  }
}

function checkedFuzzify(layout: FuzzificationLayout, inputs: Inputs, degrees: Float64Array, values: Float64Array): void {
  const { inputNames, inputSetStart } = layout;
  let given = 0;
  for (let i = 0; i < inputNames.length; i++) {
    const name = inputNames[i]!;
    const value: unknown = inputs[name];
    if (value === undefined || (typeof value !== 'number' && !Object.hasOwn(inputs, name))) {
      degrees.fill(NaN, inputSetStart[i]!, inputSetStart[i + 1]!);
      values[i] = NaN;
      continue;
    }
    if (typeof value !== 'number' || value - value !== 0) {
      throw new InputError(`input ${JSON.stringify(name)} must be a finite number, got ${showValue(value)}`);
    }
    given++;
    values[i] = value;
    fuzzifyInput(layout, i, value, degrees);
  }
  let keys = 0;
  for (const _ in inputs) keys++;
  if (keys !== given) rejectUnknownInputs(layout, inputs);
}
