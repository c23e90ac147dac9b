// Every check SPEC section 1 and 3 make on an agent, collecting every problem instead of stopping at
// the first, so that one 400 tells the caller everything to fix.

import { RuleSyntaxError, showValue } from './errors.js';
import { MAX_CONCLUSIONS, MAX_OUTPUT_SETS, MAX_RULE_LENGTH, MAX_RULES, MAX_SETS, MAX_VARIABLES } from './limits.js';
import { parseRuleWithColumns, type NameColumns } from './parse.js';
import type { Condition, Operators, RuleAst, ValidationIssue } from './types.js';

/** Variables as far as they are usable for checking rules: a variable whose sets are broken maps to undefined. */
type Variables = Record<string, Record<string, unknown> | undefined>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one set's points; true when they are valid. */
function checkPoints(points: unknown, path: string, issues: ValidationIssue[]): points is number[] {
  if (!Array.isArray(points) || points.length < 2 || points.length > 4) {
    const got = Array.isArray(points) ? `${points.length} points` : showValue(points);
    issues.push({ path, message: `a set needs 2, 3 or 4 numbers (slope, triangle, trapezoid), got ${got}` });
    return false;
  }
  const shown = `[${points.map(showValue).join(', ')}]`;
  if (!points.every((p) => typeof p === 'number' && Number.isFinite(p))) {
    issues.push({ path, message: `points must be finite numbers: ${shown}` });
    return false;
  }
  if (points.some((p, i) => i > 0 && p < points[i - 1])) {
    issues.push({ path, message: `points must be in non-decreasing order: ${shown}` });
    return false;
  }
  return true;
}

/**
 * A variable's range, max − min over all its points, must itself be a finite number: membership
 * divides by distances between points and the centroid is computed relative to the range.
 */
function checkRangeWidth(sets: Record<string, unknown>, singular: string, name: string, path: string, issues: ValidationIssue[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const points of Object.values(sets) as number[][]) {
    min = Math.min(min, points[0]!);
    max = Math.max(max, points[points.length - 1]!);
  }
  if (!Number.isFinite(max - min)) {
    issues.push({
      path,
      message: `the points of ${singular} "${name}" span from ${min} to ${max}, a width beyond the largest number (about 1.8e+308); bring them closer together`,
    });
  }
}

/** Checks inputs or outputs; returns them for checking rules against, or undefined when they are not even an object. */
function checkVariables(value: unknown, kind: 'inputs' | 'outputs', issues: ValidationIssue[]): Variables | undefined {
  const singular = kind === 'inputs' ? 'input' : 'output';
  if (!isRecord(value)) {
    issues.push({ path: kind, message: `must be an object mapping each ${singular} name to its sets, got ${showValue(value)}` });
    return undefined;
  }
  const names = Object.keys(value);
  if (names.length === 0) issues.push({ path: kind, message: `an agent needs at least one ${singular}` });
  if (names.length > MAX_VARIABLES) {
    issues.push({ path: kind, message: `an agent has at most ${MAX_VARIABLES} ${kind}, got ${names.length}` });
    return undefined;
  }
  const usable: Variables = {};
  for (const name of names) {
    const sets = value[name];
    const path = `${kind}.${name}`;
    if (name === '') issues.push({ path, message: `${singular} names must not be empty` });
    Object.defineProperty(usable, name, { value: isRecord(sets) ? sets : undefined, enumerable: true });
    if (!isRecord(sets)) {
      issues.push({ path, message: `must be an object mapping each set name to its points, got ${showValue(sets)}` });
      continue;
    }
    const setNames = Object.keys(sets);
    if (setNames.length === 0) issues.push({ path, message: `${singular} "${name}" needs at least one set` });
    if (setNames.length > MAX_SETS) {
      issues.push({ path, message: `${singular} "${name}" has ${setNames.length} sets; a variable has at most ${MAX_SETS}` });
      continue;
    }
    let valid = setNames.length > 0;
    for (const setName of setNames) {
      if (setName === '') issues.push({ path: `${path}.`, message: 'set names must not be empty' });
      if (!checkPoints(sets[setName], `${path}.${setName}`, issues)) valid = false;
    }
    if (valid) checkRangeWidth(sets, singular, name, path, issues);
  }
  return usable;
}

function known(variables: object): string {
  const names = Object.keys(variables);
  return names.length ? names.join(', ') : 'none';
}

const ROLES = {
  input: { place: 'a condition', other: 'an output' },
  output: { place: 'a conclusion', other: 'an input' },
} as const;

/**
 * What is wrong with one reference to a variable (and a set of it), or undefined when nothing is or
 * when the variables it refers to are too broken to tell (that is reported on its own).
 */
function referenceProblem(
  role: 'input' | 'output',
  variable: string,
  set: string | undefined,
  own: Variables | undefined,
  other: Variables | undefined,
): { problem: string; onSet: boolean } | undefined {
  if (!own) return undefined;
  if (!Object.hasOwn(own, variable)) {
    const problem = other && Object.hasOwn(other, variable)
      ? `${showValue(variable)} is ${ROLES[role].other}; ${ROLES[role].place} needs an ${role} (${role}s: ${known(own)})`
      : `unknown ${role} ${showValue(variable)} (known ${role}s: ${known(own)})`;
    return { problem, onSet: false };
  }
  const sets = own[variable];
  if (sets && set !== undefined && !Object.hasOwn(sets, set)) {
    return { problem: `unknown set ${showValue(set)} for ${role} ${showValue(variable)} (known: ${known(sets)})`, onSet: true };
  }
  return undefined;
}

function conditionReferences(condition: Condition): Array<Extract<Condition, { type: 'is' }>> {
  if (condition.type === 'is') return [condition];
  if (condition.type === 'not') return conditionReferences(condition.operand);
  return condition.operands.flatMap(conditionReferences);
}

/** Every unknown name in a rule, each with the column where it was written. */
function ruleProblems(ast: RuleAst, columns: NameColumns, inputs?: Variables, outputs?: Variables): string[] {
  const problems: string[] = [];
  const check = (role: 'input' | 'output', variable: string, set: string | undefined, [variableColumn, setColumn]: readonly [number, number]) => {
    const found = referenceProblem(role, variable, set, role === 'input' ? inputs : outputs, role === 'input' ? outputs : inputs);
    if (found) problems.push(`column ${found.onSet ? setColumn : variableColumn}: ${found.problem}`);
  };
  if (ast.type === 'if') {
    for (const is of conditionReferences(ast.condition)) check('input', is.variable, is.set, columns.get(is)!);
    for (const conclusion of ast.conclusions) check('output', conclusion.variable, conclusion.set, columns.get(conclusion)!);
  } else {
    const [inputColumn, outputColumn] = columns.get(ast)!;
    check('input', ast.input, undefined, [inputColumn, inputColumn]);
    check('output', ast.output, undefined, [outputColumn, outputColumn]);
  }
  return problems;
}

function checkRule(rule: unknown, path: string, parsedRules: RuleAst[], issues: ValidationIssue[], inputs?: Variables, outputs?: Variables): void {
  if (typeof rule !== 'string') {
    issues.push({ path, message: `a rule must be a string, got ${showValue(rule)}` });
    return;
  }
  if (rule.length > MAX_RULE_LENGTH) {
    issues.push({ path, message: `a rule has at most ${MAX_RULE_LENGTH} characters, got ${rule.length}` });
    return;
  }
  try {
    const { ast, columns } = parseRuleWithColumns(rule);
    parsedRules.push(ast);
    if (ast.type === 'if' && ast.conclusions.length > MAX_CONCLUSIONS) {
      issues.push({ path, message: `a rule has at most ${MAX_CONCLUSIONS} conclusions, got ${ast.conclusions.length} in rule ${showValue(rule)}` });
    }
    for (const problem of ruleProblems(ast, columns, inputs, outputs)) issues.push({ path, message: `${problem} in rule ${showValue(rule)}` });
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    issues.push({ path, message: `${error.message} in rule ${showValue(rule)}` });
  }
}

/** How many IF rules the rules stand for once INCREASES/DECREASES are expanded (one per set of the input). */
function expandedCount(parsedRules: readonly RuleAst[], inputs?: Variables): number {
  let count = 0;
  for (const ast of parsedRules) {
    const sets = ast.type === 'if' ? undefined : inputs && Object.hasOwn(inputs, ast.input) ? inputs[ast.input] : undefined;
    count += sets ? Object.keys(sets).length : 1;
  }
  return count;
}

export interface ValidatedAgent {
  inputs: Record<string, Record<string, readonly number[]>>;
  outputs: Record<string, Record<string, readonly number[]>>;
  rules: string[];
  parsedRules: RuleAst[];
  operators?: Operators;
}

const T_NORMS = ['min', 'product', 'boundedDifference', 'drasticProduct', 'einsteinProduct', 'hamacherProduct', 'nilpotentMinimum'] as const;
const S_NORMS = ['max', 'probabilisticSum', 'boundedSum', 'normalizedSum', 'drasticSum', 'einsteinSum', 'hamacherSum', 'nilpotentMaximum'] as const;

/** Each operator an agent may choose, and the values it may take (the first is the default). */
export const OPERATOR_CHOICES = {
  and: T_NORMS,
  or: S_NORMS,
  implication: T_NORMS,
  aggregation: [...S_NORMS, 'none'],
  defuzzification: ['centroid', 'bisector', 'meanOfMaximum', 'smallestOfMaximum', 'largestOfMaximum', 'weightedAverage', 'weightedSum'],
} as const;

/** Checks the optional operators: an object whose known keys take one of their values. */
function checkOperators(value: unknown, issues: ValidationIssue[]): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    issues.push({ path: 'operators', message: `must be an object such as {"and": "product"}, got ${showValue(value)}` });
    return;
  }
  for (const [key, given] of Object.entries(value)) {
    const choices: readonly string[] | undefined = Object.hasOwn(OPERATOR_CHOICES, key) ? OPERATOR_CHOICES[key as keyof Operators] : undefined;
    if (!choices) {
      issues.push({ path: `operators.${key}`, message: `unknown operator ${showValue(key)}: an agent chooses "and", "or" and "implication"` });
    } else if (!choices.includes(given as string)) {
      issues.push({ path: `operators.${key}`, message: `${key} is ${choices.map((c) => `"${c}"`).join(' or ')}, got ${showValue(given)}` });
    }
  }
}

/** Checks a whole agent definition; returns it typed, or every issue found. */
export function validateAgent(definition: unknown): { agent: ValidatedAgent; issues: [] } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (!isRecord(definition)) {
    return { issues: [{ path: '', message: `an agent must be an object with inputs, outputs and rules, got ${showValue(definition)}` }] };
  }
  const inputs = checkVariables(definition.inputs, 'inputs', issues);
  const outputs = checkVariables(definition.outputs, 'outputs', issues);
  // (a variable over MAX_SETS is reported on its own)
  const setCounts = outputs ? Object.values(outputs).map((sets) => (sets ? Object.keys(sets).length : 0)) : [];
  const outputSets = setCounts.reduce((sum, count) => sum + count, 0);
  if (outputSets > MAX_OUTPUT_SETS && setCounts.every((count) => count <= MAX_SETS)) {
    issues.push({ path: 'outputs', message: `an agent has at most ${MAX_OUTPUT_SETS} output sets in all, got ${outputSets}` });
  }
  checkOperators(definition.operators, issues);
  const rules = definition.rules;
  const parsedRules: RuleAst[] = [];
  if (!Array.isArray(rules)) {
    issues.push({ path: 'rules', message: `must be an array of rule strings, got ${showValue(rules)}` });
  } else {
    if (rules.length === 0) issues.push({ path: 'rules', message: 'an agent needs at least one rule' });
    if (rules.length > MAX_RULES) {
      issues.push({ path: 'rules', message: `an agent has at most ${MAX_RULES} rules, got ${rules.length}` });
    } else {
      rules.forEach((rule: unknown, i) => checkRule(rule, `rules[${i}]`, parsedRules, issues, inputs, outputs));
      const expanded = expandedCount(parsedRules, inputs);
      if (parsedRules.length === rules.length && expanded > MAX_RULES) {
        issues.push({
          path: 'rules',
          message: `an agent has at most ${MAX_RULES} rules, counting INCREASES/DECREASES as one rule per set of its input; these make ${expanded}`,
        });
      }
    }
  }
  if (issues.length > 0) return { issues };
  // no issues: every part has the shape checked above
  const operators = definition.operators as Operators | undefined;
  return { agent: { inputs, outputs, rules, parsedRules, ...(operators && { operators }) } as ValidatedAgent, issues: [] };
}
