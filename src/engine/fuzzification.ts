// Stage 1, fuzzification (docs/ENGINE.md, "Membership"; fuzzylite: InputVariable::fuzzify): the degree
// of every input set at the given inputs. Layout: each input set's membership trapezoid, shoulders
// reaching to ±Infinity so that they saturate.

import { InputError, showValue } from './errors.js';
import { membershipTrapezoid, trapezoidDegree } from './shape.js';
import type { Inputs } from './types.js';
import type { IndexedVariables } from './variables.js';

export interface FuzzificationLayout {
  readonly inputNames: readonly string[];
  /** input i owns input sets inputSetStart[i] .. inputSetStart[i + 1] − 1 */
  readonly inputSetStart: Int32Array;
  readonly inputSetNames: readonly string[];
  /** 4 numbers per input set: its membership trapezoid */
  readonly trapezoids: Float64Array;
}

export function layOutFuzzification(inputs: IndexedVariables): FuzzificationLayout {
  const trapezoids = new Float64Array(4 * inputs.setNames.length);
  inputs.points.forEach((points, s) => trapezoids.set(membershipTrapezoid(points, inputs.ranges[s]!), 4 * s));
  return { inputNames: inputs.names, inputSetStart: inputs.start, inputSetNames: inputs.setNames, trapezoids };
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

/**
 * Writes every input set's degree into `degrees`; a missing input's sets get NaN, so that no rule
 * using them fires. Throws InputError for an unknown input or a value that is not a finite number.
 */
export function fuzzify(layout: FuzzificationLayout, inputs: Inputs, degrees: Float64Array): void {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw new InputError(`inputs must be an object mapping input names to numbers, got ${showValue(inputs)}`);
  }
  const { inputNames, inputSetStart, trapezoids: t } = layout;
  let given = 0;
  for (let i = 0; i < inputNames.length; i++) {
    const name = inputNames[i]!;
    const value: unknown = inputs[name];
    const first = inputSetStart[i]!;
    const end = inputSetStart[i + 1]!;
    if (value === undefined || (typeof value !== 'number' && !Object.hasOwn(inputs, name))) {
      degrees.fill(NaN, first, end);
      continue;
    }
    if (typeof value !== 'number' || value - value !== 0) {
      throw new InputError(`input ${JSON.stringify(name)} must be a finite number, got ${showValue(value)}`);
    }
    given++;
    for (let s = first; s < end; s++) {
      degrees[s] = trapezoidDegree(t[4 * s]!, t[4 * s + 1]!, t[4 * s + 2]!, t[4 * s + 3]!, value);
    }
  }
  let keys = 0;
  for (const _ in inputs) keys++;
  if (keys !== given) rejectUnknownInputs(layout, inputs);
}
