// Evaluation (docs/ENGINE.md, "The pipeline") runs the pipeline each stage's module owns: fuzzify the inputs, activate the
// rules, then per output imply, aggregate and defuzzify in closed form straight from the compiled
// layouts, in a scratch borrowed for the call. The fast path allocates only its result; the trace
// runs the very same aggregation, recording its edges to build the combined polygon.

import { activate } from './activation.js';
import { aggregate, combinedPolygon } from './aggregation.js';
import { EXACT, PROGRAM, WEIGHTED, type CompiledAgent } from './compile.js';
import { locateCentroid } from './defuzzification.js';
import { InputError, showValue } from './errors.js';
import { fuzzify } from './fuzzification.js';
import { countCall } from './generated.js';
import { impliedShape } from './implication.js';
import { defuzzifyIntegral, integralTrace, type IntegralPlan } from './integral.js';
import { weighSugeno, weighted, weightedTrace, type WeightedPlan } from './weighted.js';
import type { Program } from './program.js';
import { borrowScratch, type Scratch } from './scratch.js';
import type { Activation, EvaluateOptions, Inputs, Outputs, Polygon, Trace } from './types.js';
import { put } from './variables.js';

/** Stages 1 and 2: scratch.degrees, scratch.strengths and scratch.inferred for these inputs. */
function fire(program: Program, inputs: Inputs, scratch: Scratch): void {
  fuzzify(program.fuzzification, inputs, scratch.degrees, scratch.inputValues);
  activate(program.activation, scratch.degrees, scratch.stack, scratch.strengths, scratch.inferred);
}

/**
 * Stages 3 to 5 for output o, by its method: scratch.centroid holds [crisp, height]; false when no
 * rule reaches it.
 */
function defuzzify(program: Program, o: number, scratch: Scratch): boolean {
  const method = program.outputs.methods[o]!;
  if (method === EXACT) {
    aggregate(program, o, scratch.inferred, scratch);
    return locateCentroid(program.defuzzification, o, scratch);
  }
  if (method === WEIGHTED) {
    const value = weighted(
      program.outputs.plans[o] as WeightedPlan,
      program.activation,
      scratch.strengths,
      scratch.inputValues,
      scratch.outputValues,
      scratch.weights,
    );
    scratch.centroid[0] = value;
    return !Number.isNaN(value);
  }
  return defuzzifyIntegral(program.outputs.plans[o] as IntegralPlan, program.activation, scratch.strengths, scratch.inferred, scratch.centroid);
}

/**
 * Every output's value into scratch.outputValues, in the order formulas reading outputs need
 * (docs/ENGINE.md, "Chained outputs"): its crisp value, else its default, else NaN.
 */
function chainedOutputValues(program: Program, order: Int32Array, scratch: Scratch): void {
  const { defaults } = program.outputs;
  for (const o of order) scratch.outputValues[o] = defuzzify(program, o, scratch) ? scratch.centroid[0]! : defaults[o]!;
}

/**
 * Every output's crisp value for these inputs: an output no rule reached has its default, or is
 * left out. An agent of the Takagi–Sugeno fast path's form fires and weighs its rules in one
 * pass (weighSugeno); any other goes stage by stage.
 */
function crispOutputs(program: Program, inputs: Inputs, scratch: Scratch): Outputs {
  const { sugeno } = program.outputs;
  const generated = program.generated;
  fuzzify(program.fuzzification, inputs, scratch.degrees, scratch.inputValues);
  if (generated.sugeno) {
    scratch.centroid[0] = generated.sugeno(scratch.degrees, scratch.inputValues);
  } else if (generated.activation) {
    generated.activation(scratch.degrees, scratch.strengths, scratch.inferred);
  } else if (sugeno) {
    scratch.centroid[0] = weighSugeno(sugeno, program.activation, scratch.degrees, scratch.inputValues, scratch.outputValues);
  } else {
    activate(program.activation, scratch.degrees, scratch.stack, scratch.strengths, scratch.inferred);
  }
  const crisp: Outputs = {};
  const { defaults, order } = program.outputs;
  if (order !== undefined) {
    chainedOutputValues(program, order, scratch);
    for (let o = 0; o < program.outputNames.length; o++)
      if (!Number.isNaN(scratch.outputValues[o]!)) put(crisp, program.outputNames[o]!, scratch.outputValues[o]!);
    return crisp;
  }
  for (let o = 0; o < program.outputNames.length; o++) {
    if (sugeno ? !Number.isNaN(scratch.centroid[0]!) : defuzzify(program, o, scratch)) put(crisp, program.outputNames[o]!, scratch.centroid[0]!);
    else if (!Number.isNaN(defaults[o]!)) put(crisp, program.outputNames[o]!, defaults[o]!);
  }
  return crisp;
}

function traceOutputs(program: Program, scratch: Scratch): Trace {
  const { inputNames, inputSetStart, inputSetNames } = program.fuzzification;
  const { outputNames, outputSetStart, outputSetNames, outputShapes } = program;
  const { degrees, strengths, inferred, centroid } = scratch;
  const trace: Trace = {
    fuzzified: {},
    rules: program.activation.ruleTexts.filter((_, r) => strengths[r]! > 0),
    inferred: {},
    clipped: {},
    combined: {},
    centroid: {},
    crisp: {},
  };
  for (let i = 0; i < inputNames.length; i++) {
    if (Number.isNaN(degrees[inputSetStart[i]!])) continue;
    const sets: Record<string, number> = {};
    for (let s = inputSetStart[i]!; s < inputSetStart[i + 1]!; s++) put(sets, inputSetNames[s]!, degrees[s]!);
    put(trace.fuzzified, inputNames[i]!, sets);
  }
  const { methods, plans, defaults, order } = program.outputs;
  // the values formulas read, before each output is traced on its own
  if (order !== undefined) chainedOutputValues(program, order, scratch);
  for (let o = 0; o < outputNames.length; o++) {
    const name = outputNames[o]!;
    const inferredSets: Record<string, number> = {};
    const clippedSets: Record<string, Polygon> = {};
    let reached = false;
    for (let s = outputSetStart[o]!; s < outputSetStart[o + 1]!; s++) {
      if (!(inferred[s]! > 0)) continue;
      reached = true;
      put(inferredSets, outputSetNames[s]!, inferred[s]!);
      if (methods[o] === EXACT) put(clippedSets, outputSetNames[s]!, impliedShape(program.implication.kind, outputShapes[s]!, inferred[s]!));
    }
    if (!reached) {
      if (!Number.isNaN(defaults[o]!)) put(trace.crisp, name, defaults[o]!);
      continue;
    }
    put(trace.inferred, name, inferredSets);
    put(trace.clipped, name, clippedSets);
    let heightCentroid = 0;
    if (methods[o] === EXACT) {
      put(trace.combined, name, combinedPolygon(program, o, inferred, scratch));
    } else if (methods[o] === WEIGHTED) {
      const { inputValues, outputValues, weights } = scratch;
      const traced = weightedTrace(plans[o] as WeightedPlan, program.activation, strengths, inputValues, outputValues, weights);
      for (const { set, polygon } of traced.bars) put(clippedSets, outputSetNames[set]!, polygon);
      put(trace.combined, name, traced.combined);
      heightCentroid = traced.heightCentroid;
    } else {
      const { implied, combined } = integralTrace(plans[o] as IntegralPlan, program.activation, strengths, inferred);
      for (const { set, polygon } of implied) put(clippedSets, outputSetNames[set]!, polygon);
      put(trace.combined, name, combined);
    }
    if (!defuzzify(program, o, scratch)) {
      if (!Number.isNaN(defaults[o]!)) put(trace.crisp, name, defaults[o]!);
      continue;
    }
    if (methods[o] === WEIGHTED) centroid[1] = heightCentroid;
    put(trace.centroid, name, [centroid[0]!, centroid[1]!]);
    put(trace.crisp, name, centroid[0]!);
  }
  return trace;
}

/**
 * Evaluates the agent for one set of inputs. Without options it returns only `{crisp}` and
 * allocates nothing else; with `{trace: true}` it returns every step (`Trace`).
 * Throws InputError for an unknown input name or a value that is not a finite number.
 */
export function evaluate(compiled: CompiledAgent, inputs: Inputs): { crisp: Outputs };
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options: EvaluateOptions & { trace: true }): Trace;
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options?: EvaluateOptions): { crisp: Outputs } | Trace;
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options?: EvaluateOptions): { crisp: Outputs } | Trace {
  const program = compiled[PROGRAM];
  const scratch = borrowScratch(program);
  let result: { crisp: Outputs } | Trace;
  if (options?.trace) {
    fire(program, inputs, scratch);
    result = traceOutputs(program, scratch);
  } else {
    result = { crisp: crispOutputs(program, inputs, scratch) };
    countCall(program);
  }
  scratch.busy = false;
  return result;
}

/** Evaluates many inputs at once (the fastest path); an InputError names the item at fault. */
export function evaluateBatch(compiled: CompiledAgent, inputsArray: readonly Inputs[]): Outputs[] {
  const program = compiled[PROGRAM];
  if (!Array.isArray(inputsArray)) throw new InputError(`expected an array of inputs, got ${showValue(inputsArray)}`);
  const results = new Array<Outputs>(inputsArray.length);
  const scratch = borrowScratch(program);
  for (let i = 0; i < inputsArray.length; i++) {
    try {
      results[i] = crispOutputs(program, inputsArray[i]!, scratch);
    } catch (error) {
      if (error instanceof InputError) throw new InputError(`item ${i}: ${error.message}`);
      throw error;
    }
  }
  scratch.busy = false;
  countCall(program);
  return results;
}

/** Every expanded rule with its strength for these inputs (0 when it does not fire), in rule order. */
export function activations(compiled: CompiledAgent, inputs: Inputs): Activation[] {
  const program = compiled[PROGRAM];
  const scratch = borrowScratch(program);
  fire(program, inputs, scratch);
  const strengths = program.activation.ruleTexts.map((rule, r) => ({ rule, strength: scratch.strengths[r]! }));
  scratch.busy = false;
  return strengths;
}
