// fuzzbox/engine: the exact Mamdani engine (docs/ENGINE.md). Pure: no I/O, no DOM, no dependencies.

export { parseRule, printRule } from './parse.js';
export { compileAgent, type CompiledAgent, type ResolvedOperators } from './compile.js';
export { OPERATOR_CHOICES } from './validate.js';
export { evaluate, evaluateBatch, activations } from './evaluate.js';
export { evaluationCost } from './cost.js';
export { membership, setShape, TERM_KINDS, TERM_PARAMETERS } from './terms.js';
export { RuleSyntaxError, AgentValidationError, InputError } from './errors.js';
export { MAX_VARIABLES, MAX_SETS, MAX_OUTPUT_SETS, MAX_RULES, MAX_CONCLUSIONS, MAX_RULE_LENGTH, MAX_NESTING } from './limits.js';
export type * from './types.js';
