// Evaluation (SPEC 4): fuzzify the inputs, fire the rules, then integrate each output's envelope in
// closed form straight from the compiled pieces. The fast path allocates only its result; the trace
// runs the very same integration, recording its edges to build the combined polygon.

import { ALL_OF, AND, LOAD, NOT, POSTFIX, PROGRAM, type CompiledAgent, type Program } from './compile.js';
import { InputError, showValue } from './errors.js';
import { appendPoint, clipTrapezoid, trapezoidDegree } from './shape.js';
import type { Activation, EvaluateOptions, Inputs, Outputs, Polygon, Trace } from './types.js';

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
    throw new InputError(`inputs must be an object mapping input names to numbers, got ${showValue(inputs)}`);
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
      throw new InputError(`input ${JSON.stringify(name)} must be a finite number, got ${showValue(value)}`);
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

/** The degree of a postfix condition (see Program.opStart). */
function runPostfix(program: Program, r: number): number {
  const { opStart, ops, opArgs, stack, degrees } = program;
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
      if (op === AND) for (let j = top - count + 1; j < top; j++) value = Math.min(value, stack[j]!);
      else for (let j = top - count + 1; j < top; j++) value = Math.max(value, stack[j]!);
      top -= count - 1;
      stack[top - 1] = value;
    }
  }
  return stack[0]!;
}

/**
 * Strengths below this count as 0: the geometry multiplies degrees by coordinates and by each other,
 * and below about 1e-154 such products leave the range of normal doubles and lose their precision.
 */
const NEGLIGIBLE_STRENGTH = 1e-150;

/**
 * Computes every rule's strength and every output set's inferred degree (max over the rules reaching
 * it). Math.min and Math.max keep a missing input's NaN, so a rule that needs it does not fire.
 */
function fireRules(program: Program): void {
  const { conditionKind, literalStart, literals, degrees, weights, strengths, conclusionStart, conclusionSets, inferred } = program;
  for (let s = 0; s < inferred.length; s++) inferred[s] = 0;
  for (let r = 0; r < strengths.length; r++) {
    const kind = conditionKind[r]!;
    let degree: number;
    if (kind === POSTFIX) {
      degree = runPostfix(program, r);
    } else {
      const end = literalStart[r + 1]!;
      let l = literalStart[r]!;
      let code = literals[l]!;
      degree = code >= 0 ? degrees[code]! : 1 - degrees[~code]!;
      for (l++; l < end; l++) {
        code = literals[l]!;
        const value = code >= 0 ? degrees[code]! : 1 - degrees[~code]!;
        degree = kind === ALL_OF ? Math.min(degree, value) : Math.max(degree, value);
      }
    }
    const strength = degree * weights[r]!;
    if (!(strength >= NEGLIGIBLE_STRENGTH)) {
      strengths[r] = 0;
      continue;
    }
    strengths[r] = strength;
    for (let c = conclusionStart[r]!; c < conclusionStart[r + 1]!; c++) {
      const set = conclusionSets[c]!;
      if (strength > inferred[set]!) inferred[set] = strength;
    }
  }
}

/**
 * Adds the trapezoid under the straight edge from (ua, ya) to (ub, yb), in normalised coordinates
 * (see Program.origins), to sums = [2·area, 6·moment in u, 6·moment in y], and records the edge,
 * in x from xa to xb, when tracing.
 */
function addEdge(sums: Float64Array, corners: number[] | undefined, xa: number, ua: number, ya: number, xb: number, ub: number, yb: number): void {
  const du = ub - ua;
  sums[0]! += du * (ya + yb);
  sums[1]! += du * (ua * (2 * ya + yb) + ub * (ya + 2 * yb));
  sums[2]! += du * (ya * ya + ya * yb + yb * yb);
  corners?.push(xa, ya, xb, yb);
}

/** Appends breakpoint t to breaks[0 .. count − 1] when it lies strictly inside (0, 1); returns the new count. */
function addBreak(breaks: Float64Array, count: number, t: number): number {
  if (t > 0 && t < 1) breaks[count++] = t;
  return count;
}

/** Sorts breaks[1 .. count − 1]: by insertion while few (no allocation), natively when many overlapping sets make many. */
function sortBreaks(breaks: Float64Array, count: number): void {
  if (count > 32) {
    breaks.subarray(1, count).sort();
    return;
  }
  for (let i = 2; i < count; i++) {
    const t = breaks[i]!;
    let j = i;
    for (; breaks[j - 1]! > t; j--) breaks[j] = breaks[j - 1]!;
    breaks[j] = t;
  }
}

/**
 * The envelope on interval k where n > 1 pieces are reached: each is min(its straight degree, its
 * height), so the envelope is straight between clipping kinks and crossings, the breakpoints here.
 * At its own kink a piece is exactly its height, whatever rounding did to the kink's position; a kink
 * that rounds onto the interval's end (a tiny height on a falling piece) becomes a vertical edge there.
 */
function integrateOverlap(program: Program, corners: number[] | undefined, origin: number, inverseScale: number, k: number, n: number): void {
  const { scratchFrom: u0, scratchTo: u1, scratchHeight: h, scratchEndKink: endKink, scratchKinkAt: kinkAt } = program;
  const { scratchBreaks: breaks, sums, inferred } = program;
  let j = 0;
  for (let p = program.pieceStart[k]!; p < program.pieceStart[k + 1]!; p++) {
    const height = inferred[program.pieceSet[p]!]!;
    if (height === 0) continue;
    u0[j] = program.pieceFrom[p]!;
    u1[j] = program.pieceTo[p]!;
    h[j++] = height;
  }
  breaks[0] = 0;
  let count = 1;
  let endKinks = false;
  for (j = 0; j < n; j++) {
    endKink[j] = 0;
    kinkAt[j] = NaN;
    if ((h[j]! - u0[j]!) * (h[j]! - u1[j]!) < 0) {
      const t = (h[j]! - u0[j]!) / (u1[j]! - u0[j]!);
      if (t >= 1) {
        endKink[j] = 1;
        endKinks = true;
      } else if (t > 0) {
        kinkAt[j] = t;
        breaks[count++] = t;
      }
    }
    for (let i = j + 1; i < n; i++) {
      count = addBreak(breaks, count, (u0[i]! - u0[j]!) / (u1[j]! - u0[j]! - (u1[i]! - u0[i]!)));
      count = addBreak(breaks, count, (h[i]! - u0[j]!) / (u1[j]! - u0[j]!));
      count = addBreak(breaks, count, (h[j]! - u0[i]!) / (u1[i]! - u0[i]!));
    }
  }
  sortBreaks(breaks, count);
  const from = program.intervalFrom[k]!;
  const to = program.intervalTo[k]!;
  const uTo = program.intervalUTo[k]!;
  let previousX = from;
  let previousU = program.intervalUFrom[k]!;
  let previousY = 0;
  // the breakpoints, then the interval's end: first with the pieces whose kink rounded onto it at their height
  for (let b = 0; b <= count + 1; b++) {
    if (b === count && !endKinks) continue;
    const t = b < count ? breaks[b]! : 1;
    let y = 0;
    for (j = 0; j < n; j++) {
      const atHeight = b < count ? t === kinkAt[j] : b === count && endKink[j] === 1;
      y = Math.max(y, atHeight ? h[j]! : Math.min((1 - t) * u0[j]! + t * u1[j]!, h[j]!));
    }
    const x = t === 1 ? to : Math.min(from + t * (to - from), to);
    const u = t === 1 ? uTo : (x - origin) * inverseScale;
    if (b > 0) addEdge(sums, corners, previousX, previousU, previousY, x, u, y);
    previousX = x;
    previousU = u;
    previousY = y;
  }
}

/**
 * Integrates output o's envelope interval by interval into program.sums. On an interval one reached
 * piece (the usual case) is min(straight degree, height): one edge, or two around the clipping kink.
 * `corners`, when given, receives every edge as xa, ya, xb, yb; an interval nothing reaches adds y = 0 there.
 */
function integrate(program: Program, o: number, corners: number[] | undefined): void {
  const { intervalStart, intervalFrom, intervalTo, intervalUFrom, intervalUTo, pieceStart, pieceSet, pieceFrom, pieceTo, inferred, sums } = program;
  const origin = program.origins[o]!;
  const inverseScale = program.inverseScales[o]!;
  sums.fill(0);
  for (let k = intervalStart[o]!; k < intervalStart[o + 1]!; k++) {
    let n = 0;
    let only = 0;
    for (let p = pieceStart[k]!; p < pieceStart[k + 1]!; p++) {
      if (inferred[pieceSet[p]!]! === 0) continue;
      only = p;
      n++;
    }
    const from = intervalFrom[k]!;
    const to = intervalTo[k]!;
    if (n === 1) {
      const uFrom = intervalUFrom[k]!;
      const uTo = intervalUTo[k]!;
      const a = pieceFrom[only]!;
      const b = pieceTo[only]!;
      const h = inferred[pieceSet[only]!]!;
      if (a <= h && b <= h) {
        addEdge(sums, corners, from, uFrom, a, to, uTo, b);
      } else if (a >= h && b >= h) {
        addEdge(sums, corners, from, uFrom, h, to, uTo, h);
      } else {
        const t = (h - a) / (b - a);
        const kink = Math.min(from + t * (to - from), to);
        const uKink = (kink - origin) * inverseScale;
        addEdge(sums, corners, from, uFrom, Math.min(a, h), kink, uKink, h);
        addEdge(sums, corners, kink, uKink, h, to, uTo, Math.min(b, h));
      }
    } else if (n > 1) {
      integrateOverlap(program, corners, origin, inverseScale, k, n);
    } else if (corners) {
      corners.push(from, 0, to, 0);
    }
  }
}

/** The highest inferred degree among output o's zero-width sets at spikeX[s], s being the first of them. */
function spikeHeight(program: Program, o: number, s: number): number {
  const { spikeStart, spikeSet, spikeX, inferred } = program;
  let height = 0;
  for (let t = s; t < spikeStart[o + 1]! && spikeX[t] === spikeX[s]; t++) height = Math.max(height, inferred[spikeSet[t]!]!);
  return height;
}

/** The index of output o's first zero-width set to the right of spikeX[s]. */
function nextSpike(program: Program, o: number, s: number): number {
  const { spikeStart, spikeX } = program;
  let t = s;
  while (t < spikeStart[o + 1]! && spikeX[t] === spikeX[s]) t++;
  return t;
}

/**
 * Writes output o's centroid into program.centroid from the sums integrate() left; false when no set
 * was reached. A region of zero area is made of vertical segments only (every reached set has zero
 * width): its centroid is that of those segments, each weighted by its height.
 */
function locateCentroid(program: Program, o: number): boolean {
  const { sums, centroid, spikeStart, spikeU } = program;
  const area2 = sums[0]!;
  if (area2 > 0) {
    centroid[0] = fromNormalised(program, o, sums[1]! / (3 * area2));
    centroid[1] = sums[2]! / (3 * area2);
    return true;
  }
  let weight = 0;
  let momentU = 0;
  let momentY = 0;
  for (let s = spikeStart[o]!; s < spikeStart[o + 1]!; s = nextSpike(program, o, s)) {
    const height = spikeHeight(program, o, s);
    weight += height;
    momentU += height * spikeU[s]!;
    momentY += (height * height) / 2;
  }
  if (!(weight > 0)) return false;
  centroid[0] = fromNormalised(program, o, momentU / weight);
  centroid[1] = momentY / weight;
  return true;
}

/** x = origin + u · scale for output o, kept within its range where rounding would step outside. */
function fromNormalised(program: Program, o: number, u: number): number {
  const origin = program.origins[o]!;
  return Math.min(Math.max(origin + u * program.scales[o]!, origin), program.maxima[o]!);
}

/** Output o's crisp value (centroid x), or NaN when no rule reached it. */
function defuzzify(program: Program, o: number): number {
  integrate(program, o, undefined);
  return locateCentroid(program, o) ? program.centroid[0]! : NaN;
}

function crispOutputs(program: Program): Outputs {
  const crisp: Outputs = {};
  for (let o = 0; o < program.outputNames.length; o++) {
    const value = defuzzify(program, o);
    if (value === value) put(crisp, program.outputNames[o]!, value);
  }
  return crisp;
}

/**
 * Output o's combined polygon: the edges integrate() walks, with reached zero-width sets inserted as
 * spikes at their corner, simplified as it is built, from the last y = 0 before the first rise to
 * the first y = 0 after the last fall. Leaves program.sums set for locateCentroid.
 */
function combinedPolygon(program: Program, o: number): Polygon {
  const { spikeStart, spikeX } = program;
  const edges: number[] = [];
  integrate(program, o, edges);
  const polygon: Polygon = [];
  let floorX = NaN; // the last x on y = 0 before anything rose
  const add = (x: number, y: number) => {
    if (polygon.length === 0) {
      if (y === 0) {
        floorX = x;
        return;
      }
      polygon.push([Number.isNaN(floorX) ? x : floorX, 0]);
    }
    appendPoint(polygon, x, y);
  };
  let e = 0;
  for (let s = spikeStart[o]!; s < spikeStart[o + 1]!; s = nextSpike(program, o, s)) {
    const x = spikeX[s]!;
    const height = spikeHeight(program, o, s);
    // edge ends (odd points) at x come before the spike, edge starts at x after it
    for (; e < edges.length && (edges[e]! < x || (edges[e] === x && e % 4 === 2)); e += 2) add(edges[e]!, edges[e + 1]!);
    if (height > 0) add(x, height);
  }
  for (; e < edges.length; e += 2) add(edges[e]!, edges[e + 1]!);
  while (polygon.length > 2 && polygon.at(-1)![1] === 0 && polygon.at(-2)![1] === 0) polygon.pop();
  const last = polygon.at(-1);
  if (last && last[1] !== 0) appendPoint(polygon, last[0], 0);
  return polygon;
}

function traceOutputs(program: Program): Trace {
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
  for (let i = 0; i < inputNames.length; i++) {
    if (Number.isNaN(degrees[inputSetStart[i]!])) continue;
    const sets: Record<string, number> = {};
    for (let s = inputSetStart[i]!; s < inputSetStart[i + 1]!; s++) put(sets, inputSetNames[s]!, degrees[s]!);
    put(trace.fuzzified, inputNames[i]!, sets);
  }
  for (let o = 0; o < outputNames.length; o++) {
    const name = outputNames[o]!;
    const inferredSets: Record<string, number> = {};
    const clippedSets: Record<string, Polygon> = {};
    let reached = false;
    for (let s = outputSetStart[o]!; s < outputSetStart[o + 1]!; s++) {
      if (!(inferred[s]! > 0)) continue;
      reached = true;
      put(inferredSets, outputSetNames[s]!, inferred[s]!);
      put(clippedSets, outputSetNames[s]!, clipTrapezoid(outputShapes[s]!, inferred[s]!));
    }
    if (!reached) continue;
    const combined = combinedPolygon(program, o);
    put(trace.inferred, name, inferredSets);
    put(trace.clipped, name, clippedSets);
    put(trace.combined, name, combined);
    if (!locateCentroid(program, o)) continue;
    put(trace.centroid, name, [program.centroid[0]!, program.centroid[1]!]);
    put(trace.crisp, name, program.centroid[0]!);
  }
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
  if (options?.trace) return traceOutputs(program);
  return { crisp: crispOutputs(program) };
}

/** Evaluates many inputs at once (the fastest path); an InputError names the item at fault. */
export function evaluateBatch(compiled: CompiledAgent, inputsArray: readonly Inputs[]): Outputs[] {
  const program = compiled[PROGRAM];
  if (!Array.isArray(inputsArray)) throw new InputError(`expected an array of inputs, got ${showValue(inputsArray)}`);
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
  return program.ruleTexts.map((rule, r) => ({ rule, strength: program.strengths[r]! }));
}
