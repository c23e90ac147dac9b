// What the three model-file formats share: the error naming a line and a construct, terms as files
// write them (triangles, trapezoids, ramps, IEC points) turned into fuzzbox's sets, rules in
// fuzzylite's and IEC 61131-7's syntax turned into fuzzbox's, and the checks a writer makes.

import { AgentValidationError, compileAgent, parseRule, printRule, RuleSyntaxError } from '../engine/index.js';
import { isFallingShoulder } from '../engine/shape.js';
import type { AgentDefinition, Condition, IfRule, Operators, SetDefinition, SetReference, VariableDefinition } from '../engine/types.js';
import { FormatError } from './model-file.js';
import { readerWork } from './scan.js';

export { FormatError };

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
 * shoulder there the same direction (docs/ENGINE.md, "Membership": by its midpoint against the range's) and, for an
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
  const setOf = (term: Term) => {
    if (term.kind === 'points') return term.points;
    if (widened.has(term.name)) return term.to > term.from ? [term.from, term.to, edge[1], edge[1]] : [edge[0], edge[0], term.to, term.from];
    return shoulder(term);
  };
  let min = Infinity;
  let max = -Infinity;
  for (const term of variable.terms) for (const x of setOf(term)) (min = Math.min(min, x)), (max = Math.max(max, x));
  const wrong = (term: Term) => {
    if (term.kind !== 'ramp' || widened.has(term.name)) return false;
    // a ramp of zero width has no direction of its own: it is the shoulder fuzzbox's rule makes there
    const falls = term.to === term.from ? isFallingShoulder(shoulder(term), [min, max]) : term.to < term.from;
    if (isFallingShoulder(shoulder(term), [min, max]) !== falls) return true;
    return output && (falls ? min !== edge[0] : max !== edge[1]);
  };
  // a widened ramp reaches an edge, so min and max change at most twice: at most three passes
  for (let changed = true; changed; ) {
    changed = false;
    for (const term of variable.terms) {
      if (!wrong(term)) continue;
      widened.add(term.name);
      for (const x of setOf(term)) (min = Math.min(min, x)), (max = Math.max(max, x));
      changed = true;
    }
  }
  for (const term of variable.terms) sets.set(term.name, setOf(term));
  const names = new Set<string>();
  for (const term of variable.terms) {
    if (names.has(term.name)) throw new FormatError(term.line, 'duplicate term', `term "${term.name}" is defined twice in "${variable.name}"`);
    names.add(term.name);
  }
  return Object.fromEntries(variable.terms.map((term) => [term.name, sets.get(term.name)!]));
}

const HEDGES = new Set(['any', 'extremely', 'seldom', 'somewhat', 'very']);

/** The words of a rule in one pass: parentheses and commas on their own, a double-quoted name (with \\ escapes) as one word. */
function ruleWords(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') i++;
    else if (ch === '(' || ch === ')' || ch === ',') found.push(text[i++]!);
    else {
      const start = i;
      if (ch === '"') {
        for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
        i++;
      } else while (i < text.length && !' \t\n\r(),"'.includes(text[i]!)) i++;
      found.push(text.slice(start, i));
    }
  }
  readerWork.steps += text.length;
  return found;
}

/**
 * A rule in fuzzylite's or IEC 61131-7's syntax (`if a is x and b is not y then c is z and d is w
 * with 0.5`) as fuzzbox's canonical rule text: keywords in any case, conclusions joined by `and`
 * or `,`, AND binding tighter than OR. Hedges are refused.
 */
export function readRule(text: string, line: number): string {
  const words = ruleWords(text);
  const then = words.findIndex((word) => word.toLowerCase() === 'then');
  const converted = words.map((word, i) => (i > then && then >= 0 && word.toLowerCase() === 'and' ? ',' : word));
  const quoted = converted.map((word) =>
    /^[^\s(),"\\]+$/.test(word) || word.startsWith('"') || word === '(' || word === ')' || word === ',' ? word : JSON.stringify(word),
  );
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
 * variable, term or rule it concerns (`lines.variables` by path, `lines.rules[i]` for rules[i]).
 */
export function checkedModel(name: string, definition: AgentDefinition, lines: { variables: Map<string, number>; rules: number[]; file: number }): Model {
  try {
    compileAgent(definition);
  } catch (error) {
    if (!(error instanceof AgentValidationError)) throw error;
    const issue = error.issues[0]!;
    const rule = /^rules\[(\d+)\]$/.exec(issue.path);
    const line = rule
      ? lines.rules[Number(rule[1])]
      : (lines.variables.get(issue.path.split('.').slice(0, 3).join('.')) ?? lines.variables.get(issue.path.split('.').slice(0, 2).join('.')));
    throw new FormatError(line ?? lines.file, issue.path || 'agent', issue.message);
  }
  return { name, definition };
}

/** The operators a file names, as fuzzbox's setting: left out where they are the defaults. */
export function operatorsSetting(operators: Required<Pick<Operators, 'and' | 'or' | 'implication'>>): Pick<AgentDefinition, 'operators'> {
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
    throw new FormatError(
      0,
      'name',
      `the name ${JSON.stringify(name)} cannot be written in ${format}: names there are identifiers (letters, digits, _) and no keyword; rename it`,
    );
  }
  return name;
}

/** A set as a file term: its shape, and, for a shoulder, the ramp it is (0 at `from`, 1 at `to`). */
export function setShapeOf(
  points: SetDefinition,
  range: readonly [number, number],
): { kind: 'triangle' | 'trapezoid'; points: readonly number[] } | { kind: 'ramp'; from: number; to: number } {
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
      return reference(condition, format, false);
    case 'not':
      if (condition.operand.type === 'is') return reference(condition.operand, format, true);
      if (!notGroups) throw new FormatError(0, 'NOT', `${format} has no NOT over a group of conditions; write the rule with NOT on each condition`);
      return `not (${writeCondition(condition.operand, format, notGroups)})`;
    case 'and':
    case 'or':
      return condition.operands
        .map((operand) =>
          operand.type === 'and' || operand.type === 'or' ? `(${writeCondition(operand, format, notGroups)})` : writeCondition(operand, format, notGroups),
        )
        .join(` ${condition.type} `);
  }
}

/** `x is [not] [hedges] set`, fuzzylite's order */
function reference({ variable, set, hedges }: SetReference, format: string, negated: boolean): string {
  return [writableName(variable, format), 'is', ...(negated ? ['not'] : []), ...(hedges ?? []), set === 'any' ? set : writableName(set, format)].join(' ');
}

/** `if … then a is x and b is y [with w]` */
export function writeRule(rule: IfRule, format: string, notGroups: boolean): string {
  const conclusions = rule.conclusions.map((conclusion) => reference(conclusion, format, false)).join(' and ');
  return `if ${writeCondition(rule.condition, format, notGroups)} then ${conclusions}${rule.weight === 1 ? '' : ` with ${show(rule.weight)}`}`;
}
