import type { ValidationIssue } from './types.js';

/** A value as an error message quotes it: JSON, except numbers JSON cannot write (NaN, Infinity). */
export function showValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** A rule string that does not follow the rule grammar; `column` is 1-based. */
export class RuleSyntaxError extends Error {
  override readonly name = 'RuleSyntaxError';
  readonly rule: string;
  readonly column: number;

  constructor(rule: string, column: number, expectation: string) {
    super(`column ${column}: ${expectation}`);
    this.rule = rule;
    this.column = column;
  }
}

/** An agent definition that cannot be compiled; `issues` lists every problem found, by path. */
export class AgentValidationError extends Error {
  override readonly name = 'AgentValidationError';
  readonly issues: ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    const where = first?.path ? `${first.path}: ` : '';
    super(first ? `invalid agent: ${where}${first.message}${more}` : 'invalid agent');
    this.issues = [...issues];
  }
}

/** Inputs that cannot be evaluated: an unknown input name, or a value that is not a finite number. */
export class InputError extends Error {
  override readonly name = 'InputError';
}
