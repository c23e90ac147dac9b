// Evaluation (SPEC 4): fuzzify the inputs, fire the rules, then either integrate each output's
// envelope in closed form straight from the compiled pieces (the fast path, which allocates only
// the result), or build every polygon of the trace with the geometry of geometry.ts.

import { AND, LOAD, NOT, PROGRAM, record, type CompiledAgent, type Program } from './compile.js';
import { InputError } from './errors.js';
import { areaCentroid, upperEnvelope } from './geometry.js';
import { clipTrapezoid, trapezoidDegree } from './shape.js';
import type { Activation, EvaluateOptions, Inputs, Outputs, Polygon, Trace } from './types.js';

function show(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? String(value);
}

function knownInputs(program: Program): string {
  return program.inputNames.map((name) => JSON.stringify(name)).join(', ');
}

/** Sets `key` as an own property even when it is "__proto__". */
function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Throws for the first input name the agent does not have. */
function rejectUnknownInputs(program: Program, inputs: object): void {
  for (const name of Object.keys(inputs)) {
    if (!program.inputNames.includes(name)) {
      throw new InputError(`unknown input ${JSON.stringify(name)}: this agent's inputs are ${knownInputs(program)}`);
    }
  }
}

/** Writes every input set's degree into program.degrees; a missing input's sets get NaN, so no rule using them fires. */
function fuzzify(program: Program, inputs: Inputs): void {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw new InputError(`inputs must be an object mapping input names to numbers, got ${show(inputs)}`);
  }
  const { inputNames, inputSetStart, inputTrapezoids: t, degrees } = program;
  let given = 0;
  for (let i = 0; i < inputNames.length; i++) {
    const name = inputNames[i]!;
    const value: unknown = inputs[name];
    const first = inputSetStart[i]!;
    const end = inputSetStart[i + 1]!;
    if (value === undefined || (typeof value !== 'number' && !Object.hasOwn(inputs, name))) {
      degrees.fill(NaN, first, end);
      continue;
    }
    if (typeof value !== 'number' || value - value !== 0) {
      throw new InputError(`input ${JSON.stringify(name)} must be a finite number, got ${show(value)}`);
    }
    given++;
    for (let s = first; s < end; s++) {
      degrees[s] = trapezoidDegree(t[4 * s]!, t[4 * s + 1]!, t[4 * s + 2]!, t[4 * s + 3]!, value);
    }
  }
  let keys = 0;
  for (const _ in inputs) keys++;
  if (keys !== given) rejectUnknownInputs(program, inputs);
}

/** Computes every rule's strength and every output set's inferred degree (max over the rules reaching it). */
function fireRules(program: Program): void {
  const { opStart, ops, opArgs, stack, degrees, weights, strengths, conclusionStart, conclusionSets, inferred } = program;
  inferred.fill(0);
  for (let r = 0; r < strengths.length; r++) {
    let top = 0;
    for (let k = opStart[r]!; k < opStart[r + 1]!; k++) {
      const op = ops[k]!;
      if (op === LOAD) {
        stack[top++] = degrees[opArgs[k]!]!;
      } else if (op === NOT) {
        stack[top - 1] = 1 - stack[top - 1]!;
      } else {
        const count = opArgs[k]!;
        let value = stack[top - count]!;
        // Math.min/max keep a missing input's NaN, so the rule does not fire
        if (op === AND) for (let j = top - count + 1; j < top; j++) value = Math.min(value, stack[j]!);
        else for (let j = top - count + 1; j < top; j++) value = Math.max(value, stack[j]!);
        top -= count - 1;
        stack[top - 1] = value;
      }
    }
    const strength = stack[0]! * weights[r]!;
    strengths[r] = strength;
    if (!(strength > 0)) continue;
    for (let c = conclusionStart[r]!; c < conclusionStart[r + 1]!; c++) {
      const set = conclusionSets[c]!;
      if (strength > inferred[set]!) inferred[set] = strength;
    }
  }
}

let area2 = 0; // twice the area
let moment6 = 0; // six times the first moment about the origin

/** Adds the trapezoid under the straight edge from (xa, ya) to (xb, yb). */
function addEdge(xa: number, ya: number, xb: number, yb: number): void {
  const dx = xb - xa;
  area2 += dx * (ya + yb);
  moment6 += dx * (xa * (2 * ya + yb) + xb * (ya + 2 * yb));
}

/** Inserts t into the sorted breakpoints [0 .. count − 1] when it lies strictly inside (0, 1). */
function addBreak(breaks: Float64Array, count: number, t: number): number {
  if (!(t > 0 && t < 1)) return count;
  let i = count;
  while (breaks[i - 1]! > t) {
    breaks[i] = breaks[i - 1]!;
    i--;
  }
  breaks[i] = t;
  return count + 1;
}

/**
 * The envelope on one interval where n pieces are reached: each is min(its straight degree, its height),
 * so the envelope is straight between clipping kinks and crossings, which become the breakpoints.
 */
function integrateInterval(program: Program, from: number, to: number, n: number): void {
  const { scratchFrom: u0, scratchTo: u1, scratchHeight: h, scratchBreaks: breaks } = program;
  breaks[0] = 0;
  let count = 1;
  for (let j = 0; j < n; j++) {
    count = addBreak(breaks, count, (h[j]! - u0[j]!) / (u1[j]! - u0[j]!));
    for (let k = j + 1; k < n; k++) {
      count = addBreak(breaks, count, (u0[k]! - u0[j]!) / (u1[j]! - u0[j]! - (u1[k]! - u0[k]!)));
      count = addBreak(breaks, count, (h[k]! - u0[j]!) / (u1[j]! - u0[j]!));
      count = addBreak(breaks, count, (h[j]! - u0[k]!) / (u1[k]! - u0[k]!));
    }
  }
  breaks[count++] = 1;
  const width = to - from;
  let previousX = from;
  let previousY = 0;
  for (let b = 0; b < count; b++) {
    const t = breaks[b]!;
    let y = 0;
    for (let j = 0; j < n; j++) y = Math.max(y, Math.min((1 - t) * u0[j]! + t * u1[j]!, h[j]!));
    const x = b === count - 1 ? to : from + t * width;
    if (b > 0) addEdge(previousX, previousY, x, y);
    previousX = x;
    previousY = y;
  }
}

/** Output o's crisp value (centroid x), or NaN when no rule reached it. */
function defuzzify(program: Program, o: number): number {
  const { intervalStart, intervalFrom, intervalTo, pieceStart, pieceSet, pieceFrom, pieceTo, inferred } = program;
  const { scratchFrom, scratchTo, scratchHeight } = program;
  area2 = 0;
  moment6 = 0;
  for (let k = intervalStart[o]!; k < intervalStart[o + 1]!; k++) {
    let n = 0;
    for (let p = pieceStart[k]!; p < pieceStart[k + 1]!; p++) {
      const height = inferred[pieceSet[p]!]!;
      if (height === 0) continue;
      scratchFrom[n] = pieceFrom[p]!;
      scratchTo[n] = pieceTo[p]!;
      scratchHeight[n] = height;
      n++;
    }
    if (n === 0) continue;
    const from = intervalFrom[k]!;
    const to = intervalTo[k]!;
    if (n > 1) {
      integrateInterval(program, from, to, n);
      continue;
    }
    const a = scratchFrom[0]!;
    const b = scratchTo[0]!;
    const h = scratchHeight[0]!;
    if (a <= h && b <= h) {
      addEdge(from, a, to, b);
    } else if (a >= h && b >= h) {
      addEdge(from, h, to, h);
    } else {
      const kink = from + ((h - a) / (b - a)) * (to - from);
      addEdge(from, Math.min(a, h), kink, h);
      addEdge(kink, h, to, Math.min(b, h));
    }
  }
  if (area2 > 0) return program.origins[o]! + moment6 / (3 * area2);
  return spikeCentroidX(program, o);
}

/**
 * A region of zero area is made of vertical segments only (every reached set has zero width); its
 * centroid is that of those segments: x weighted by each segment's height. NaN when nothing was reached.
 */
function spikeCentroidX(program: Program, o: number): number {
  const { spikeStart, spikeSet, spikeX, inferred } = program;
  let weight = 0;
  let moment = 0;
  for (let s = spikeStart[o]!; s < spikeStart[o + 1]!; ) {
    const x = spikeX[s]!;
    let height = 0;
    for (; s < spikeStart[o + 1]! && spikeX[s] === x; s++) height = Math.max(height, inferred[spikeSet[s]!]!);
    weight += height;
    moment += height * x;
  }
  return weight > 0 ? moment / weight : NaN;
}

function crispOutputs(program: Program): Outputs {
  const crisp: Outputs = {};
  for (let o = 0; o < program.outputNames.length; o++) {
    const value = defuzzify(program, o);
    if (value === value) put(crisp, program.outputNames[o]!, value);
  }
  return crisp;
}

/** The centroid of a zero-area combined polygon: its spikes as vertical segments (see spikeCentroidX). */
function spikeCentroid(polygon: Polygon): [number, number] | undefined {
  let weight = 0;
  let momentX = 0;
  let momentY = 0;
  for (const [x, y] of polygon) {
    weight += y;
    momentX += y * x;
    momentY += (y * y) / 2;
  }
  return weight > 0 ? [momentX / weight, momentY / weight] : undefined;
}

function traceOutputs(program: Program, inputs: Inputs): Trace {
  const { inputNames, inputSetStart, inputSetNames, degrees, strengths, ruleTexts } = program;
  const { outputNames, outputSetStart, outputSetNames, outputShapes, inferred } = program;
  const trace: Trace = {
    fuzzified: {},
    rules: ruleTexts.filter((_, r) => strengths[r]! > 0),
    inferred: {},
    clipped: {},
    combined: {},
    centroid: {},
    crisp: {},
  };
  inputNames.forEach((name, i) => {
    if (Number.isNaN(degrees[inputSetStart[i]!]) || inputs[name] === undefined) return;
    const sets: Array<[string, number]> = [];
    for (let s = inputSetStart[i]!; s < inputSetStart[i + 1]!; s++) sets.push([inputSetNames[s]!, degrees[s]!]);
    put(trace.fuzzified, name, record(sets));
  });
  outputNames.forEach((name, o) => {
    const reached: number[] = [];
    for (let s = outputSetStart[o]!; s < outputSetStart[o + 1]!; s++) if (inferred[s]! > 0) reached.push(s);
    if (reached.length === 0) return;
    const clipped = reached.map((s) => clipTrapezoid(outputShapes[s]!, inferred[s]!));
    const combined = upperEnvelope(clipped);
    put(trace.inferred, name, record(reached.map((s) => [outputSetNames[s]!, inferred[s]!])));
    put(trace.clipped, name, record(reached.map((s, k) => [outputSetNames[s]!, clipped[k]!])));
    put(trace.combined, name, combined);
    const { area, centroid } = areaCentroid(combined);
    const result = area > 0 ? centroid : spikeCentroid(combined);
    if (!result) return;
    put(trace.centroid, name, result);
    put(trace.crisp, name, result[0]);
  });
  return trace;
}

/**
 * Evaluates the agent for one set of inputs. Without options it returns only `{crisp}` and
 * allocates nothing else; with `{trace: true}` it returns every step of SPEC section 4.
 * Throws InputError for an unknown input name or a value that is not a finite number.
 */
export function evaluate(compiled: CompiledAgent, inputs: Inputs): { crisp: Outputs };
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options: EvaluateOptions & { trace: true }): Trace;
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options?: EvaluateOptions): { crisp: Outputs } | Trace;
export function evaluate(compiled: CompiledAgent, inputs: Inputs, options?: EvaluateOptions): { crisp: Outputs } | Trace {
  const program = compiled[PROGRAM];
  fuzzify(program, inputs);
  fireRules(program);
  if (options?.trace) return traceOutputs(program, inputs);
  return { crisp: crispOutputs(program) };
}

/** Evaluates many inputs at once (the fastest path); an InputError names the item at fault. */
export function evaluateBatch(compiled: CompiledAgent, inputsArray: readonly Inputs[]): Outputs[] {
  const program = compiled[PROGRAM];
  if (!Array.isArray(inputsArray)) throw new InputError(`expected an array of inputs, got ${show(inputsArray)}`);
  const results = new Array<Outputs>(inputsArray.length);
  for (let i = 0; i < inputsArray.length; i++) {
    try {
      fuzzify(program, inputsArray[i]!);
    } catch (error) {
      if (error instanceof InputError) throw new InputError(`item ${i}: ${error.message}`);
      throw error;
    }
    fireRules(program);
    results[i] = crispOutputs(program);
  }
  return results;
}

/** Every expanded rule with its strength for these inputs (0 when it does not fire), in rule order. */
export function activations(compiled: CompiledAgent, inputs: Inputs): Activation[] {
  const program = compiled[PROGRAM];
  fuzzify(program, inputs);
  fireRules(program);
  return program.ruleTexts.map((rule, r) => ({ rule, strength: program.strengths[r]! > 0 ? program.strengths[r]! : 0 }));
}
