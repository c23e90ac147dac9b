// compileAgent: validates a definition, expands INCREASES/DECREASES (docs/ENGINE.md), and lays the agent out
// along the pipeline, each stage by its own module (fuzzification, activation, implication,
// aggregation, defuzzification) in flat typed arrays, so that evaluation allocates nothing.

import { layOutActivation } from './activation.js';
import { layOutAggregation } from './aggregation.js';
import { layOutDefuzzification } from './defuzzification.js';
import { AgentValidationError } from './errors.js';
import { layOutFuzzification } from './fuzzification.js';
import { layOutImplication, MINIMUM, PRODUCT } from './implication.js';
import { BISECTOR, CENTROID, LARGEST_OF_MAXIMUM, MEAN_OF_MAXIMUM, planIntegral, SMALLEST_OF_MAXIMUM, type IntegralPlan } from './integral.js';
import { S_NORM_CODES, T_NORM_CODES } from './norms.js';
import { printRule } from './parse.js';
import type { Program } from './program.js';
import type { Trapezoid } from './shape.js';
import { membershipTerm, shapeOf, SUGENO_KINDS } from './terms.js';
import type { AgentDefinition, IfRule, Operators, RuleAst, SetDefinition, TermDefinition, VariableDefinition, VariableSummary } from './types.js';
import { validateAgent } from './validate.js';
import { dependencyOrder, type DependencyOrder } from './chain.js';
import { formulaNames } from './formula.js';
import { notGenerated } from './generated.js';
import { planSugeno, planWeighted, type SugenoPlan, type WeightedPlan } from './weighted.js';
import { indexVariables, isPoints, record, summarize, variableUniverse, type IndexedVariables } from './variables.js';
import type { ActivationLayout } from './activation.js';

export const PROGRAM = Symbol('fuzzbox.engine.program');

export type ResolvedOperators = Operators & Required<Pick<Operators, 'and' | 'or' | 'implication'>>;

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
  /** the operators evaluation uses: the agent's, with AND, OR and implication's defaults filled in */
  readonly operators: ResolvedOperators;
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

/**
 * The x where a set is fully true, midway: its order for INCREASES/DECREASES. A curved kind's is
 * the middle of its breakpoints; a Takagi–Sugeno term's its constant (a linear term's at 0 inputs, a
 * function term's 0: a formula has no value of its own).
 */
export function centre(set: SetDefinition | TermDefinition, universe: readonly [number, number]): number {
  if (!isPoints(set) && set.type === 'constant') return set.value;
  if (!isPoints(set) && set.type === 'linear') return set.constant ?? 0;
  if (!isPoints(set) && set.type === 'function') return 0;
  const shape = shapeOf(set, universe);
  if (shape) return shape[1] + (shape[2] - shape[1]) / 2; // b + c overflows near ±1.7e308
  const points = variableUniverse({ set });
  return points[0] + (points[1] - points[0]) / 2;
}

function setsByCentre(sets: VariableDefinition, declared?: readonly [number, number]): string[] {
  const universe = variableUniverse(sets, declared);
  return Object.keys(sets)
    .map((name, order) => ({ name, order, centre: centre(sets[name]!, universe) }))
    .sort((p, q) => p.centre - q.centre || p.order - q.order)
    .map(({ name }) => name);
}

/** Set i of n pairs with set round(i·(m−1)/(n−1)) of m (halves round up); a lone set pairs with the middle one. */
function pairedIndex(i: number, n: number, m: number): number {
  return n === 1 ? Math.round((m - 1) / 2) : Math.round((i * (m - 1)) / (n - 1));
}

function expand(ast: RuleAst, text: string, definition: ValidDefinition): Array<{ rule: IfRule; text: string }> {
  if (ast.type === 'if') return [{ rule: ast, text }];
  const ranges = definition.operators?.ranges;
  const inputSets = setsByCentre(definition.inputs[ast.input]!, ranges?.[ast.input]);
  const outputSets = setsByCentre(definition.outputs[ast.output]!, ranges?.[ast.output]);
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
  operators?: Operators;
}

const copyVariables = (variables: Record<string, VariableDefinition>) =>
  record(Object.entries(variables).map(([n, sets]) => [n, record(Object.entries(sets).map(([s, p]) => [s, structuredClone(p)]))]));

/** How an output is defuzzified: on the exact piecewise-linear path, by weighting, or by integration. */
export const EXACT = 0;
export const WEIGHTED = 1;
export const INTEGRAL = 2;

const INTEGRAL_CODES = {
  centroid: CENTROID,
  bisector: BISECTOR,
  meanOfMaximum: MEAN_OF_MAXIMUM,
  smallestOfMaximum: SMALLEST_OF_MAXIMUM,
  largestOfMaximum: LARGEST_OF_MAXIMUM,
} as const;

export interface OutputPlans {
  readonly methods: Int32Array;
  /** per output: its plan when weighted or integral */
  readonly plans: ReadonlyArray<WeightedPlan | IntegralPlan | undefined>;
  /** per output: its crisp value when no rule reaches it, NaN for none */
  readonly defaults: Float64Array;
  /** per output set: its shape on the exact path (a placeholder across the universe elsewhere) */
  readonly shapes: readonly Trapezoid[];
  /** the implication the exact path uses */
  readonly exactImplication: number;
  /** the Takagi–Sugeno fast path's plan, when the agent has its form */
  readonly sugeno: SugenoPlan | undefined;
  /** the order outputs are defuzzified in when a formula reads an output (docs/ENGINE.md, "Chained outputs"); else declared order */
  readonly order: Int32Array | undefined;
}

/** Output o's implication, aggregation and defuzzification: its own, else the agent's, else its kind's default. */
function outputMethods(outputs: IndexedVariables, o: number, operators: ResolvedOperators) {
  const name = outputs.names[o]!;
  const own = operators.outputs && Object.hasOwn(operators.outputs, name) ? operators.outputs[name]! : {};
  const sets = outputs.points.slice(outputs.start[o]!, outputs.start[o + 1]!);
  const sugeno = sets.some((set) => !isPoints(set) && SUGENO_KINDS.has(set.type));
  const defuzzification = own.defuzzification ?? operators.defuzzification ?? (sugeno ? 'weightedAverage' : 'centroid');
  const weightedOutput = defuzzification === 'weightedAverage' || defuzzification === 'weightedSum';
  const aggregation = own.aggregation ?? operators.aggregation ?? (weightedOutput ? 'none' : 'max');
  return { own, sets, defuzzification, weightedOutput, aggregation, implication: own.implication ?? operators.implication };
}

/**
 * Chooses each output's method: exact where every set is a trapezoid of height 1 (arrays, triangle,
 * trapezoid, rectangle, ramp, binary) under min or product implication (one for all such outputs),
 * max aggregation and centroid; weighted for weightedAverage / weightedSum; integral otherwise.
 */
function planOutputs(
  outputs: IndexedVariables,
  inputNames: readonly string[],
  operators: ResolvedOperators,
  activation: ActivationLayout,
  outputOrder: Int32Array | undefined,
): OutputPlans {
  const count = outputs.names.length;
  const methods = new Int32Array(count);
  const plans: Array<WeightedPlan | IntegralPlan | undefined> = [];
  const defaults = new Float64Array(count).fill(NaN);
  const shapes: Trapezoid[] = [];
  let exactImplication: string | undefined;
  for (let o = 0; o < count; o++) {
    const first = outputs.start[o]!;
    const universe = outputs.universes[o]!;
    const { own, sets, defuzzification, weightedOutput, aggregation, implication } = outputMethods(outputs, o, operators);
    if (typeof own.default === 'number') defaults[o] = own.default;
    const exactShapes = sets.map((set) => shapeOf(set, universe));
    const exact =
      !weightedOutput &&
      exactShapes.every((shape) => shape !== undefined) &&
      (implication === 'min' || implication === 'product') &&
      (exactImplication === undefined || exactImplication === implication) &&
      aggregation === 'max' &&
      defuzzification === 'centroid';
    if (exact) {
      exactImplication = implication;
      shapes.push(...(exactShapes as Trapezoid[]));
      plans.push(undefined);
      continue;
    }
    shapes.push(...sets.map((): Trapezoid => [universe[0], universe[0], universe[1], universe[1]]));
    if (weightedOutput) {
      methods[o] = WEIGHTED;
      plans.push(
        planWeighted(
          sets as TermDefinition[],
          first,
          formulaNames(inputNames, outputs.names),
          inputNames,
          activation,
          defuzzification === 'weightedAverage',
          aggregation === 'none' ? -1 : S_NORM_CODES[aggregation],
        ),
      );
    } else {
      methods[o] = INTEGRAL;
      const terms = sets.map((set) => membershipTerm(set, universe));
      plans.push(
        planIntegral(
          terms,
          first,
          universe,
          activation,
          T_NORM_CODES[implication],
          S_NORM_CODES[aggregation as Exclude<typeof aggregation, 'none'>],
          INTEGRAL_CODES[defuzzification as keyof typeof INTEGRAL_CODES],
        ),
      );
    }
  }
  // a chained agent (rules or formulas reading outputs) goes stage by stage, in dependency order
  const chained = outputOrder !== undefined || activation.order !== undefined;
  const sugeno = !chained && methods.every((method) => method === WEIGHTED) ? planSugeno(plans, activation) : undefined;
  return { methods, plans, defaults, shapes, exactImplication: exactImplication === 'product' ? PRODUCT : MINIMUM, sugeno, order: outputOrder };
}

/** Validates and compiles an agent; throws AgentValidationError listing every problem found. */
export function compileAgent(definition: AgentDefinition): CompiledAgent {
  const result = validateAgent(definition);
  if (!('agent' in result)) throw new AgentValidationError(result.issues);
  const { agent } = result;
  const frozen = deepFreeze({
    inputs: copyVariables(agent.inputs),
    outputs: copyVariables(agent.outputs),
    rules: [...agent.rules],
    ...(agent.operators && { operators: structuredClone(agent.operators) }),
  }) as AgentDefinition & ValidDefinition;
  const parsedRules = deepFreeze(agent.parsedRules);
  const operators: ResolvedOperators = deepFreeze({ and: 'min', or: 'max', implication: 'min', ...structuredClone(agent.operators) });

  const expanded = parsedRules.flatMap((ast, i) => expand(ast, agent.rules[i]!, frozen));
  const inputSets = indexVariables(frozen.inputs, operators.ranges);
  const outputSets = indexVariables(frozen.outputs, operators.ranges);
  const order = dependencyOrder(
    expanded.map(({ rule }) => rule),
    frozen.inputs,
    frozen.outputs,
  ) as DependencyOrder;
  const chainedAggregation = Int32Array.from(outputSets.names, (_, o) => {
    const { aggregation } = outputMethods(outputSets, o, operators);
    return aggregation === 'none' ? -1 : S_NORM_CODES[aggregation];
  });
  const activation = layOutActivation(expanded, inputSets, outputSets, operators, order.ruleOrder, chainedAggregation);
  const outputPlans = planOutputs(outputSets, inputSets.names, operators, activation, order.outputOrder);
  const outputShapes = outputPlans.shapes;
  const exact = Array.from(outputPlans.methods, (method) => method === EXACT);
  const defuzzification = layOutDefuzzification(outputShapes, outputSets.start);
  const aggregation = layOutAggregation(outputShapes, outputSets.start, defuzzification, exact, outputSets.universes);
  // Frozen one level deep, each stage's layout too; their arrays are left unfrozen, as V8 reads and
  // destructures frozen arrays markedly slower (the trace ran at half speed), and no code writes them.
  const program: Program = Object.freeze({
    fuzzification: Object.freeze(layOutFuzzification(inputSets)),
    activation: Object.freeze(activation),
    implication: Object.freeze(layOutImplication(outputPlans.exactImplication, outputShapes, outputSets.start, aggregation)),
    outputs: Object.freeze(outputPlans),
    aggregation: Object.freeze(aggregation),
    defuzzification: Object.freeze(defuzzification),
    outputNames: outputSets.names,
    outputSetStart: outputSets.start,
    outputSetNames: outputSets.setNames,
    outputShapes,
    generated: notGenerated(),
  });

  return Object.freeze({
    definition: frozen,
    parsedRules,
    expandedRules: deepFreeze(expanded.map(({ rule }) => rule)),
    inputs: deepFreeze(summarize(frozen.inputs, operators.ranges)),
    outputs: deepFreeze(summarize(frozen.outputs, operators.ranges)),
    operators,
    [PROGRAM]: program,
  });
}
