// Every check made on an agent (docs/ENGINE.md, "Validation"), collecting every problem instead of stopping at
// the first, so that one 400 tells the caller everything to fix.

import { RuleSyntaxError, showValue } from './errors.js';
import { dependencyOrder } from './chain.js';
import { compileFormula, formulaNames, FormulaError } from './formula.js';
import { MAX_CONCLUSIONS, MAX_OUTPUT_SETS, MAX_RULE_LENGTH, MAX_RULES, MAX_SETS, MAX_VARIABLES } from './limits.js';
import { parseRuleWithColumns, type NameColumns } from './parse.js';
import { MONOTONIC_KINDS, SUGENO_KINDS, TERM_KINDS, TERM_PARAMETERS } from './terms.js';
import type { Condition, Operators, RuleAst, SetDefinition, TermDefinition, TermKind, ValidationIssue } from './types.js';
import { variableUniverse } from './variables.js';

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

/** What is wrong with a kind's values (all finite numbers by then), or undefined. */
function termValueProblem(term: Record<string, unknown> & { type: TermKind }): string | undefined {
  const n = term as unknown as Record<string, number>;
  const positive = (...names: string[]) => names.find((name) => !(n[name]! > 0));
  const ordered = (...names: string[]) => names.slice(1).find((name, i) => n[name]! < n[names[i]!]!);
  switch (term.type) {
    case 'triangle':
    case 'trapezoid': {
      const names = TERM_PARAMETERS[term.type] as readonly string[];
      const wrong = ordered(...names);
      return wrong && `${names.join(' ≤ ')} must hold; ${wrong} is below the one before it`;
    }
    case 'rectangle':
      return n.end! < n.start! ? 'start ≤ end must hold' : undefined;
    case 'ramp':
      return n.start === n.end ? 'start and end must differ (the ramp rises from start to end)' : undefined;
    case 'sShape':
    case 'zShape':
      return n.start! < n.end! ? undefined : 'start < end must hold';
    case 'piShape':
      return n.bottomLeft! < n.topLeft! && n.topLeft! <= n.topRight! && n.topRight! < n.bottomRight!
        ? undefined
        : 'bottomLeft < topLeft ≤ topRight < bottomRight must hold';
    case 'gaussian': {
      const wrong = positive('standardDeviation');
      return wrong && 'standardDeviation must be above 0';
    }
    case 'gaussianProduct': {
      const wrong = positive('standardDeviationA', 'standardDeviationB');
      return wrong && `${wrong} must be above 0`;
    }
    case 'bell': {
      const wrong = positive('width', 'slope');
      return wrong && `${wrong} must be above 0`;
    }
    case 'cosine':
    case 'spike':
      return positive('width') && 'width must be above 0';
    case 'concave':
      return n.inflection === n.end ? 'inflection and end must differ' : undefined;
    case 'binary':
      return n.direction === n.start ? 'direction must differ from start (it says which side of start is 1)' : undefined;
    default:
      return undefined;
  }
}

/** Checks one set given as a term object; true when it is valid. */
function checkTerm(
  term: Record<string, unknown>,
  path: string,
  output: boolean,
  inputNames: readonly string[] | undefined,
  outputNames: readonly string[],
  issues: ValidationIssue[],
): boolean {
  const kind = term.type;
  if (typeof kind !== 'string' || !(TERM_KINDS as string[]).includes(kind)) {
    issues.push({
      path,
      message: `a set is an array of 2 (slope), 3 (triangle) or 4 (trapezoid) numbers, or {"type": kind, …}; unknown kind ${showValue(kind)}, kinds: ${TERM_KINDS.join(', ')}`,
    });
    return false;
  }
  const typed = term as Record<string, unknown> & { type: TermKind };
  if (SUGENO_KINDS.has(typed.type) && !output) {
    issues.push({ path, message: `a ${kind} term gives a Takagi–Sugeno output's value; inputs have fuzzy sets` });
    return false;
  }
  const names: string[] = ['type', ...TERM_PARAMETERS[typed.type]];
  if (kind === 'discrete') names.push('points');
  if (kind === 'linear') names.push('coefficients', 'constant');
  if (kind === 'function') names.push('formula');
  if (!SUGENO_KINDS.has(typed.type)) names.push('height');
  const unknown = Object.keys(term).filter((key) => !names.includes(key));
  if (unknown.length > 0) {
    issues.push({ path, message: `a ${kind} term has ${names.join(', ')}; unknown ${unknown.map((key) => `"${key}"`).join(', ')}` });
    return false;
  }
  const missing = (TERM_PARAMETERS[typed.type] as readonly string[]).filter((name) => typeof term[name] !== 'number' || !Number.isFinite(term[name]));
  if (missing.length > 0) {
    issues.push({ path, message: `a ${kind} term needs ${missing.join(', ')} as finite numbers` });
    return false;
  }
  if (term.height !== undefined && !(typeof term.height === 'number' && term.height > 0 && term.height <= 1)) {
    issues.push({ path, message: `height must be a number above 0 and at most 1, got ${showValue(term.height)}` });
    return false;
  }
  if (kind === 'discrete') {
    const points = term.points;
    const valid =
      Array.isArray(points) &&
      points.length >= 2 &&
      points.every((point) => Array.isArray(point) && point.length === 2 && point.every((v) => typeof v === 'number' && Number.isFinite(v)));
    if (!valid) {
      issues.push({ path, message: "a discrete term's points are at least two [x, y] pairs of finite numbers" });
      return false;
    }
    const pairs = points as number[][];
    if (pairs.some(([x], i) => i > 0 && x! < pairs[i - 1]![0]!) || pairs.some(([, y]) => y! < 0 || y! > 1)) {
      issues.push({ path, message: "a discrete term's x must be non-decreasing and every y within 0..1" });
      return false;
    }
  }
  if (kind === 'linear') {
    const { coefficients, constant } = term;
    if (!isRecord(coefficients) || !Object.values(coefficients).every((c) => typeof c === 'number' && Number.isFinite(c))) {
      issues.push({ path, message: "a linear term's coefficients map input name → finite number" });
      return false;
    }
    const strangers = inputNames ? Object.keys(coefficients).filter((name) => !inputNames.includes(name)) : [];
    if (strangers.length > 0) {
      issues.push({
        path,
        message: `a linear term's coefficients name inputs; unknown ${strangers.map((name) => `"${name}"`).join(', ')} (inputs: ${inputNames!.join(', ')})`,
      });
      return false;
    }
    if (constant !== undefined && !(typeof constant === 'number' && Number.isFinite(constant))) {
      issues.push({ path, message: "a linear term's constant is a finite number" });
      return false;
    }
  }
  if (kind === 'function') {
    const { formula } = term;
    if (typeof formula !== 'string') {
      issues.push({ path, message: `a function term's formula is a string such as "2 * x + sin(angle)", got ${showValue(formula)}` });
      return false;
    }
    try {
      compileFormula(formula, formulaNames(inputNames ?? [], outputNames));
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error;
      issues.push({ path, message: `function: ${error.message} in formula ${showValue(formula)}` });
      return false;
    }
  }
  const problem = termValueProblem(typed);
  if (problem) issues.push({ path, message: `${kind}: ${problem}` });
  return problem === undefined;
}

/**
 * What is wrong with one set given as a term object (what a 400 would say of it), or undefined:
 * the same check validateAgent makes, for whoever changes a term's numbers (tuning).
 */
export function termProblem(term: TermDefinition, output: boolean, inputNames?: readonly string[], outputNames: readonly string[] = []): string | undefined {
  const issues: ValidationIssue[] = [];
  return checkTerm(term as unknown as Record<string, unknown>, '', output, inputNames, outputNames, issues)
    ? undefined
    : issues.map((issue) => issue.message).join('; ');
}

/**
 * A variable's range, max − min over all its points, must itself be a finite number: membership
 * divides by distances between points and the centroid is computed relative to the range.
 */
function checkRangeWidth(sets: Record<string, unknown>, singular: string, name: string, path: string, issues: ValidationIssue[]): void {
  const [min, max] = variableUniverse(sets as Record<string, SetDefinition | TermDefinition>);
  // (a variable of linear terms only has no points: nothing to span)
  if (min <= max && !Number.isFinite(max - min)) {
    issues.push({
      path,
      message: `the points of ${singular} "${name}" span from ${min} to ${max}, a width beyond the largest number (about 1.8e+308); bring them closer together`,
    });
  }
}

/** Checks inputs or outputs; returns them for checking rules against, or undefined when they are not even an object. */
function checkVariables(
  value: unknown,
  kind: 'inputs' | 'outputs',
  issues: ValidationIssue[],
  declared: Record<string, unknown>,
  inputNames?: readonly string[],
): Variables | undefined {
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
    // a variable without sets is still a variable when its universe is declared (fuzzylite's MATLAB
    // imports have inputs that no rule reads); without one it has nothing to be
    if (setNames.length === 0 && !Object.hasOwn(declared, name)) issues.push({ path, message: `${singular} "${name}" needs at least one set` });
    if (setNames.length > MAX_SETS) {
      issues.push({ path, message: `${singular} "${name}" has ${setNames.length} sets; a variable has at most ${MAX_SETS}` });
      continue;
    }
    let valid = setNames.length > 0;
    for (const setName of setNames) {
      if (setName === '') issues.push({ path: `${path}.`, message: 'set names must not be empty' });
      const set = sets[setName];
      const setValid = isRecord(set)
        ? checkTerm(set, `${path}.${setName}`, kind === 'outputs', inputNames, kind === 'outputs' ? names : [], issues)
        : checkPoints(set, `${path}.${setName}`, issues);
      if (!setValid) valid = false;
    }
    if (valid) checkRangeWidth(sets, singular, name, path, issues);
  }
  return usable;
}

function known(variables: object): string {
  const names = Object.keys(variables);
  return names.length ? names.join(', ') : 'none';
}

/** The set name a condition uses for fuzzylite's hedge any: `x IS any`. */
export const ANY = 'any';

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
  anyAllowed: boolean,
): { problem: string; onSet: boolean } | undefined {
  if (!own) return undefined;
  if (!Object.hasOwn(own, variable)) {
    const problem =
      other && Object.hasOwn(other, variable)
        ? `${showValue(variable)} is ${ROLES[role].other}; ${ROLES[role].place} needs an ${role} (${role}s: ${known(own)})`
        : `unknown ${role} ${showValue(variable)} (known ${role}s: ${known(own)})`;
    return { problem, onSet: false };
  }
  const sets = own[variable];
  // `x IS any` is the hedge any, unless x has a set of that name
  if (sets && set !== undefined && !Object.hasOwn(sets, set) && !(anyAllowed && set === ANY)) {
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
  const check = (
    role: 'input' | 'output',
    variable: string,
    set: string | undefined,
    [variableColumn, setColumn]: readonly [number, number],
    anyAllowed = false,
  ) => {
    const found = referenceProblem(role, variable, set, role === 'input' ? inputs : outputs, role === 'input' ? outputs : inputs, anyAllowed);
    if (found) problems.push(`column ${found.onSet ? setColumn : variableColumn}: ${found.problem}`);
  };
  if (ast.type === 'if') {
    for (const is of conditionReferences(ast.condition)) {
      // a condition may name an output (chained): the degree its rules gave the set
      const chained = inputs && outputs && !Object.hasOwn(inputs, is.variable) && Object.hasOwn(outputs, is.variable);
      check(chained ? 'output' : 'input', is.variable, is.set, columns.get(is)!, true);
    }
    for (const conclusion of ast.conclusions) check('output', conclusion.variable, conclusion.set, columns.get(conclusion)!);
  } else {
    const [inputColumn, outputColumn] = columns.get(ast)!;
    check('input', ast.input, undefined, [inputColumn, inputColumn]);
    check('output', ast.output, undefined, [outputColumn, outputColumn]);
    // a variable may have no sets (its range declared), and then there is nothing to pair
    const setless = (role: 'input' | 'output', variable: string, column: number, own?: Variables) => {
      const sets = own && Object.hasOwn(own, variable) ? own[variable] : undefined;
      if (sets && Object.keys(sets).length === 0)
        problems.push(`column ${column}: ${ast.type.toUpperCase()} pairs the sets of an input with those of an output, and ${role} "${variable}" has none`);
    };
    setless('input', ast.input, inputColumn, inputs);
    setless('output', ast.output, outputColumn, outputs);
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
  inputs: Record<string, Record<string, SetDefinition | TermDefinition>>;
  outputs: Record<string, Record<string, SetDefinition | TermDefinition>>;
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

const CHOSEN_PER_OUTPUT = ['implication', 'aggregation', 'defuzzification'] as const;
const INTEGRAL_DEFUZZIFICATIONS: ReadonlySet<string> = new Set(['centroid', 'bisector', 'meanOfMaximum', 'smallestOfMaximum', 'largestOfMaximum']);

function checkChoice(key: keyof typeof OPERATOR_CHOICES, given: unknown, path: string, issues: ValidationIssue[]): void {
  const choices: readonly string[] = OPERATOR_CHOICES[key];
  if (!choices.includes(given as string)) issues.push({ path, message: `${key} is ${choices.map((c) => `"${c}"`).join(' or ')}, got ${showValue(given)}` });
}

/** Checks the optional operators: known keys, each with a value it may take, ranges and outputs naming variables there are. */
function checkOperators(value: unknown, issues: ValidationIssue[], inputs?: Variables, outputs?: Variables): void {
  if (value === undefined) return;
  if (!isRecord(value)) {
    issues.push({ path: 'operators', message: `must be an object such as {"and": "product"}, got ${showValue(value)}` });
    return;
  }
  for (const [key, given] of Object.entries(value)) {
    const path = `operators.${key}`;
    if (Object.hasOwn(OPERATOR_CHOICES, key)) {
      checkChoice(key as keyof typeof OPERATOR_CHOICES, given, path, issues);
    } else if (key === 'activationThreshold') {
      if (!(typeof given === 'number' && given >= 0 && given <= 1))
        issues.push({ path, message: `activationThreshold is a number from 0 to 1, got ${showValue(given)}` });
    } else if (key === 'ranges') {
      checkRanges(given, path, issues, inputs, outputs);
    } else if (key === 'outputs') {
      checkOutputOperators(given, path, issues, outputs);
    } else {
      issues.push({
        path,
        message: `unknown operator ${showValue(key)}: an agent chooses "and", "or", "implication", "aggregation", "defuzzification", "activationThreshold", "ranges" and "outputs"`,
      });
    }
  }
}

/** Whether every set of a variable is a constant or linear term (nothing with a shape over the range). */
function onlyWeightedTerms(sets: Record<string, unknown> | undefined): boolean {
  const all = sets ? Object.values(sets) : [];
  return all.length > 0 && all.every((set) => isRecord(set) && SUGENO_KINDS.has(set.type as TermKind));
}

function checkRanges(given: unknown, path: string, issues: ValidationIssue[], inputs?: Variables, outputs?: Variables): void {
  if (!isRecord(given)) {
    issues.push({ path, message: `ranges map variable name → [min, max], got ${showValue(given)}` });
    return;
  }
  for (const [name, range] of Object.entries(given)) {
    const known = (inputs && Object.hasOwn(inputs, name)) || (outputs && Object.hasOwn(outputs, name));
    if (!known) issues.push({ path: `${path}.${name}`, message: `unknown variable ${showValue(name)}: ranges name inputs and outputs` });
    // an output of constant and linear terms only is weighed, never integrated over its range, so
    // its range may be a single point (MATLAB writes 0 0 for one: juggler)
    const pointRange = outputs !== undefined && Object.hasOwn(outputs, name) && onlyWeightedTerms(outputs[name]);
    const valid =
      Array.isArray(range) &&
      range.length === 2 &&
      range.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
      (range[0] < range[1] || (pointRange && range[0] === range[1])) &&
      Number.isFinite(range[1] - range[0]);
    if (!valid) issues.push({ path: `${path}.${name}`, message: `a range is [min, max], finite numbers with min < max, got ${showValue(range)}` });
  }
}

function checkOutputOperators(given: unknown, path: string, issues: ValidationIssue[], outputs?: Variables): void {
  if (!isRecord(given)) {
    issues.push({ path, message: `operators.outputs maps output name → its own operators, got ${showValue(given)}` });
    return;
  }
  for (const [name, chosen] of Object.entries(given)) {
    const at = `${path}.${name}`;
    if (outputs && !Object.hasOwn(outputs, name)) issues.push({ path: at, message: `unknown output ${showValue(name)} (outputs: ${known(outputs)})` });
    if (!isRecord(chosen)) {
      issues.push({ path: at, message: `an output's operators are an object such as {"defuzzification": "weightedAverage"}, got ${showValue(chosen)}` });
      continue;
    }
    for (const [key, value] of Object.entries(chosen)) {
      if ((CHOSEN_PER_OUTPUT as readonly string[]).includes(key)) checkChoice(key as (typeof CHOSEN_PER_OUTPUT)[number], value, `${at}.${key}`, issues);
      else if (key === 'default') {
        if (!(value === null || (typeof value === 'number' && Number.isFinite(value))))
          issues.push({ path: `${at}.default`, message: `default is a finite number or null, got ${showValue(value)}` });
      } else
        issues.push({
          path: `${at}.${key}`,
          message: `unknown setting ${showValue(key)}: an output chooses "implication", "aggregation", "defuzzification" and "default"`,
        });
    }
  }
}

/** The kinds of an output's sets: arrays count as triangles (piecewise linear). */
function kindsOf(sets: Record<string, unknown>): TermKind[] {
  return Object.values(sets).map((set) => (isRecord(set) ? (set.type as TermKind) : 'triangle'));
}

/** Each output's terms fit how it is defuzzified; an output integrated over its universe has one that ends. */
function checkOutputMethods(outputs: Variables, operators: Operators | undefined, issues: ValidationIssue[]): void {
  for (const [name, sets] of Object.entries(outputs)) {
    if (!sets) continue;
    const kinds = kindsOf(sets);
    const own = operators?.outputs?.[name];
    const sugeno = kinds.some((kind) => SUGENO_KINDS.has(kind));
    const defuzzification = own?.defuzzification ?? operators?.defuzzification ?? (sugeno ? 'weightedAverage' : 'centroid');
    const aggregation = own?.aggregation ?? operators?.aggregation;
    const path = `outputs.${name}`;
    if (INTEGRAL_DEFUZZIFICATIONS.has(defuzzification)) {
      if (sugeno)
        issues.push({
          path,
          message: `output "${name}" has constant or linear terms, which a ${defuzzification} cannot integrate: use "weightedAverage" or "weightedSum"`,
        });
      if (aggregation === 'none')
        issues.push({
          path,
          message: `output "${name}": aggregation "none" is for weightedAverage and weightedSum; ${defuzzification} integrates one aggregated set`,
        });
      const curved = kinds.some((kind) => !['triangle', 'trapezoid', 'rectangle', 'discrete'].includes(kind));
      const declared = operators?.ranges && Object.hasOwn(operators.ranges, name);
      if (curved && !declared)
        issues.push({
          path,
          message: `output "${name}" has terms without an end (${kinds.filter((k) => !['triangle', 'trapezoid', 'rectangle', 'discrete'].includes(k)).join(', ')}): declare its universe in operators.ranges`,
        });
    } else {
      const unweighable = [...new Set(kinds.filter((kind) => !SUGENO_KINDS.has(kind) && !MONOTONIC_KINDS.has(kind)))];
      if (unweighable.length > 0) {
        issues.push({
          path,
          message: `output "${name}" is defuzzified by ${defuzzification}, which weighs constant, linear and monotonic terms (ramp, sigmoid, sShape, zShape, concave); not ${unweighable.join(', ')}`,
        });
      }
    }
  }
}

/** Checks a whole agent definition; returns it typed, or every issue found. */
export function validateAgent(definition: unknown): { agent: ValidatedAgent; issues: [] } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (!isRecord(definition)) {
    return { issues: [{ path: '', message: `an agent must be an object with inputs, outputs and rules, got ${showValue(definition)}` }] };
  }
  const declared = isRecord(definition.operators) && isRecord(definition.operators.ranges) ? definition.operators.ranges : {};
  const inputs = checkVariables(definition.inputs, 'inputs', issues, declared);
  const outputs = checkVariables(definition.outputs, 'outputs', issues, declared, inputs && Object.keys(inputs));
  // (a variable over MAX_SETS is reported on its own)
  const setCounts = outputs ? Object.values(outputs).map((sets) => (sets ? Object.keys(sets).length : 0)) : [];
  const outputSets = setCounts.reduce((sum, count) => sum + count, 0);
  if (outputSets > MAX_OUTPUT_SETS && setCounts.every((count) => count <= MAX_SETS)) {
    issues.push({ path: 'outputs', message: `an agent has at most ${MAX_OUTPUT_SETS} output sets in all, got ${outputSets}` });
  }
  checkOperators(definition.operators, issues, inputs, outputs);
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
  if (issues.length === 0 && outputs) checkOutputMethods(outputs, definition.operators as Operators | undefined, issues);
  if (issues.length === 0 && inputs && outputs) {
    const order = dependencyOrder(parsedRules, inputs as Record<string, Record<string, unknown>>, outputs as Record<string, Record<string, unknown>>);
    if ('cycle' in order) issues.push(order.cycle);
  }
  if (issues.length > 0) return { issues };
  // no issues: every part has the shape checked above
  const operators = definition.operators as Operators | undefined;
  return { agent: { inputs, outputs, rules, parsedRules, ...(operators && { operators }) } as ValidatedAgent, issues: [] };
}
