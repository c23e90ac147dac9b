// compileAgent: validates a definition, expands INCREASES/DECREASES (docs/ENGINE.md), and lays the agent out
// along the pipeline, each stage by its own module (fuzzification, activation, implication,
// aggregation, defuzzification) in flat typed arrays, so that evaluation allocates nothing.

import { layOutActivation } from './activation.js';
import { layOutAggregation } from './aggregation.js';
import { layOutDefuzzification } from './defuzzification.js';
import { AgentValidationError } from './errors.js';
import { layOutFuzzification } from './fuzzification.js';
import { layOutImplication, MINIMUM, PRODUCT } from './implication.js';
import { printRule } from './parse.js';
import type { Program } from './program.js';
import { shapeTrapezoid } from './shape.js';
import type { AgentDefinition, IfRule, Operators, RuleAst, SetDefinition, VariableDefinition, VariableSummary } from './types.js';
import { validateAgent } from './validate.js';
import { indexVariables, range, record, summarize } from './variables.js';

export const PROGRAM = Symbol('fuzzbox.engine.program');

/** A compiled agent: immutable, validated, with its rules parsed and ready to evaluate. */
export interface CompiledAgent {
  /** a deep-frozen copy of the definition it was compiled from */
  readonly definition: AgentDefinition;
  /** one AST per rule string, in order, INCREASES/DECREASES not expanded */
  readonly parsedRules: readonly RuleAst[];
  /** the rules evaluation runs, INCREASES/DECREASES expanded into IF rules */
  readonly expandedRules: readonly IfRule[];
  readonly inputs: Readonly<Record<string, VariableSummary>>;
  readonly outputs: Readonly<Record<string, VariableSummary>>;
  /** the operators evaluation uses, defaults filled in */
  readonly operators: Required<Operators>;
  /** @internal */
  readonly [PROGRAM]: Program;
}

/** Freezes value and everything it holds. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The x where a set is fully true, midway: its order for INCREASES/DECREASES. */
function centre(points: SetDefinition, variableRange: [number, number]): number {
  const [, b, c] = shapeTrapezoid(points, variableRange);
  return b + (c - b) / 2; // b + c overflows near ±1.7e308
}

function setsByCentre(sets: VariableDefinition): string[] {
  const variableRange = range(sets);
  return Object.keys(sets)
    .map((name, order) => ({ name, order, centre: centre(sets[name]!, variableRange) }))
    .sort((p, q) => p.centre - q.centre || p.order - q.order)
    .map(({ name }) => name);
}

/** Set i of n pairs with set round(i·(m−1)/(n−1)) of m (halves round up); a lone set pairs with the middle one. */
function pairedIndex(i: number, n: number, m: number): number {
  return n === 1 ? Math.round((m - 1) / 2) : Math.round((i * (m - 1)) / (n - 1));
}

function expand(ast: RuleAst, text: string, definition: ValidDefinition): Array<{ rule: IfRule; text: string }> {
  if (ast.type === 'if') return [{ rule: ast, text }];
  const inputSets = setsByCentre(definition.inputs[ast.input]!);
  const outputSets = setsByCentre(definition.outputs[ast.output]!);
  if (ast.type === 'decreases') outputSets.reverse();
  return inputSets.map((set, i) => {
    const rule: IfRule = {
      type: 'if',
      condition: { type: 'is', variable: ast.input, set },
      conclusions: [{ variable: ast.output, set: outputSets[pairedIndex(i, inputSets.length, outputSets.length)]! }],
      weight: ast.weight,
    };
    return { rule, text: printRule(rule) };
  });
}

interface ValidDefinition {
  inputs: Record<string, VariableDefinition>;
  outputs: Record<string, VariableDefinition>;
}

interface ValidDefinition {
  inputs: Record<string, VariableDefinition>;
  outputs: Record<string, VariableDefinition>;
}

const copyVariables = (variables: Record<string, Record<string, readonly number[]>>) =>
  record(Object.entries(variables).map(([n, sets]) => [n, record(Object.entries(sets).map(([s, p]) => [s, [...p]]))]));

/** Validates and compiles an agent; throws AgentValidationError listing every problem found. */
export function compileAgent(definition: AgentDefinition): CompiledAgent {
  const result = validateAgent(definition);
  if (!('agent' in result)) throw new AgentValidationError(result.issues);
  const { agent } = result;
  const frozen = deepFreeze({
    inputs: copyVariables(agent.inputs),
    outputs: copyVariables(agent.outputs),
    rules: [...agent.rules],
    ...(agent.operators && { operators: { ...agent.operators } }),
  }) as AgentDefinition & ValidDefinition;
  const parsedRules = deepFreeze(agent.parsedRules);
  const operators: Required<Operators> = Object.freeze({ and: 'min', or: 'max', implication: 'min', ...agent.operators });

  const expanded = parsedRules.flatMap((ast, i) => expand(ast, agent.rules[i]!, frozen));
  const inputSets = indexVariables(frozen.inputs);
  const outputSets = indexVariables(frozen.outputs);
  const outputShapes = outputSets.points.map((points, s) => shapeTrapezoid(points, outputSets.ranges[s]!));
  const defuzzification = layOutDefuzzification(outputShapes, outputSets.start);
  const aggregation = layOutAggregation(outputShapes, outputSets.start, defuzzification);
  // Frozen one level deep, each stage's layout too; their arrays are left unfrozen, as V8 reads and
  // destructures frozen arrays markedly slower (the trace ran at half speed), and no code writes them.
  const program: Program = Object.freeze({
    fuzzification: Object.freeze(layOutFuzzification(inputSets)),
    activation: Object.freeze(layOutActivation(expanded, inputSets, outputSets, operators)),
    implication: Object.freeze(layOutImplication(operators.implication === 'product' ? PRODUCT : MINIMUM, outputShapes, outputSets.start, aggregation)),
    aggregation: Object.freeze(aggregation),
    defuzzification: Object.freeze(defuzzification),
    outputNames: outputSets.names,
    outputSetStart: outputSets.start,
    outputSetNames: outputSets.setNames,
    outputShapes,
  });

  return Object.freeze({
    definition: frozen,
    parsedRules,
    expandedRules: deepFreeze(expanded.map(({ rule }) => rule)),
    inputs: deepFreeze(summarize(frozen.inputs)),
    outputs: deepFreeze(summarize(frozen.outputs)),
    operators,
    [PROGRAM]: program,
  });
}
