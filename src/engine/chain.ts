// Outputs that depend on other outputs (docs/ENGINE.md, "Chained outputs"): a condition on an output
// (`IF power IS low THEN …`, fuzzylite's chained rule blocks) reads the degree the rules concluding
// that output gave its set, so those rules run first; a function term's formula may read other
// outputs' crisp values, so those are defuzzified first. An output that depends on itself, through
// any chain of conditions and formulas, is refused. Agents with neither keep their rule and output
// order untouched.

import { compileFormula, formulaNames } from './formula.js';
import type { Condition, RuleAst, SetDefinition, TermDefinition, ValidationIssue } from './types.js';

type Variables = Readonly<Record<string, Readonly<Record<string, SetDefinition | TermDefinition | unknown>>>>;

/** The variables a condition names that are outputs and not inputs (an input of the same name is meant first). */
export function chainedVariables(condition: Condition, inputs: object, outputs: object): string[] {
  switch (condition.type) {
    case 'is':
      return !Object.hasOwn(inputs, condition.variable) && Object.hasOwn(outputs, condition.variable) ? [condition.variable] : [];
    case 'not':
      return chainedVariables(condition.operand, inputs, outputs);
    default:
      return condition.operands.flatMap((operand) => chainedVariables(operand, inputs, outputs));
  }
}

export interface DependencyOrder {
  /** the order rules run in, when some condition names an output: every rule concluding an output before those reading it */
  readonly ruleOrder?: Int32Array;
  /** the order outputs are defuzzified in, when some formula reads an output: the outputs it reads first */
  readonly outputOrder?: Int32Array;
}

/**
 * The orders evaluation needs, or the issue naming an output that depends on itself (at the rule or
 * term that closes the circle). `rules` are IF rules (INCREASES/DECREASES name inputs only).
 */
export function dependencyOrder(rules: readonly RuleAst[], inputs: Variables, outputs: Variables): DependencyOrder | { cycle: ValidationIssue } {
  const outputNames = Object.keys(outputs);
  const place = new Map(outputNames.map((name, o) => [name, o]));
  const needs = outputNames.map((): Array<{ output: number; path: string }> => []);
  const names = formulaNames(Object.keys(inputs), outputNames);
  const chainedRules: number[][] = rules.map((rule, r) => {
    if (rule.type !== 'if') return [];
    const read = [...new Set(chainedVariables(rule.condition, inputs, outputs))].map((name) => place.get(name)!);
    for (const { variable } of rule.conclusions) for (const output of read) needs[place.get(variable)!]!.push({ output, path: `rules[${r}]` });
    return read;
  });
  let formulasRead = false;
  outputNames.forEach((name, o) => {
    for (const [set, term] of Object.entries(outputs[name]!)) {
      const definition = term as TermDefinition;
      if (Array.isArray(term) || definition.type !== 'function') continue;
      for (const output of compileFormula(definition.formula, names).outputs) {
        needs[o]!.push({ output, path: `outputs.${name}.${set}` });
        formulasRead = true;
      }
    }
  });
  // depth-first, dependencies first; outputs are at most MAX_VARIABLES, so recursion stays shallow
  const state = new Int8Array(outputNames.length);
  const order: number[] = [];
  const trail: number[] = [];
  let cycle: ValidationIssue | undefined;
  const visit = (o: number): void => {
    state[o] = 1;
    trail.push(o);
    for (const { output, path } of needs[o]!) {
      if (cycle) return;
      if (state[output] === 1) {
        const circle = [...trail.slice(trail.indexOf(output)), output].map((k) => outputNames[k]!);
        cycle = {
          path,
          message: `output ${JSON.stringify(outputNames[output])} depends on itself (${circle.join(' → ')}): a condition on an output is read after every rule concluding it, and a formula after the outputs it reads`,
        };
        return;
      }
      if (state[output] === 0) visit(output);
    }
    trail.pop();
    state[o] = 2;
    order.push(o);
  };
  for (let o = 0; o < outputNames.length && !cycle; o++) if (state[o] === 0) visit(o);
  if (cycle) return { cycle };

  const result: { ruleOrder?: Int32Array; outputOrder?: Int32Array } = {};
  if (formulasRead) result.outputOrder = Int32Array.from(order);
  if (chainedRules.some((read) => read.length > 0)) {
    // a rule's level: 0 without conditions on outputs, else one above the highest rule concluding what it reads
    const ruleLevel = new Int32Array(rules.length).fill(-1);
    const outputLevel = new Int32Array(outputNames.length);
    const concluding = outputNames.map((): number[] => []);
    rules.forEach((rule, r) => {
      if (rule.type === 'if') for (const { variable } of rule.conclusions) concluding[place.get(variable)!]!.push(r);
      else ruleLevel[r] = 0;
    });
    for (const o of order) {
      for (const r of concluding[o]!) {
        if (ruleLevel[r] === -1) ruleLevel[r] = chainedRules[r]!.reduce((level, read) => Math.max(level, outputLevel[read]! + 1), 0);
        outputLevel[o] = Math.max(outputLevel[o]!, ruleLevel[r]!);
      }
    }
    result.ruleOrder = Int32Array.from(rules.keys()).sort((p, q) => ruleLevel[p]! - ruleLevel[q]! || p - q);
  }
  return result;
}
