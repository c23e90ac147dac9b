// The generated rule loop (docs/ENGINE.md, "How the fast path is fast"): once a compiled agent has
// served GENERATE_AFTER calls of evaluate() or evaluateBatch() (a batch counts once, so that the
// agents learning makes, weighs over one batch and drops never pay for code they would not reuse),
// its rule loop — activation's for the usual agent, the Takagi–Sugeno fast path's for an ANFIS
// model — is written out as straight JavaScript, one statement per rule with its set indices,
// weight and coefficients as literals, and handed to the JavaScript engine (`new Function`).
// Interpreting the layouts costs more than the arithmetic: written out, the tipper's rules run
// about four times faster. The generated code performs the same operations in the same order as
// the loop it replaces (activate(), weighSugeno()), so results are the same to the bit
// (test/engine/generated.test.ts). Only numbers made here enter its source, never a name or a
// string of the agent's. Where code cannot be made from text (a Content-Security-Policy without
// 'unsafe-eval', Trusted Types), the first attempt fails and the loops keep running as they are.
// The trace always runs the loops.

import { ALL_OF_MIN, ALL_OF_PRODUCT, ANY_OF_MAX, type ActivationLayout } from './activation.js';
import type { Program } from './program.js';
import { CONSTANT_VALUE, LINEAR_VALUE, weightedResult, type SugenoPlan } from './weighted.js';

/** Calls (single evaluations or batches) an agent serves through the loops before its rules are written out. */
export const GENERATE_AFTER = 64;

/** activate() for one plain layout: writes strengths and inferred degrees from degrees. */
export type GeneratedActivation = (degrees: Float64Array, strengths: Float64Array, inferred: Float64Array) => void;
/** weighSugeno() for one plan: the output's crisp value from degrees and input values. */
export type GeneratedSugeno = (degrees: Float64Array, values: Float64Array) => number;

/** A program's generated code: made once, the one part of a compiled program that changes. */
export interface Generated {
  /** calls served before the code is made */
  calls: number;
  activation: GeneratedActivation | undefined;
  sugeno: GeneratedSugeno | undefined;
}

export function notGenerated(): Generated {
  return { calls: 0, activation: undefined, sugeno: undefined };
}

/** false once making code from text failed here: it will fail again. */
let available = true;

/** A number as a JavaScript literal that reads back as the very same double. */
function literal(x: number): string {
  if (Object.is(x, -0)) return '(-0)';
  if (Number.isNaN(x)) return '(0/0)';
  if (x === Infinity) return '(1/0)';
  if (x === -Infinity) return '(-1/0)';
  return `(${String(x)})`;
}

/** Integers only: indices into the typed arrays the code reads. */
function index(i: number): string {
  if (!Number.isInteger(i) || i < 0) throw new RangeError(`not an index: ${i}`);
  return String(i);
}

/** A function from its body, or undefined where the environment forbids making code from text. */
function make<T>(parameters: string[], body: string, bound: unknown[] = []): T | undefined {
  if (!available) return undefined;
  try {
    return new Function(...parameters, body)(...bound) as T;
  } catch (error) {
    if (!(error instanceof EvalError) && !(error instanceof TypeError)) throw error;
    available = false;
    return undefined;
  }
}

/**
 * Statements leaving rule r's condition degree in `x`, as flatDegree() computes it: the first
 * literal, then each next one combined by the rule's AND or OR (d: the degrees).
 */
function conditionStatements(layout: ActivationLayout, r: number): string {
  const { conditionKind, literals, literalStart } = layout;
  const kind = conditionKind[r]!;
  const degreeOf = (code: number) => (code >= 0 ? `d[${index(code)}]` : `1 - d[${index(~code)}]`);
  let statements = `x = ${degreeOf(literals[literalStart[r]!]!)};`;
  for (let l = literalStart[r]! + 1; l < literalStart[r + 1]!; l++) {
    statements += ` v = ${degreeOf(literals[l]!)};`;
    if (kind === ALL_OF_MIN) statements += ' x = Math.min(x, v);';
    else if (kind === ANY_OF_MAX) statements += ' x = Math.max(x, v);';
    else if (kind === ALL_OF_PRODUCT) statements += ' x *= v;';
    else statements += ' x = x + v - x * v;';
  }
  return statements;
}

/** activate() written out for a plain layout (the rules in order, flat conditions, no hedged conclusions). */
function generateActivation(layout: ActivationLayout, setCount: number): GeneratedActivation | undefined {
  const { weights, threshold, conclusionStart, conclusionSets } = layout;
  let body = 'return function (d, strengths, inferred) {\nlet x, v, s;\n';
  for (let set = 0; set < setCount; set++) body += `inferred[${index(set)}] = 0;\n`;
  for (let r = 0; r < weights.length; r++) {
    body += `${conditionStatements(layout, r)} s = x * ${literal(weights[r]!)};\n`;
    body += `if (s >= ${literal(threshold)}) { strengths[${index(r)}] = s;`;
    for (let c = conclusionStart[r]!; c < conclusionStart[r + 1]!; c++) {
      const set = index(conclusionSets[c]!);
      body += ` if (s > inferred[${set}]) inferred[${set}] = s;`;
    }
    body += ` } else strengths[${index(r)}] = 0;\n`;
  }
  return make<GeneratedActivation>([], `${body}};`);
}

/** weighSugeno() written out, for outputs of constant and linear terms (a formula's value stays interpreted). */
function generateSugeno(plan: SugenoPlan, layout: ActivationLayout, inputCount: number): GeneratedSugeno | undefined {
  const { output, ruleTerm } = plan;
  const { valueKind, constants, coefficients } = output;
  if (valueKind.some((kind) => kind !== CONSTANT_VALUE && kind !== LINEAR_VALUE)) return undefined;
  let body = 'return function (d, values) {\nlet x, v, w, z, sum = 0, total = 0;\n';
  for (let r = 0; r < ruleTerm.length; r++) {
    const s = ruleTerm[r]!;
    body += `${conditionStatements(layout, r)} w = x * ${literal(layout.weights[r]!)};\n`;
    body += `if (w >= ${literal(layout.threshold)}) { z = ${literal(constants[s]!)};`;
    if (valueKind[s] === LINEAR_VALUE) {
      for (let i = 0; i < inputCount; i++) {
        const c = coefficients[s * inputCount + i]!;
        if (c !== 0) body += ` z += ${literal(c)} * values[${index(i)}];`;
      }
    }
    body += ' sum += w * z; total += w; }\n';
  }
  return make<GeneratedSugeno>(['result', 'plan'], `${body}return result(plan, sum, total);\n};`, [weightedResult, output]);
}

/** Counts one call of evaluate or evaluateBatch on the program; at the GENERATE_AFTER-th, writes out what it can. */
export function countCall(program: Program): void {
  const generated = program.generated;
  if (++generated.calls !== GENERATE_AFTER) return;
  const { activation, outputs, fuzzification, outputSetNames } = program;
  if (outputs.sugeno) generated.sugeno = generateSugeno(outputs.sugeno, activation, fuzzification.inputNames.length);
  else if (activation.plain) generated.activation = generateActivation(activation, outputSetNames.length);
}
