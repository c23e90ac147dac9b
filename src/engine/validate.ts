// Every check SPEC section 1 and 3 make on an agent, collecting every problem instead of stopping at
// the first, so that one 400 tells the caller everything to fix.

import { RuleSyntaxError } from './errors.js';
import { parseRule } from './parse.js';
import type { Condition, RuleAst, SetReference, ValidationIssue } from './types.js';

type Variables = Record<string, Record<string, readonly number[]>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function checkPoints(points: unknown, path: string, issues: ValidationIssue[]): void {
  if (!Array.isArray(points) || points.length < 2 || points.length > 4) {
    const got = Array.isArray(points) ? `${points.length} points` : show(points);
    issues.push({ path, message: `a set needs 2, 3 or 4 numbers (slope, triangle, trapezoid), got ${got}` });
    return;
  }
  const shown = `[${points.map(show).join(', ')}]`;
  if (!points.every((p) => typeof p === 'number' && Number.isFinite(p))) {
    issues.push({ path, message: `points must be finite numbers: ${shown}` });
  } else if (points.some((p, i) => i > 0 && p < points[i - 1])) {
    issues.push({ path, message: `points must be in non-decreasing order: ${shown}` });
  }
}

/** Checks inputs or outputs; returns the variables whose shape is usable for checking rules against. */
function checkVariables(value: unknown, kind: 'inputs' | 'outputs', issues: ValidationIssue[]): Variables {
  const singular = kind === 'inputs' ? 'input' : 'output';
  if (!isRecord(value)) {
    issues.push({ path: kind, message: `must be an object mapping each ${singular} name to its sets, got ${show(value)}` });
    return {};
  }
  const names = Object.keys(value);
  if (names.length === 0) issues.push({ path: kind, message: `an agent needs at least one ${singular}` });
  const usable: Variables = {};
  for (const name of names) {
    const sets = value[name];
    const path = `${kind}.${name}`;
    if (name === '') issues.push({ path, message: `${singular} names must not be empty` });
    if (!isRecord(sets)) {
      issues.push({ path, message: `must be an object mapping each set name to its points, got ${show(sets)}` });
      continue;
    }
    const setNames = Object.keys(sets);
    if (setNames.length === 0) issues.push({ path, message: `${singular} "${name}" needs at least one set` });
    for (const setName of setNames) {
      if (setName === '') issues.push({ path: `${path}.`, message: 'set names must not be empty' });
      checkPoints(sets[setName], `${path}.${setName}`, issues);
    }
    Object.defineProperty(usable, name, { value: sets, enumerable: true });
  }
  return usable;
}

function known(variables: Variables | Record<string, unknown>): string {
  const names = Object.keys(variables);
  return names.length ? names.join(', ') : 'none';
}

/** The problems with one set reference, in words. */
function referenceProblems(
  reference: { variable: string; set?: string },
  role: 'input' | 'output',
  own: Variables,
  other: Variables,
): string[] {
  const sets = Object.hasOwn(own, reference.variable) ? own[reference.variable] : undefined;
  if (!sets) {
    const plural = `${role}s`;
    if (Object.hasOwn(other, reference.variable)) {
      const place = role === 'input' ? 'a condition' : 'a conclusion';
      const otherRole = role === 'input' ? 'an output' : 'an input';
      return [`"${reference.variable}" is ${otherRole}; ${place} needs ${role === 'input' ? 'an input' : 'an output'} (${plural}: ${known(own)})`];
    }
    return [`unknown ${role} "${reference.variable}" (known ${plural}: ${known(own)})`];
  }
  if (reference.set !== undefined && !Object.hasOwn(sets, reference.set)) {
    return [`unknown set "${reference.set}" for ${role} "${reference.variable}" (known: ${known(sets)})`];
  }
  return [];
}

function conditionReferences(condition: Condition): SetReference[] {
  if (condition.type === 'is') return [condition];
  if (condition.type === 'not') return conditionReferences(condition.operand);
  return condition.operands.flatMap(conditionReferences);
}

function ruleProblems(ast: RuleAst, inputs: Variables, outputs: Variables): string[] {
  if (ast.type === 'if') {
    return [
      ...conditionReferences(ast.condition).flatMap((ref) => referenceProblems(ref, 'input', inputs, outputs)),
      ...ast.conclusions.flatMap((ref) => referenceProblems(ref, 'output', outputs, inputs)),
    ];
  }
  return [
    ...referenceProblems({ variable: ast.input }, 'input', inputs, outputs),
    ...referenceProblems({ variable: ast.output }, 'output', outputs, inputs),
  ];
}

export interface ValidatedAgent {
  inputs: Variables;
  outputs: Variables;
  rules: string[];
  parsedRules: RuleAst[];
}

/** Checks a whole agent definition; returns it typed, or every issue found. */
export function validateAgent(definition: unknown): { agent: ValidatedAgent; issues: [] } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  if (!isRecord(definition)) {
    return { issues: [{ path: '', message: `an agent must be an object with inputs, outputs and rules, got ${show(definition)}` }] };
  }
  const inputs = checkVariables(definition.inputs, 'inputs', issues);
  const outputs = checkVariables(definition.outputs, 'outputs', issues);
  const rules = definition.rules;
  const parsedRules: RuleAst[] = [];
  if (!Array.isArray(rules)) {
    issues.push({ path: 'rules', message: `must be an array of rule strings, got ${show(rules)}` });
  } else {
    if (rules.length === 0) issues.push({ path: 'rules', message: 'an agent needs at least one rule' });
    rules.forEach((rule: unknown, i) => {
      const path = `rules[${i}]`;
      if (typeof rule !== 'string') {
        issues.push({ path, message: `a rule must be a string, got ${show(rule)}` });
        return;
      }
      try {
        const ast = parseRule(rule);
        parsedRules.push(ast);
        for (const problem of ruleProblems(ast, inputs, outputs)) issues.push({ path, message: `${problem} in rule ${show(rule)}` });
      } catch (error) {
        if (!(error instanceof RuleSyntaxError)) throw error;
        issues.push({ path, message: `${error.message} in rule ${show(rule)}` });
      }
    });
  }
  if (issues.length > 0) return { issues };
  return { agent: { inputs, outputs, rules: rules as string[], parsedRules }, issues: [] };
}
