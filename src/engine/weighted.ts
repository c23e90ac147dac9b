// Weighted defuzzification (fuzzylite: WeightedAverage, WeightedSum): a Takagi–Sugeno or Tsukamoto
// output in closed form. Each activation w of a term (a rule's strength, through its conclusion's
// hedges) weighs the term's value z: a constant's value, a linear term's Σ c·input + constant, a
// function term's formula (x = w, as fuzzylite's Function::membership(w)), or a monotonic term's
// Tsukamoto value (the x where it reaches w). With aggregation `none` every
// activation counts on its own; with an s-norm, the activations of one term are first combined.

import { ALL_OF_MIN, ALL_OF_PRODUCT, conclusionDegree, concludingPairs, flatDegree, type ActivationLayout } from './activation.js';
import { compileFormula, evaluateFormula, type Formula, type FormulaNames } from './formula.js';
import { sNorm } from './norms.js';
import { tsukamoto } from './terms.js';
import type { Polygon, TermDefinition } from './types.js';

export const CONSTANT_VALUE = 0;
export const LINEAR_VALUE = 1;
export const TSUKAMOTO_VALUE = 2;
export const FORMULA_VALUE = 3;

export interface WeightedPlan {
  /** true: Σwz / Σw; false: Σwz */
  readonly average: boolean;
  /** the s-norm code combining one term's activations, or −1 for `none` */
  readonly aggregation: number;
  /** the output's first set index: its sets are firstSet .. firstSet + values.length − 1 */
  readonly firstSet: number;
  /** per set: how its value is found */
  readonly valueKind: Int32Array;
  /** per set: a constant's value, a linear term's constant */
  readonly constants: Float64Array;
  /** per set: a linear term's coefficient per input (inputs.length numbers each) */
  readonly coefficients: Float64Array;
  /** per set: the term a Tsukamoto value inverts */
  readonly terms: ReadonlyArray<TermDefinition | undefined>;
  /** per set: a function term's formula */
  readonly formulas: ReadonlyArray<Formula | undefined>;
  /** the (rule, conclusion) pairs concluding this output */
  readonly pairRule: Int32Array;
  readonly pairConclusion: Int32Array;
}

export function planWeighted(
  definitions: ReadonlyArray<TermDefinition>,
  firstSet: number,
  names: FormulaNames,
  inputNames: readonly string[],
  activation: ActivationLayout,
  average: boolean,
  aggregation: number,
): WeightedPlan {
  const n = definitions.length;
  const valueKind = new Int32Array(n);
  const constants = new Float64Array(n);
  const coefficients = new Float64Array(n * inputNames.length);
  definitions.forEach((term, s) => {
    if (term.type === 'constant') {
      constants[s] = term.value;
    } else if (term.type === 'linear') {
      valueKind[s] = LINEAR_VALUE;
      constants[s] = term.constant ?? 0;
      inputNames.forEach((name, i) => {
        if (Object.hasOwn(term.coefficients, name)) coefficients[s * inputNames.length + i] = term.coefficients[name]!;
      });
    } else if (term.type === 'function') {
      valueKind[s] = FORMULA_VALUE;
    } else {
      valueKind[s] = TSUKAMOTO_VALUE;
    }
  });
  return {
    average,
    aggregation,
    firstSet,
    valueKind,
    constants,
    coefficients,
    terms: definitions.map((term) => (term.type === 'constant' || term.type === 'linear' || term.type === 'function' ? undefined : term)),
    formulas: definitions.map((term) => (term.type === 'function' ? compileFormula(term.formula, names) : undefined)),
    ...concludingPairs(activation, firstSet, n),
  };
}

/** The value z of set s (an index within the output) activated to w, for these input values (and output values, which a formula may read). */
function termValue(plan: WeightedPlan, s: number, w: number, values: Float64Array, outputValues: Float64Array): number {
  const kind = plan.valueKind[s]!;
  if (kind === CONSTANT_VALUE) return plan.constants[s]!;
  if (kind === TSUKAMOTO_VALUE) return tsukamoto(plan.terms[s]!, w);
  if (kind === FORMULA_VALUE) return evaluateFormula(plan.formulas[s]!, w, values, outputValues);
  let z = plan.constants[s]!;
  const count = values.length;
  for (let i = 0; i < count; i++) {
    const c = plan.coefficients[s * count + i]!;
    if (c !== 0) z += c * values[i]!;
  }
  return z;
}

/**
 * Each reached term's weight, into `weights` (one per set of the output; 0 where none): the
 * activations of its rules combined by the aggregation, or, for `none`, summed, which is what every
 * activation counting on its own makes of Σwz and Σw when z depends only on the term. A Tsukamoto
 * value depends on w too, so `none` over monotonic terms is summed activation by activation instead
 * (weighted() does that); this function serves the trace and the grouped case.
 */
export function termWeights(plan: WeightedPlan, activation: ActivationLayout, strengths: Float64Array, weights: Float64Array): void {
  weights.fill(0);
  const { pairRule, pairConclusion } = plan;
  for (let p = 0; p < pairRule.length; p++) {
    const c = pairConclusion[p]!;
    const w = conclusionDegree(activation, strengths, pairRule[p]!, c);
    if (w === 0) continue;
    const s = activation.conclusionSets[c]! - plan.firstSet;
    weights[s] = plan.aggregation < 0 ? weights[s]! + w : sNorm(plan.aggregation, weights[s]!, w);
  }
}

/** The crisp value, or NaN when no rule reaches the output (or a linear term needs a missing input). */
export function weighted(
  plan: WeightedPlan,
  activation: ActivationLayout,
  strengths: Float64Array,
  values: Float64Array,
  outputValues: Float64Array,
  weights: Float64Array,
): number {
  let sum = 0;
  let total = 0;
  if (plan.aggregation < 0) {
    const { pairRule, pairConclusion } = plan;
    for (let p = 0; p < pairRule.length; p++) {
      const c = pairConclusion[p]!;
      const w = conclusionDegree(activation, strengths, pairRule[p]!, c);
      if (w === 0) continue;
      sum += w * termValue(plan, activation.conclusionSets[c]! - plan.firstSet, w, values, outputValues);
      total += w;
    }
  } else {
    termWeights(plan, activation, strengths, weights);
    for (let s = 0; s < plan.valueKind.length; s++) {
      const w = weights[s]!;
      if (w === 0) continue;
      sum += w * termValue(plan, s, w, values, outputValues);
      total += w;
    }
  }
  return weightedResult(plan, sum, total);
}

/** Σwz / Σw (or Σwz); NaN when no activation reached the output. */
export function weightedResult(plan: WeightedPlan, sum: number, total: number): number {
  if (!(total > 0)) return NaN;
  return plan.average ? sum / total : sum;
}

/**
 * The Takagi–Sugeno fast path, for the form ANFIS models have: one output, weighed with
 * aggregation `none` over constant and linear terms; every rule an AND of input sets (or one set)
 * concluding one term without hedges. Each rule is fired and weighed in one pass, without the
 * strengths, inferred degrees and pairs of the stage-by-stage path; it adds the same products in
 * the same order as activate() and weighted() do, so its results are the same to the bit.
 */
export interface SugenoPlan {
  readonly output: WeightedPlan;
  /** per rule: the term it concludes, as an index within the output */
  readonly ruleTerm: Int32Array;
}

/** The fast path's plan, or undefined when the program is not of its form. */
export function planSugeno(plans: ReadonlyArray<WeightedPlan | unknown>, activation: ActivationLayout): SugenoPlan | undefined {
  if (plans.length !== 1) return undefined;
  const output = plans[0] as WeightedPlan;
  const { conditionKind, conclusionStart, conclusionHedges, conclusionSets } = activation;
  const rules = conditionKind.length;
  const ofForm =
    output.aggregation < 0 &&
    !output.valueKind.includes(TSUKAMOTO_VALUE) &&
    conditionKind.every((kind) => kind === ALL_OF_MIN || kind === ALL_OF_PRODUCT) &&
    conclusionStart.every((start, r) => r === start) &&
    conclusionHedges.every((hedges) => hedges === 0);
  if (!ofForm) return undefined;
  return { output, ruleTerm: Int32Array.from(conclusionSets.subarray(0, rules), (set) => set - output.firstSet) };
}

/** The output's crisp value by the fast path: NaN when no rule reaches it (or a linear term needs a missing input). */
export function weighSugeno(plan: SugenoPlan, activation: ActivationLayout, degrees: Float64Array, values: Float64Array, outputValues: Float64Array): number {
  const { output, ruleTerm } = plan;
  const { conditionKind, literals, literalStart, weights, threshold } = activation;
  let sum = 0;
  let total = 0;
  for (let r = 0; r < ruleTerm.length; r++) {
    const w = flatDegree(conditionKind[r]!, literals, literalStart[r]!, literalStart[r + 1]!, degrees) * weights[r]!;
    if (!(w >= threshold)) continue;
    sum += w * termValue(output, ruleTerm[r]!, w, values, outputValues);
    total += w;
  }
  return weightedResult(output, sum, total);
}

/** The trace of a weighted output: each reached term as a bar at its value, and [crisp, Σw²/2Σw]. */
export function weightedTrace(
  plan: WeightedPlan,
  activation: ActivationLayout,
  strengths: Float64Array,
  values: Float64Array,
  outputValues: Float64Array,
  weights: Float64Array,
): { bars: Array<{ set: number; polygon: Polygon }>; combined: Polygon; heightCentroid: number } {
  termWeights(plan, activation, strengths, weights);
  const bars: Array<{ set: number; polygon: Polygon }> = [];
  let squares = 0;
  let total = 0;
  for (let s = 0; s < plan.valueKind.length; s++) {
    const w = weights[s]!;
    if (!(w > 0)) continue;
    const z = termValue(plan, s, Math.min(w, 1), values, outputValues);
    // a formula may have no finite value here (sin(x)/x at 0, 1/0): no bar to draw
    if (plan.valueKind[s] === FORMULA_VALUE && !Number.isFinite(z)) continue;
    bars.push({
      set: plan.firstSet + s,
      polygon: [
        [z, 0],
        [z, w],
        [z, 0],
      ],
    });
    squares += (w * w) / 2;
    total += w;
  }
  // the bars left to right; a loop, as Array.prototype.flat took most of a traced evaluation's time
  const combined: Polygon = [];
  for (const { polygon } of [...bars].sort((p, q) => p.polygon[0]![0] - q.polygon[0]![0])) combined.push(...polygon);
  return { bars, combined, heightCentroid: total > 0 ? squares / total : 0 };
}
