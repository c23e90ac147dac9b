import type { Inputs, Outputs } from '../engine/types.js';

/** One evaluation from the log, joined with the value its feedback gave the metric. */
export interface LoggedEvaluation {
  readonly input: Inputs;
  /** what the engine computed */
  readonly crisp: Outputs;
  /** what the app actually received when it explored; the same as `crisp` when absent */
  readonly returned?: Outputs;
  /** the metric's value posted as feedback on this evaluation */
  readonly metric: number;
  /** the density `returned` was drawn with (autopilot's logs), in shares of each output's range */
  readonly density?: number;
}

export type VariableRanges = Readonly<Record<string, { readonly range: readonly [number, number] }>>;

/** Variables in a fixed order, with what turns a value into a share of the variable's range. */
export interface Scale {
  readonly names: readonly string[];
  readonly min: Float64Array;
  readonly width: Float64Array;
}

export function scaleOf(variables: VariableRanges): Scale {
  const names = Object.keys(variables);
  const min = new Float64Array(names.length);
  const width = new Float64Array(names.length);
  names.forEach((name, i) => {
    const [low, high] = variables[name]!.range;
    min[i] = low;
    width[i] = high > low ? high - low : 1;
  });
  return { names, min, width };
}

/** Writes `values` into `into` at `offset` as shares of each range; a missing value is NaN. */
export function normalise(values: Readonly<Record<string, number>>, scale: Scale, into: Float64Array, offset: number): void {
  scale.names.forEach((name, i) => {
    into[offset + i] = Object.hasOwn(values, name) ? (values[name]! - scale.min[i]!) / scale.width[i]! : NaN;
  });
}

/**
 * The log as columns, with no object per evaluation (what the store reads, docs/LEARNING.md, "What
 * learning reads"): each evaluation's numbers in the order of `inputNames` and `outputNames`, in
 * the variables' own units, NaN where a value is missing.
 */
export interface LogColumns {
  readonly size: number;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** size × inputNames */
  readonly inputs: Float64Array;
  /** size × outputNames: what the engine computed */
  readonly crisp: Float64Array;
  /** size × outputNames: what the app received (the same as `crisp` where it did not explore) */
  readonly returned: Float64Array;
  /** the density `returned` was drawn with, NaN where none was logged */
  readonly density: Float64Array;
  readonly metric: Float64Array;
}

/** Objects to columns, in the order of the names given. */
export function columnsOf(log: readonly LoggedEvaluation[], inputNames: readonly string[], outputNames: readonly string[]): LogColumns {
  const size = log.length;
  const row = (values: Readonly<Record<string, number>>, names: readonly string[], into: Float64Array, offset: number) =>
    names.forEach((name, i) => (into[offset + i] = Object.hasOwn(values, name) ? values[name]! : NaN));
  const columns = {
    size,
    inputNames,
    outputNames,
    inputs: new Float64Array(size * inputNames.length),
    crisp: new Float64Array(size * outputNames.length),
    returned: new Float64Array(size * outputNames.length),
    density: new Float64Array(size),
    metric: new Float64Array(size),
  };
  log.forEach((entry, i) => {
    row(entry.input, inputNames, columns.inputs, i * inputNames.length);
    row(entry.crisp, outputNames, columns.crisp, i * outputNames.length);
    row(entry.returned ?? entry.crisp, outputNames, columns.returned, i * outputNames.length);
    columns.density[i] = entry.density ?? NaN;
    columns.metric[i] = entry.metric;
  });
  return columns;
}

/** The rows at `indices`, in that order. */
export function rowsOf(columns: LogColumns, indices: ArrayLike<number>): LogColumns {
  const pick = (from: Float64Array, width: number) => {
    const into = new Float64Array(indices.length * width);
    for (let i = 0; i < indices.length; i++) into.set(from.subarray(indices[i]! * width, (indices[i]! + 1) * width), i * width);
    return into;
  };
  const inputCount = columns.inputNames.length;
  const outputCount = columns.outputNames.length;
  return {
    size: indices.length,
    inputNames: columns.inputNames,
    outputNames: columns.outputNames,
    inputs: pick(columns.inputs, inputCount),
    crisp: pick(columns.crisp, outputCount),
    returned: pick(columns.returned, outputCount),
    density: pick(columns.density, 1),
    metric: pick(columns.metric, 1),
  };
}

/** The log in flat arrays, every value as a share of its variable's range (NaN = missing). */
export interface Dataset {
  readonly size: number;
  readonly inputScale: Scale;
  readonly outputScale: Scale;
  /** size × inputs */
  readonly inputs: Float64Array;
  /** size × outputs: what was returned */
  readonly returned: Float64Array;
  readonly metric: Float64Array;
  /** the logged inputs restricted to the agent's own input names, ready to evaluate */
  readonly agentInputs: readonly Inputs[];
  /** how many evaluations returned something other than `crisp` */
  readonly explored: number;
  /** per output: root mean square of returned − crisp over the explored evaluations (share of range) */
  readonly explorationSpread: Float64Array;
  /** the logged density of each returned answer, NaN where none was logged */
  readonly density: Float64Array;
}

/** Where each of `names` is among `columns` (−1: not logged). */
const placesOf = (names: readonly string[], columns: readonly string[]) => names.map((name) => columns.indexOf(name));

export function datasetOf(log: LogColumns | readonly LoggedEvaluation[], inputs: VariableRanges, outputs: VariableRanges): Dataset {
  const inputScale = scaleOf(inputs);
  const outputScale = scaleOf(outputs);
  const columns = Array.isArray(log) ? columnsOf(log, inputScale.names, outputScale.names) : (log as LogColumns);
  const { size } = columns;
  const inputCount = inputScale.names.length;
  const outputCount = outputScale.names.length;
  const inputPlaces = placesOf(inputScale.names, columns.inputNames);
  const outputPlaces = placesOf(outputScale.names, columns.outputNames);
  const loggedInputs = columns.inputNames.length;
  const loggedOutputs = columns.outputNames.length;
  const inputValues = new Float64Array(size * inputCount);
  const returned = new Float64Array(size * outputCount);
  const squares = new Float64Array(outputCount);
  const agentInputs: Inputs[] = new Array(size);
  let explored = 0;
  for (let i = 0; i < size; i++) {
    // own properties only, and only the agent's inputs: they are what the engine is given
    const own: Record<string, number> = {};
    for (let d = 0; d < inputCount; d++) {
      const value = inputPlaces[d]! < 0 ? NaN : columns.inputs[i * loggedInputs + inputPlaces[d]!]!;
      if (value === value) own[inputScale.names[d]!] = value;
      // values outside a range count as its nearest end (the engine treats them so, and one wild
      // input must not push every other evaluation out of its neighbourhood)
      inputValues[i * inputCount + d] = Math.min(1, Math.max(0, (value - inputScale.min[d]!) / inputScale.width[d]!));
    }
    agentInputs[i] = own;
    let moved = false;
    for (let o = 0; o < outputCount; o++) {
      const place = outputPlaces[o]!;
      const toShare = (value: number) => (value - outputScale.min[o]!) / outputScale.width[o]!;
      const answer = place < 0 ? NaN : toShare(columns.returned[i * loggedOutputs + place]!);
      const crisp = place < 0 ? NaN : toShare(columns.crisp[i * loggedOutputs + place]!);
      returned[i * outputCount + o] = answer;
      const difference = answer - crisp;
      if (difference !== 0 && !Number.isNaN(difference)) {
        moved = true;
        squares[o]! += difference * difference;
      }
    }
    if (moved) explored++;
  }
  const explorationSpread = squares.map((sum) => (explored > 0 ? Math.sqrt(sum / explored) : 0));
  return {
    size,
    inputScale,
    outputScale,
    inputs: inputValues,
    returned,
    // a copy: the optimizer pulls in heavy tails in place, the columns keep what was posted
    metric: Float64Array.from(columns.metric),
    agentInputs,
    explored,
    explorationSpread,
    density: columns.density,
  };
}

/** The rows at `indices` as objects, for code that takes LoggedEvaluation (a few thousand at most). */
export function loggedOf(columns: LogColumns, indices: ArrayLike<number>): LoggedEvaluation[] {
  const record = (names: readonly string[], from: Float64Array, row: number) => {
    const values: Record<string, number> = {};
    names.forEach((name, i) => {
      const value = from[row * names.length + i]!;
      if (value === value) values[name] = value;
    });
    return values;
  };
  return Array.from(indices, (row) => {
    const density = columns.density[row]!;
    return {
      input: record(columns.inputNames, columns.inputs, row),
      crisp: record(columns.outputNames, columns.crisp, row),
      returned: record(columns.outputNames, columns.returned, row),
      metric: columns.metric[row]!,
      ...(density === density ? { density } : {}),
    };
  });
}
