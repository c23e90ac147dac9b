// What the three model-file formats share: the error naming a line and a construct, terms as files
// write them (triangles, trapezoids, ramps, IEC points) turned into fuzzbox's sets, rules in
// fuzzylite's and IEC 61131-7's syntax turned into fuzzbox's, and the checks a writer makes.

import { AgentValidationError, compileAgent, parseRule, printRule, RuleSyntaxError } from '../engine/index.js';
import { isFallingShoulder } from '../engine/shape.js';
import type { AgentDefinition, Condition, IfRule, Operators, SetDefinition, TermDefinition, VariableDefinition } from '../engine/types.js';

/** A model file fuzzbox cannot read (or an agent it cannot write in a format): `line` is 1-based, 0 for the whole file. */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  readonly line: number;
  readonly construct: string;

  constructor(line: number, construct: string, message: string) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.line = line;
    this.construct = construct;
  }
}

/** An agent as a model file holds it: its name (the file's block name) and its definition. */
export interface Model {
  readonly name: string;
  readonly definition: AgentDefinition;
}

/** A term as a file gives it: straight points (triangle, trapezoid), or a ramp, 0 at `from` and 1 at `to`, saturating. */
export type Term =
  | { readonly name: string; readonly line: number; readonly kind: 'points'; readonly points: readonly number[] }
  | { readonly name: string; readonly line: number; readonly kind: 'ramp'; readonly from: number; readonly to: number };

export interface Variable {
  name: string;
  readonly line: number;
  /** the declared range, when the file gives one */
  range?: [number, number];
  readonly terms: Term[];
}

/** A number as the formats write it; NaN for anything else. */
export function number(text: string | undefined): number {
  if (text === undefined || !/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return NaN;
  return Number(text);
}

export function numbers(texts: readonly string[], line: number, what: string): number[] {
  return texts.map((text) => {
    const value = number(text);
    if (!Number.isFinite(value)) throw new FormatError(line, what, `expected a number in ${what}, got ${JSON.stringify(text)}`);
    return value;
  });
}

/**
 * An IEC 61131-7 point list `(x, y) …` as a term: the degree is linear between points and constant
 * beyond the ends, so runs of equal degree at either end add nothing; what is left must rise from 0
 * to 1 and fall back (triangle, trapezoid) or rise or fall once (a ramp, saturating).
 */
export function pointsTerm(name: string, line: number, points: ReadonlyArray<readonly [number, number]>): Term {
  const bad = points.find(([, y]) => y !== 0 && y !== 1);
  if (bad) throw new FormatError(line, 'point degree', `term "${name}" has a point of degree ${bad[1]}; fuzzbox's sets have corners at degrees 0 and 1 only`);
  let first = 0;
  let last = points.length - 1;
  while (first < last && points[first]![1] === points[first + 1]![1]) first++;
  while (last > first && points[last]![1] === points[last - 1]![1]) last--;
  const kept = points.slice(first, last + 1);
  const xs = kept.map(([x]) => x);
  const ys = kept.map(([, y]) => y).join('');
  if (ys === '01') return { name, line, kind: 'ramp', from: xs[0]!, to: xs[1]! };
  if (ys === '10') return { name, line, kind: 'ramp', from: xs[1]!, to: xs[0]! };
  if (ys === '010' || ys === '0110') return { name, line, kind: 'points', points: xs };
  throw new FormatError(line, 'point list', `term "${name}": points of degrees ${ys.split('').join(', ')} are not a triangle, trapezoid or shoulder`);
}

/**
 * The sets of one variable. A ramp becomes a shoulder [low, high] when fuzzbox's rule gives a
 * shoulder there the same direction (SPEC 4.1: by its midpoint against the range's) and, for an
 * output, when its flat side reaches the edge of the declared range, so that its shape is the one
 * the file's tool integrates; otherwise a trapezoid out to that edge, the same function within the range.
 */
export function resolveSets(variable: Variable, output: boolean): VariableDefinition {
  let low = Infinity;
  let high = -Infinity;
  for (const term of variable.terms) {
    for (const x of term.kind === 'ramp' ? [term.from, term.to] : term.points) {
      low = Math.min(low, x);
      high = Math.max(high, x);
    }
  }
  if (output && variable.range && (variable.range[0] > low || variable.range[1] < high)) {
    throw new FormatError(
      variable.line,
      'range narrower than its terms',
      `output "${variable.name}" has range ${variable.range[0]} .. ${variable.range[1]}, narrower than its terms (${low} .. ${high}); fuzzbox integrates over the whole of its sets`,
    );
  }
  const edge: [number, number] = variable.range ? [Math.min(low, variable.range[0]), Math.max(high, variable.range[1])] : [low, high];
  const sets = new Map<string, SetDefinition>();
  const widened = new Set<string>();
  const shoulder = (term: Term & { kind: 'ramp' }) => [Math.min(term.from, term.to), Math.max(term.from, term.to)];
  for (;;) {
    for (const term of variable.terms) {
      if (term.kind === 'points') sets.set(term.name, term.points);
      else if (widened.has(term.name)) sets.set(term.name, term.to > term.from ? [term.from, term.to, edge[1], edge[1]] : [edge[0], edge[0], term.to, term.from]);
      else sets.set(term.name, shoulder(term));
    }
    let min = Infinity;
    let max = -Infinity;
    for (const points of sets.values()) for (const x of points) (min = Math.min(min, x)), (max = Math.max(max, x));
    const wrong = variable.terms.find((term) => {
      if (term.kind !== 'ramp' || widened.has(term.name)) return false;
      // a ramp of zero width has no direction of its own: it is the shoulder fuzzbox's rule makes there
      const falls = term.to === term.from ? isFallingShoulder(shoulder(term), [min, max]) : term.to < term.from;
      if (isFallingShoulder(shoulder(term), [min, max]) !== falls) return true;
      return output && (falls ? min !== edge[0] : max !== edge[1]);
    });
    if (!wrong) break;
    widened.add(wrong.name);
  }
  const names = new Set<string>();
  for (const term of variable.terms) {
    if (names.has(term.name)) throw new FormatError(term.line, 'duplicate term', `term "${term.name}" is defined twice in "${variable.name}"`);
    names.add(term.name);
  }
  return Object.fromEntries(variable.terms.map((term) => [term.name, sets.get(term.name)!]));
}

const HEDGES = new Set(['any', 'extremely', 'seldom', 'somewhat', 'very']);

/**
 * A rule in fuzzylite's or IEC 61131-7's syntax (`if a is x and b is not y then c is z and d is w
 * with 0.5`) as fuzzbox's canonical rule text: keywords in any case, conclusions joined by `and`
 * or `,`, AND binding tighter than OR. Hedges are refused.
 */
export function readRule(text: string, line: number): string {
  const words = text.replace(/([(),])/g, ' $1 ').trim().split(/\s+/);
  words.forEach((word, i) => {
    if (HEDGES.has(word.toLowerCase()) && words[i - 1] !== undefined && /^(is|not)$/i.test(words[i - 1]!) && words[i + 1] !== undefined && !/^(and|or|then|with|\))$/i.test(words[i + 1]!)) {
      throw new FormatError(line, `hedge "${word}"`, `the hedge "${word}" is not supported (fuzzbox's conditions are "x IS [NOT] set"): ${text}`);
    }
  });
  const then = words.findIndex((word) => word.toLowerCase() === 'then');
  const converted = words.map((word, i) => (i > then && then >= 0 && word.toLowerCase() === 'and' ? ',' : word));
  const quoted = converted.map((word) => (/^[^\s(),"\\]+$/.test(word) || word === '(' || word === ')' || word === ',' ? word : JSON.stringify(word)));
  try {
    const ast = parseRule(quoted.join(' '));
    if (ast.type !== 'if') throw new FormatError(line, 'rule', `expected an IF rule: ${text}`);
    return printRule(ast);
  } catch (error) {
    if (error instanceof RuleSyntaxError) throw new FormatError(line, 'rule', `cannot read the rule "${text}": ${error.message.replace(/^column \d+: /, '')}`);
    throw error;
  }
}

/**
 * The model a file described, checked by compiling it: an issue is reported at the line of the
 * variable, term or rule it concerns. `ruleLines[i]` is the line of rules[i].
 */
/** The operators every file format names: AND, OR and implication. */
export type FileOperators = Required<Pick<Operators, 'and' | 'or' | 'implication'>>;

export function buildModel(name: string, inputs: readonly Variable[], outputs: readonly Variable[], rules: string[], ruleLines: number[], operators: FileOperators): Model {
  const lines = new Map<string, number>();
  const sets = (list: readonly Variable[], kind: 'inputs' | 'outputs') =>
    Object.fromEntries(
      list.map((variable) => {
        lines.set(`${kind}.${variable.name}`, variable.line);
        for (const term of variable.terms) lines.set(`${kind}.${variable.name}.${term.name}`, term.line);
        return [variable.name, resolveSets(variable, kind === 'outputs')];
      }),
    );
  const definition: AgentDefinition = { inputs: sets(inputs, 'inputs'), outputs: sets(outputs, 'outputs'), rules, ...operatorsSetting(operators) };
  return checkedModel(name, definition, { variables: lines, rules: ruleLines, file: 1 });
}

function checkedModel(name: string, definition: AgentDefinition, lines: { variables: Map<string, number>; rules: number[]; file: number }): Model {
  try {
    compileAgent(definition);
  } catch (error) {
    if (!(error instanceof AgentValidationError)) throw error;
    const issue = error.issues[0]!;
    const rule = /^rules\[(\d+)\]$/.exec(issue.path);
    const line = rule ? lines.rules[Number(rule[1])] : lines.variables.get(issue.path.split('.').slice(0, 3).join('.')) ?? lines.variables.get(issue.path.split('.').slice(0, 2).join('.'));
    throw new FormatError(line ?? lines.file, issue.path || 'agent', issue.message);
  }
  return { name, definition };
}

/** The operators a file names, as fuzzbox's setting: left out where they are the defaults. */
export function operatorsSetting(operators: FileOperators): Pick<AgentDefinition, 'operators'> {
  const chosen = Object.fromEntries(Object.entries(operators).filter(([key, value]) => value !== { and: 'min', or: 'max', implication: 'min' }[key]));
  return Object.keys(chosen).length > 0 ? { operators: chosen as Operators } : {};
}

// ---- writing

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED = new Set([
  ...['if', 'then', 'is', 'not', 'and', 'or', 'with', 'increases', 'decreases', ...HEDGES],
  ...['function_block', 'end_function_block', 'var_input', 'var_output', 'end_var', 'fuzzify', 'end_fuzzify', 'defuzzify', 'end_defuzzify'],
  ...['ruleblock', 'end_ruleblock', 'term', 'range', 'method', 'accu', 'default', 'act', 'rule'],
]);

/** Throws unless `name` can be written in a model file: an identifier that is no keyword. */
export function writableName(name: string, format: string): string {
  if (!IDENTIFIER.test(name) || RESERVED.has(name.toLowerCase())) {
    throw new FormatError(0, 'name', `the name ${JSON.stringify(name)} cannot be written in ${format}: names there are identifiers (letters, digits, _) and no keyword; rename it`);
  }
  return name;
}

/** A set as a file term: its shape, and, for a shoulder, the ramp it is (0 at `from`, 1 at `to`). */
export function setShapeOf(set: SetDefinition | TermDefinition, range: readonly [number, number]):
  | { kind: 'triangle' | 'trapezoid'; points: readonly number[] }
  | { kind: 'ramp'; from: number; to: number } {
  if (!Array.isArray(set)) throw new FormatError(0, (set as TermDefinition).type, `a ${(set as TermDefinition).type} term cannot be written to a file yet`);
  const points = set as SetDefinition;
  if (points.length === 3) return { kind: 'triangle', points };
  if (points.length === 4) return { kind: 'trapezoid', points };
  return isFallingShoulder(points, range) ? { kind: 'ramp', from: points[1]!, to: points[0]! } : { kind: 'ramp', from: points[0]!, to: points[1]! };
}

/** A number as the writers print it: shortest round-trip form. */
export function show(value: number): string {
  return String(value);
}

/**
 * A condition in fuzzylite's syntax (lower-case keywords, every nested AND or OR in parentheses, so
 * that no tool's precedence matters); `NOT` over a group only where `notGroups` (IEC FCL).
 */
export function writeCondition(condition: Condition, format: string, notGroups: boolean): string {
  switch (condition.type) {
    case 'is':
      return `${writableName(condition.variable, format)} is ${writableName(condition.set, format)}`;
    case 'not':
      if (condition.operand.type === 'is') return `${writableName(condition.operand.variable, format)} is not ${writableName(condition.operand.set, format)}`;
      if (!notGroups) throw new FormatError(0, 'NOT', `${format} has no NOT over a group of conditions; write the rule with NOT on each condition`);
      return `not (${writeCondition(condition.operand, format, notGroups)})`;
    case 'and':
    case 'or':
      return condition.operands
        .map((operand) => (operand.type === 'and' || operand.type === 'or' ? `(${writeCondition(operand, format, notGroups)})` : writeCondition(operand, format, notGroups)))
        .join(` ${condition.type} `);
  }
}

/** `if … then a is x and b is y [with w]` */
export function writeRule(rule: IfRule, format: string, notGroups: boolean): string {
  const conclusions = rule.conclusions.map(({ variable, set }) => `${writableName(variable, format)} is ${writableName(set, format)}`).join(' and ');
  return `if ${writeCondition(rule.condition, format, notGroups)} then ${conclusions}${rule.weight === 1 ? '' : ` with ${show(rule.weight)}`}`;
}
