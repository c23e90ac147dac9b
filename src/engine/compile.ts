// compileAgent: validates a definition, expands INCREASES/DECREASES (SPEC 3), and lays the agent out
// in flat typed arrays so that evaluation allocates nothing: input sets and output sets get one flat
// index each, conditions become postfix operations, and every output keeps its sets' pieces per
// interval between consecutive corners, ready for closed-form integration.

import { AgentValidationError } from './errors.js';
import { printRule } from './parse.js';
import { membershipTrapezoid, shapeTrapezoid, type Trapezoid } from './shape.js';
import type {
  AgentDefinition,
  Condition,
  IfRule,
  RuleAst,
  SetDefinition,
  VariableDefinition,
  VariableSummary,
} from './types.js';
import { validateAgent } from './validate.js';

export const PROGRAM = Symbol('fuzzbox.engine.program');

/** How a rule's condition is computed (see Program.conditionKind). */
export const ALL_OF = 0;
export const ANY_OF = 1;
export const POSTFIX = 2;

/** The postfix operations a general condition compiles to. */
export const LOAD = 0;
export const NOT = 1;
export const AND = 2;
export const OR = 3;

/** The flat, preallocated form of an agent that evaluation runs on; internal to the engine. */
export interface Program {
  readonly inputNames: readonly string[];
  /** input i owns input sets inputSetStart[i] .. inputSetStart[i + 1] − 1 */
  readonly inputSetStart: Int32Array;
  readonly inputSetNames: readonly string[];
  /** 4 numbers per input set: its membership trapezoid (shoulders reach to ±Infinity) */
  readonly inputTrapezoids: Float64Array;
  /** scratch: degree per input set, NaN when its input is missing */
  readonly degrees: Float64Array;

  /** the text of each expanded rule: as written, or canonical for an expanded INCREASES/DECREASES */
  readonly ruleTexts: readonly string[];
  /**
   * How rule r's condition is computed: ALL_OF / ANY_OF the literals[literalStart[r]] .. (an input
   * set index s, or ~s for NOT), the common flat case; or POSTFIX: ops[opStart[r]] .., each with its opArg.
   */
  readonly conditionKind: Int32Array;
  readonly literalStart: Int32Array;
  readonly literals: Int32Array;
  readonly opStart: Int32Array;
  readonly ops: Int32Array;
  readonly opArgs: Int32Array;
  readonly stack: Float64Array;
  readonly weights: Float64Array;
  /** rule r reaches output sets conclusionSets[conclusionStart[r]] .. */
  readonly conclusionStart: Int32Array;
  readonly conclusionSets: Int32Array;
  /** scratch: strength per rule; inferred degree per output set */
  readonly strengths: Float64Array;
  readonly inferred: Float64Array;

  readonly outputNames: readonly string[];
  readonly outputSetStart: Int32Array;
  readonly outputSetNames: readonly string[];
  readonly outputShapes: readonly Trapezoid[];
  /**
   * Each output's range minimum, and the power of two nearest above its width (see powerOfTwoScale):
   * the envelope is integrated in normalised coordinates u = (x − origin) · inverseScale, within
   * [0, 2), so that moments neither overflow at ±1e308 nor underflow at 1e-300; the centroid is
   * mapped back to origin + ū · scale. Scaling by a power of two is exact, so on ordinary ranges the
   * result is the very number integrating in x (about the origin) gives.
   */
  readonly origins: Float64Array;
  readonly scales: Float64Array;
  readonly inverseScales: Float64Array;
  /** each output's range maximum, which a centroid rounded beyond it is kept to */
  readonly maxima: Float64Array;
  /** output o owns intervals intervalStart[o] .. intervalStart[o + 1] − 1, from left to right */
  readonly intervalStart: Int32Array;
  /** interval k spans [intervalFrom[k], intervalTo[k]], which is [intervalUFrom[k], intervalUTo[k]] normalised */
  readonly intervalFrom: Float64Array;
  readonly intervalTo: Float64Array;
  readonly intervalUFrom: Float64Array;
  readonly intervalUTo: Float64Array;
  /** interval k has pieces pieceStart[k] .. : output set pieceSet, degree pieceFrom at its left end, pieceTo at its right */
  readonly pieceStart: Int32Array;
  readonly pieceSet: Int32Array;
  readonly pieceFrom: Float64Array;
  readonly pieceTo: Float64Array;
  /** output o's zero-width sets: spikeStart[o] .. ; spike s is output set spikeSet[s] at spikeX[s] (spikeU[s] normalised), sorted by x */
  readonly spikeStart: Int32Array;
  readonly spikeSet: Int32Array;
  readonly spikeX: Float64Array;
  readonly spikeU: Float64Array;
  /** scratch for integrating one interval: piece degrees and breakpoints */
  readonly scratchFrom: Float64Array;
  readonly scratchTo: Float64Array;
  readonly scratchHeight: Float64Array;
  readonly scratchBreaks: Float64Array;
  /** per piece: where its clipping kink lies in the interval (0..1), or NaN; 1 when its kink rounded onto the end */
  readonly scratchKinkAt: Float64Array;
  readonly scratchEndKink: Uint8Array;
  /** scratch: [2·area, 6·moment in u, 6·moment in y] of the envelope being integrated, and its centroid (in x) */
  readonly sums: Float64Array;
  readonly centroid: Float64Array;
}

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
  /** @internal */
  readonly [PROGRAM]: Program;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A record built with defined properties, so that a name such as "__proto__" stays an ordinary key. */
export function record<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** min..max over all points of all the sets (with loops: spreading many points into Math.min overflows the stack). */
function range(sets: VariableDefinition): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const points of Object.values(sets)) {
    for (const point of points) {
      if (point < min) min = point;
      if (point > max) max = point;
    }
  }
  return [min, max];
}

function summarize(variables: Record<string, VariableDefinition>): Record<string, VariableSummary> {
  return record(
    Object.entries(variables).map(([name, sets]) => [name, { range: range(sets), sets: Object.keys(sets) }] as const),
  );
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

/** Flat indices of every set of every variable, in definition order. */
function indexSets(variables: Record<string, VariableDefinition>) {
  const names = Object.keys(variables);
  const start = new Int32Array(names.length + 1);
  const setNames: string[] = [];
  const points: SetDefinition[] = [];
  const ranges: Array<[number, number]> = [];
  const index = new Map<string, Map<string, number>>();
  names.forEach((name, i) => {
    start[i] = setNames.length;
    const sets = variables[name]!;
    const variableRange = range(sets);
    const byName = new Map<string, number>();
    for (const [setName, setPoints] of Object.entries(sets)) {
      byName.set(setName, setNames.length);
      setNames.push(setName);
      points.push(setPoints);
      ranges.push(variableRange);
    }
    index.set(name, byName);
  });
  start[names.length] = setNames.length;
  return { names, start, setNames, points, ranges, index };
}

/** A condition that is one literal, or an AND or OR of literals, as literal codes (s, or ~s for NOT s). */
function literalsOf(condition: Condition, index: Map<string, Map<string, number>>): number[] | undefined {
  const literal = (term: Condition): number | undefined => {
    if (term.type === 'is') return index.get(term.variable)!.get(term.set)!;
    if (term.type === 'not' && term.operand.type === 'is') return ~index.get(term.operand.variable)!.get(term.operand.set)!;
    return undefined;
  };
  const terms = condition.type === 'and' || condition.type === 'or' ? condition.operands : [condition];
  const codes = terms.map(literal);
  return codes.every((code) => code !== undefined) ? (codes as number[]) : undefined;
}

function compileCondition(condition: Condition, index: Map<string, Map<string, number>>, ops: number[], args: number[]): number {
  switch (condition.type) {
    case 'is':
      ops.push(LOAD);
      args.push(index.get(condition.variable)!.get(condition.set)!);
      return 1;
    case 'not': {
      const depth = compileCondition(condition.operand, index, ops, args);
      ops.push(NOT);
      args.push(0);
      return depth;
    }
    case 'and':
    case 'or': {
      let depth = 0;
      condition.operands.forEach((operand, i) => {
        depth = Math.max(depth, i + compileCondition(operand, index, ops, args));
      });
      ops.push(condition.type === 'and' ? AND : OR);
      args.push(condition.operands.length);
      return depth;
    }
  }
}

/**
 * The power of two at or above `width`, kept within 2^-1022 .. 2^1023 so that it and its inverse
 * are both doubles (a width above 2^1023 then normalises into [0, 2)); 1 for a width of 0.
 */
function powerOfTwoScale(width: number): number {
  if (width === 0) return 1;
  let scale = 1;
  while (scale < width && scale < 2 ** 1023) scale *= 2;
  while (scale / 2 >= width && scale > 2 ** -1022) scale /= 2;
  return scale;
}

/** Degrees of a trapezoid at both ends of [from, to], on which it is one straight piece. */
function pieceDegrees([a, b, c, d]: Trapezoid, from: number, to: number): [number, number] {
  const middle = from + (to - from) / 2; // from + to overflows near ±1.7e308
  if (middle < b) return [(from - a) / (b - a), (to - a) / (b - a)];
  if (middle <= c) return [1, 1];
  return [(d - from) / (d - c), (d - to) / (d - c)];
}

function layOutOutputs(shapes: readonly Trapezoid[], start: Int32Array, outputCount: number) {
  const origins = new Float64Array(outputCount);
  const scales = new Float64Array(outputCount);
  const inverseScales = new Float64Array(outputCount);
  const maxima = new Float64Array(outputCount);
  const intervalStart = new Int32Array(outputCount + 1);
  const intervalFrom: number[] = [];
  const intervalTo: number[] = [];
  const intervalUFrom: number[] = [];
  const intervalUTo: number[] = [];
  const pieceStart: number[] = [];
  const pieceSet: number[] = [];
  const pieceFrom: number[] = [];
  const pieceTo: number[] = [];
  const spikeStart = new Int32Array(outputCount + 1);
  const spikeSet: number[] = [];
  const spikeX: number[] = [];
  const spikeU: number[] = [];
  let mostPieces = 1;
  for (let o = 0; o < outputCount; o++) {
    const sets: number[] = [];
    for (let s = start[o]!; s < start[o + 1]!; s++) sets.push(s);
    const corners = [...new Set(sets.flatMap((s) => shapes[s]!))].sort((p, q) => p - q);
    const origin = corners[0]!;
    const maximum = corners[corners.length - 1]!;
    const scale = powerOfTwoScale(maximum - origin);
    const inverse = 1 / scale;
    const normalise = (x: number) => (x - origin) * inverse;
    origins[o] = origin;
    scales[o] = scale;
    inverseScales[o] = inverse;
    maxima[o] = maximum;
    intervalStart[o] = intervalFrom.length;
    for (let k = 0; k + 1 < corners.length; k++) {
      const from = corners[k]!;
      const to = corners[k + 1]!;
      intervalFrom.push(from);
      intervalTo.push(to);
      intervalUFrom.push(normalise(from));
      intervalUTo.push(normalise(to));
      pieceStart.push(pieceSet.length);
      for (const s of sets) {
        const shape = shapes[s]!;
        if (shape[0] >= to || shape[3] <= from) continue;
        const [degreeFrom, degreeTo] = pieceDegrees(shape, from, to);
        pieceSet.push(s);
        pieceFrom.push(degreeFrom);
        pieceTo.push(degreeTo);
      }
      mostPieces = Math.max(mostPieces, pieceSet.length - pieceStart[pieceStart.length - 1]!);
    }
    spikeStart[o] = spikeSet.length;
    const spikes = sets.filter((s) => shapes[s]![0] === shapes[s]![3]).sort((p, q) => shapes[p]![0] - shapes[q]![0]);
    for (const s of spikes) {
      spikeSet.push(s);
      spikeX.push(shapes[s]![0]);
      spikeU.push(normalise(shapes[s]![0]));
    }
  }
  intervalStart[outputCount] = intervalFrom.length;
  spikeStart[outputCount] = spikeSet.length;
  pieceStart.push(pieceSet.length);
  // breakpoints of one interval: its start, one clipping kink per piece, three crossings per pair
  // (mostPieces ≤ MAX_SETS, so at most 14,951 of them)
  const breakCapacity = 1 + mostPieces + (3 * mostPieces * (mostPieces - 1)) / 2;
  return {
    origins,
    scales,
    inverseScales,
    maxima,
    intervalStart,
    intervalFrom: Float64Array.from(intervalFrom),
    intervalTo: Float64Array.from(intervalTo),
    intervalUFrom: Float64Array.from(intervalUFrom),
    intervalUTo: Float64Array.from(intervalUTo),
    pieceStart: Int32Array.from(pieceStart),
    pieceSet: Int32Array.from(pieceSet),
    pieceFrom: Float64Array.from(pieceFrom),
    pieceTo: Float64Array.from(pieceTo),
    spikeStart,
    spikeSet: Int32Array.from(spikeSet),
    spikeX: Float64Array.from(spikeX),
    spikeU: Float64Array.from(spikeU),
    scratchFrom: new Float64Array(mostPieces),
    scratchTo: new Float64Array(mostPieces),
    scratchHeight: new Float64Array(mostPieces),
    scratchBreaks: new Float64Array(breakCapacity),
    scratchKinkAt: new Float64Array(mostPieces),
    scratchEndKink: new Uint8Array(mostPieces),
    sums: new Float64Array(3),
    centroid: new Float64Array(2),
  };
}

/** Validates and compiles an agent; throws AgentValidationError listing every problem found. */
export function compileAgent(definition: AgentDefinition): CompiledAgent {
  const result = validateAgent(definition);
  if (!('agent' in result)) throw new AgentValidationError(result.issues);
  const { agent } = result;
  const frozen = deepFreeze({
    inputs: record(Object.entries(agent.inputs).map(([n, sets]) => [n, record(Object.entries(sets).map(([s, p]) => [s, [...p]]))])),
    outputs: record(Object.entries(agent.outputs).map(([n, sets]) => [n, record(Object.entries(sets).map(([s, p]) => [s, [...p]]))])),
    rules: [...agent.rules],
  }) as AgentDefinition & ValidDefinition;
  const parsedRules = deepFreeze(agent.parsedRules);

  const expanded = parsedRules.flatMap((ast, i) => expand(ast, agent.rules[i]!, frozen));
  const inputSets = indexSets(frozen.inputs);
  const outputSets = indexSets(frozen.outputs);

  const inputTrapezoids = new Float64Array(4 * inputSets.setNames.length);
  inputSets.points.forEach((points, s) => inputTrapezoids.set(membershipTrapezoid(points, inputSets.ranges[s]!), 4 * s));
  const outputShapes = outputSets.points.map((points, s) => shapeTrapezoid(points, outputSets.ranges[s]!));

  const ops: number[] = [];
  const opArgs: number[] = [];
  const conditionKind = new Int32Array(expanded.length);
  const literalStart = new Int32Array(expanded.length + 1);
  const literals: number[] = [];
  const opStart = new Int32Array(expanded.length + 1);
  const conclusionStart = new Int32Array(expanded.length + 1);
  const conclusionSets: number[] = [];
  let depth = 1;
  expanded.forEach(({ rule }, r) => {
    opStart[r] = ops.length;
    literalStart[r] = literals.length;
    const flat = literalsOf(rule.condition, inputSets.index);
    if (flat) {
      conditionKind[r] = rule.condition.type === 'or' ? ANY_OF : ALL_OF;
      for (const code of flat) literals.push(code);
    } else {
      conditionKind[r] = POSTFIX;
      depth = Math.max(depth, compileCondition(rule.condition, inputSets.index, ops, opArgs));
    }
    conclusionStart[r] = conclusionSets.length;
    for (const { variable, set } of rule.conclusions) conclusionSets.push(outputSets.index.get(variable)!.get(set)!);
  });
  opStart[expanded.length] = ops.length;
  literalStart[expanded.length] = literals.length;
  conclusionStart[expanded.length] = conclusionSets.length;

  const program: Program = {
    inputNames: inputSets.names,
    inputSetStart: inputSets.start,
    inputSetNames: inputSets.setNames,
    inputTrapezoids,
    degrees: new Float64Array(inputSets.setNames.length),
    ruleTexts: expanded.map(({ text }) => text),
    conditionKind,
    literalStart,
    literals: Int32Array.from(literals),
    opStart,
    ops: Int32Array.from(ops),
    opArgs: Int32Array.from(opArgs),
    stack: new Float64Array(depth),
    weights: Float64Array.from(expanded, ({ rule }) => rule.weight),
    conclusionStart,
    conclusionSets: Int32Array.from(conclusionSets),
    strengths: new Float64Array(expanded.length),
    inferred: new Float64Array(outputSets.setNames.length),
    outputNames: outputSets.names,
    outputSetStart: outputSets.start,
    outputSetNames: outputSets.setNames,
    outputShapes,
    ...layOutOutputs(outputShapes, outputSets.start, outputSets.names.length),
  };

  return Object.freeze({
    definition: frozen,
    parsedRules,
    expandedRules: deepFreeze(expanded.map(({ rule }) => rule)),
    inputs: deepFreeze(summarize(frozen.inputs)),
    outputs: deepFreeze(summarize(frozen.outputs)),
    [PROGRAM]: program,
  });
}
