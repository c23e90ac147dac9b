// Stage 2, rule activation (docs/ENGINE.md, "Strength and inferred"; fuzzylite: Rule::activationDegree
// and the degree of each activated term): every rule's strength, its condition's degree under the
// agent's AND and OR times its weight, and every output set's inferred degree, the max strength
// over the rules concluding it. Layout: each condition as a list of literals when it is one AND or
// one OR of them (the common case), otherwise as postfix operations; the operators are chosen here,
// at compile time, so that the loop never asks which AND or OR the agent uses.

import { hedgeChain, packHedges, S_NORM_CODES, sNorm, T_NORM_CODES, tNorm } from './norms.js';
import type { Condition, IfRule, SNorm, TNorm } from './types.js';
import type { IndexedVariables } from './variables.js';

/** How a rule's condition is computed: one AND (or OR) of literals under the agent's operator, or postfix. */
export const ALL_OF_MIN = 0;
export const ALL_OF_PRODUCT = 1;
export const ANY_OF_MAX = 2;
export const ANY_OF_PROBABILISTIC_SUM = 3;
export const POSTFIX = 4;

/** The postfix operations a general condition compiles to; AND and OR take opArg operands. */
export const LOAD = 0;
export const NOT = 1;
export const AND_MIN = 2;
export const AND_PRODUCT = 3;
export const OR_MAX = 4;
export const OR_PROBABILISTIC_SUM = 5;
/** AND (OR) of opArg operands under the t-norm (s-norm) opNorms[k], for the norms beyond the first two */
export const AND_NORM = 6;
export const OR_NORM = 7;
/** the top of the stack through the packed hedges opArg */
export const HEDGE = 8;
/** `x IS any`: the loaded degree becomes 1, or stays NaN when x is missing */
export const ANY_DEGREE = 9;
/** a condition on an output set opArg (chained): its activations so far, under the output's aggregation (the sum for none) */
export const LOAD_OUTPUT = 10;

/** The AND and OR of conditions, and the threshold a rule's activation must reach to fire. */
export interface ActivationOperators {
  readonly and: TNorm;
  readonly or: SNorm;
  /** absent: above 0 */
  readonly activationThreshold?: number;
}

export interface ActivationLayout {
  /** the text of each expanded rule: as written, or canonical for an expanded INCREASES/DECREASES */
  readonly ruleTexts: readonly string[];
  /**
   * How rule r's condition is computed: ALL_OF_… / ANY_OF_… the literals[literalStart[r]] .. (an
   * input set index s, or ~s for NOT s); or POSTFIX: ops[opStart[r]] .., each with its opArg.
   */
  readonly conditionKind: Int32Array;
  readonly literalStart: Int32Array;
  readonly literals: Int32Array;
  readonly opStart: Int32Array;
  readonly ops: Int32Array;
  readonly opArgs: Int32Array;
  /** per operation: the norm of an AND_NORM or OR_NORM */
  readonly opNorms: Int32Array;
  /** the deepest postfix stack any rule needs */
  readonly stackDepth: number;
  readonly weights: Float64Array;
  /** rule r concludes output sets conclusionSets[conclusionStart[r]] .. */
  readonly conclusionStart: Int32Array;
  readonly conclusionSets: Int32Array;
  /** per conclusion: its packed hedges, which modify the rule's activation for it (as fuzzylite's Consequent); 0 for none */
  readonly conclusionHedges: Int32Array;
  /** a rule fires when its strength is at least this */
  readonly threshold: number;
  /** every condition flat, no conclusion hedged, rules in their order: the form generated.ts writes out */
  readonly plain: boolean;
  /** the order rules run in when a condition names an output (every rule concluding it first); absent: rule order */
  readonly order: Int32Array | undefined;
  /** per output set a condition reads: the (rule, conclusion) pairs concluding it, setPairStart[s] .., and its output's aggregation (−1: sum) */
  readonly setPairStart: Int32Array;
  readonly setPairRule: Int32Array;
  readonly setPairConclusion: Int32Array;
  readonly setAggregation: Int32Array;
}

/** A condition that is one literal, or an AND or OR of literals, as literal codes (s, or ~s for NOT s). */
function literalsOf(condition: Condition, inputs: IndexedVariables): number[] | undefined {
  const plain = (is: Condition): is is Extract<Condition, { type: 'is' }> =>
    is.type === 'is' && !is.hedges && inputs.index.get(is.variable)?.has(is.set) === true;
  const literal = (operand: Condition): number | undefined => {
    if (plain(operand)) return inputs.index.get(operand.variable)!.get(operand.set)!;
    if (operand.type === 'not' && plain(operand.operand)) return ~inputs.index.get(operand.operand.variable)!.get(operand.operand.set)!;
    return undefined;
  };
  const operands = condition.type === 'and' || condition.type === 'or' ? condition.operands : [condition];
  const codes = operands.map(literal);
  return codes.every((code) => code !== undefined) ? (codes as number[]) : undefined;
}

/** Appends the postfix operations of a condition; returns the stack depth it needs. */
function compileCondition(
  condition: Condition,
  variables: { inputs: IndexedVariables; outputs: IndexedVariables },
  operators: ActivationOperators,
  ops: number[],
  args: number[],
  norms: number[],
): number {
  const push = (op: number, arg: number, norm = 0) => {
    ops.push(op);
    args.push(arg);
    norms.push(norm);
  };
  switch (condition.type) {
    case 'is': {
      // an input's name is meant before an output's; an output here is chained
      const onInput = variables.inputs.index.has(condition.variable);
      const sets = (onInput ? variables.inputs : variables.outputs).index.get(condition.variable)!;
      const load = onInput ? LOAD : LOAD_OUTPUT;
      const set = sets.get(condition.set);
      if (set === undefined) {
        // the hedge any (validation allowed no other unknown set): any set of x tells whether x is given
        push(load, sets.values().next().value!);
        push(ANY_DEGREE, 0);
      } else {
        push(load, set);
      }
      if (condition.hedges) push(HEDGE, packHedges(condition.hedges));
      return 1;
    }
    case 'not': {
      const depth = compileCondition(condition.operand, variables, operators, ops, args, norms);
      push(NOT, 0);
      return depth;
    }
    case 'and':
    case 'or': {
      let depth = 0;
      condition.operands.forEach((operand, i) => {
        depth = Math.max(depth, i + compileCondition(operand, variables, operators, ops, args, norms));
      });
      const count = condition.operands.length;
      if (condition.type === 'and') {
        if (operators.and === 'min' || operators.and === 'product') push(operators.and === 'product' ? AND_PRODUCT : AND_MIN, count);
        else push(AND_NORM, count, T_NORM_CODES[operators.and]);
      } else if (operators.or === 'max' || operators.or === 'probabilisticSum') {
        push(operators.or === 'probabilisticSum' ? OR_PROBABILISTIC_SUM : OR_MAX, count);
      } else {
        push(OR_NORM, count, S_NORM_CODES[operators.or]);
      }
      return depth;
    }
  }
}

/** The flat kind of a condition of literals, or undefined when its operator is none of the first two (then it runs as postfix). */
function flatKind(condition: Condition, operators: ActivationOperators): number | undefined {
  if (condition.type === 'or') return operators.or === 'max' ? ANY_OF_MAX : operators.or === 'probabilisticSum' ? ANY_OF_PROBABILISTIC_SUM : undefined;
  if (condition.type === 'and') return operators.and === 'min' ? ALL_OF_MIN : operators.and === 'product' ? ALL_OF_PRODUCT : undefined;
  return ALL_OF_MIN;
}

/**
 * Strengths below this count as 0: the geometry multiplies degrees by coordinates and by each other,
 * and below about 1e-154 such products leave the range of normal doubles and lose their precision.
 */
const NEGLIGIBLE_STRENGTH = 1e-150;

/**
 * `order` and `outputAggregation` (per output, an s-norm code or −1 for none) are given when a
 * condition names an output (docs/ENGINE.md, "Chained outputs").
 */
export function layOutActivation(
  rules: ReadonlyArray<{ rule: IfRule; text: string }>,
  inputs: IndexedVariables,
  outputs: IndexedVariables,
  operators: ActivationOperators,
  order?: Int32Array,
  outputAggregation?: Int32Array,
): ActivationLayout {
  const ops: number[] = [];
  const opArgs: number[] = [];
  const opNorms: number[] = [];
  const conclusionHedges: number[] = [];
  const conditionKind = new Int32Array(rules.length);
  const literalStart = new Int32Array(rules.length + 1);
  const literals: number[] = [];
  const opStart = new Int32Array(rules.length + 1);
  const conclusionStart = new Int32Array(rules.length + 1);
  const conclusionSets: number[] = [];
  let stackDepth = 1;
  rules.forEach(({ rule }, r) => {
    opStart[r] = ops.length;
    literalStart[r] = literals.length;
    const flat = literalsOf(rule.condition, inputs);
    const kind = flat && flatKind(rule.condition, operators);
    if (flat && kind !== undefined) {
      conditionKind[r] = kind;
      for (const code of flat) literals.push(code);
    } else {
      conditionKind[r] = POSTFIX;
      stackDepth = Math.max(stackDepth, compileCondition(rule.condition, { inputs, outputs }, operators, ops, opArgs, opNorms));
    }
    conclusionStart[r] = conclusionSets.length;
    for (const { variable, set, hedges } of rule.conclusions) {
      conclusionSets.push(outputs.index.get(variable)!.get(set)!);
      conclusionHedges.push(packHedges(hedges));
    }
  });
  opStart[rules.length] = ops.length;
  literalStart[rules.length] = literals.length;
  conclusionStart[rules.length] = conclusionSets.length;
  // the pairs concluding each output set, for conditions on outputs
  const setPairStart = new Int32Array(order ? outputs.setNames.length + 1 : 0);
  const setPairRule: number[] = [];
  const setPairConclusion: number[] = [];
  const setAggregation = new Int32Array(order ? outputs.setNames.length : 0);
  if (order) {
    for (let set = 0; set < outputs.setNames.length; set++) {
      setPairStart[set] = setPairRule.length;
      for (let c = 0; c < conclusionSets.length; c++) {
        if (conclusionSets[c] !== set) continue;
        setPairRule.push(ruleOfConclusion(conclusionStart, c));
        setPairConclusion.push(c);
      }
    }
    setPairStart[outputs.setNames.length] = setPairRule.length;
    for (let o = 0; o < outputs.names.length; o++) setAggregation.fill(outputAggregation![o]!, outputs.start[o]!, outputs.start[o + 1]!);
  }
  return {
    ruleTexts: rules.map(({ text }) => text),
    conditionKind,
    literalStart,
    literals: Int32Array.from(literals),
    opStart,
    ops: Int32Array.from(ops),
    opArgs: Int32Array.from(opArgs),
    opNorms: Int32Array.from(opNorms),
    stackDepth,
    weights: Float64Array.from(rules, ({ rule }) => rule.weight),
    conclusionStart,
    conclusionSets: Int32Array.from(conclusionSets),
    conclusionHedges: Int32Array.from(conclusionHedges),
    threshold: Math.max(NEGLIGIBLE_STRENGTH, operators.activationThreshold ?? 0),
    plain: order === undefined && !conditionKind.includes(POSTFIX) && conclusionHedges.every((hedges) => hedges === 0),
    order,
    setPairStart,
    setPairRule: Int32Array.from(setPairRule),
    setPairConclusion: Int32Array.from(setPairConclusion),
    setAggregation,
  };
}

/** The rule conclusion c belongs to. */
function ruleOfConclusion(conclusionStart: Int32Array, c: number): number {
  let r = 0;
  while (conclusionStart[r + 1]! <= c) r++;
  return r;
}

/**
 * The degree of output set `set` in a condition (fuzzylite: Aggregated::activationDegree): the
 * activations the rules concluding it gave it, combined by its output's aggregation, or summed under none.
 */
function outputSetDegree(layout: ActivationLayout, set: number, strengths: Float64Array): number {
  const aggregation = layout.setAggregation[set]!;
  let degree = 0;
  for (let p = layout.setPairStart[set]!; p < layout.setPairStart[set + 1]!; p++) {
    const w = conclusionDegree(layout, strengths, layout.setPairRule[p]!, layout.setPairConclusion[p]!);
    degree = aggregation < 0 ? degree + w : sNorm(aggregation, degree, w);
  }
  return degree;
}

/** The degree of rule r's postfix condition. */
function runPostfix(layout: ActivationLayout, r: number, degrees: Float64Array, stack: Float64Array, strengths: Float64Array): number {
  const { opStart, ops, opArgs, opNorms } = layout;
  let top = 0;
  for (let k = opStart[r]!; k < opStart[r + 1]!; k++) {
    const op = ops[k]!;
    if (op === LOAD) {
      stack[top++] = degrees[opArgs[k]!]!;
    } else if (op === LOAD_OUTPUT) {
      stack[top++] = outputSetDegree(layout, opArgs[k]!, strengths);
    } else if (op === NOT) {
      stack[top - 1] = 1 - stack[top - 1]!;
    } else if (op === HEDGE) {
      stack[top - 1] = hedgeChain(opArgs[k]!, stack[top - 1]!);
    } else if (op === ANY_DEGREE) {
      stack[top - 1] = stack[top - 1]! - stack[top - 1]! + 1;
    } else if (op === AND_NORM || op === OR_NORM) {
      const first = top - opArgs[k]!;
      const norm = opNorms[k]!;
      let value = stack[first]!;
      for (let j = first + 1; j < top; j++) value = op === AND_NORM ? tNorm(norm, value, stack[j]!) : sNorm(norm, value, stack[j]!);
      top = first + 1;
      stack[first] = value;
    } else {
      const first = top - opArgs[k]!;
      let value = stack[first]!;
      for (let j = first + 1; j < top; j++) {
        const operand = stack[j]!;
        if (op === AND_MIN) value = Math.min(value, operand);
        else if (op === AND_PRODUCT) value *= operand;
        else if (op === OR_MAX) value = Math.max(value, operand);
        else value = value + operand - value * operand;
      }
      top = first + 1;
      stack[first] = value;
    }
  }
  return stack[0]!;
}

/** The degree of the flat condition `kind` over literals[from .. to − 1] (each s, or ~s for NOT s). */
export function flatDegree(kind: number, literals: Int32Array, from: number, to: number, degrees: Float64Array): number {
  let code = literals[from]!;
  let degree = code >= 0 ? degrees[code]! : 1 - degrees[~code]!;
  for (let l = from + 1; l < to; l++) {
    code = literals[l]!;
    const value = code >= 0 ? degrees[code]! : 1 - degrees[~code]!;
    if (kind === ALL_OF_MIN) degree = Math.min(degree, value);
    else if (kind === ANY_OF_MAX) degree = Math.max(degree, value);
    else if (kind === ALL_OF_PRODUCT) degree *= value;
    else degree = degree + value - degree * value;
  }
  return degree;
}

/** Rule r's strength: its condition's degree times its weight; 0 when that is below the threshold (or NaN). */
export function ruleStrength(layout: ActivationLayout, r: number, degrees: Float64Array, stack: Float64Array, strengths: Float64Array): number {
  const kind = layout.conditionKind[r]!;
  const degree =
    kind === POSTFIX
      ? runPostfix(layout, r, degrees, stack, strengths)
      : flatDegree(kind, layout.literals, layout.literalStart[r]!, layout.literalStart[r + 1]!, degrees);
  const strength = degree * layout.weights[r]!;
  return strength >= layout.threshold ? strength : 0;
}

/**
 * Writes every rule's strength and every output set's inferred degree. A missing input's NaN
 * survives min, max, product and probabilistic sum alike, so a rule that needs it does not fire.
 */
export function activate(layout: ActivationLayout, degrees: Float64Array, stack: Float64Array, strengths: Float64Array, inferred: Float64Array): void {
  const { conclusionStart, conclusionSets, conclusionHedges, order } = layout;
  for (let s = 0; s < inferred.length; s++) inferred[s] = 0;
  for (let k = 0; k < strengths.length; k++) {
    const r = order === undefined ? k : order[k]!;
    const strength = ruleStrength(layout, r, degrees, stack, strengths);
    if (strength === 0) {
      strengths[r] = 0;
      continue;
    }
    strengths[r] = strength;
    for (let c = conclusionStart[r]!; c < conclusionStart[r + 1]!; c++) {
      const set = conclusionSets[c]!;
      const hedges = conclusionHedges[c]!;
      const degree = hedges === 0 ? strength : hedgeChain(hedges, strength);
      if (degree > inferred[set]!) inferred[set] = degree;
    }
  }
}

/** The (rule, conclusion) pairs concluding output sets firstSet .. firstSet + count − 1, in rule order. */
export function concludingPairs(layout: ActivationLayout, firstSet: number, count: number): { pairRule: Int32Array; pairConclusion: Int32Array } {
  const pairRule: number[] = [];
  const pairConclusion: number[] = [];
  const { conclusionStart, conclusionSets } = layout;
  for (let r = 0; r + 1 < conclusionStart.length; r++) {
    for (let c = conclusionStart[r]!; c < conclusionStart[r + 1]!; c++) {
      if (conclusionSets[c]! >= firstSet && conclusionSets[c]! < firstSet + count) {
        pairRule.push(r);
        pairConclusion.push(c);
      }
    }
  }
  return { pairRule: Int32Array.from(pairRule), pairConclusion: Int32Array.from(pairConclusion) };
}

/** A conclusion's activation: its rule's strength through the conclusion's hedges; 0 when the rule did not fire. */
export function conclusionDegree(layout: ActivationLayout, strengths: Float64Array, rule: number, conclusion: number): number {
  const strength = strengths[rule]!;
  if (strength === 0) return 0;
  const hedges = layout.conclusionHedges[conclusion]!;
  return hedges === 0 ? strength : hedgeChain(hedges, strength);
}
