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

/**
 * Writes `values` into `into` at `offset` as shares of each range; a missing value is NaN. With
 * `clamp`, values outside a range count as its nearest end (the engine treats them so, and one
 * wild input must not push every other evaluation out of its neighbourhood).
 */
export function normalise(values: Readonly<Record<string, number>>, scale: Scale, into: Float64Array, offset: number, clamp = false): void {
  scale.names.forEach((name, i) => {
    const share = Object.hasOwn(values, name) ? (values[name]! - scale.min[i]!) / scale.width[i]! : NaN;
    into[offset + i] = clamp ? Math.min(1, Math.max(0, share)) : share;
  });
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

export function datasetOf(log: readonly LoggedEvaluation[], inputs: VariableRanges, outputs: VariableRanges): Dataset {
  const inputScale = scaleOf(inputs);
  const outputScale = scaleOf(outputs);
  const size = log.length;
  const inputCount = inputScale.names.length;
  const outputCount = outputScale.names.length;
  const inputValues = new Float64Array(size * inputCount);
  const returned = new Float64Array(size * outputCount);
  const crisp = new Float64Array(outputCount);
  const metric = new Float64Array(size);
  const squares = new Float64Array(outputCount);
  const density = new Float64Array(size);
  let explored = 0;
  const agentInputs = log.map((entry, i) => {
    normalise(entry.input, inputScale, inputValues, i * inputCount, true);
    density[i] = entry.density ?? NaN;
    normalise(entry.returned ?? entry.crisp, outputScale, returned, i * outputCount);
    normalise(entry.crisp, outputScale, crisp, 0);
    metric[i] = entry.metric;
    let moved = false;
    for (let o = 0; o < outputCount; o++) {
      const difference = returned[i * outputCount + o]! - crisp[o]!;
      if (difference !== 0 && !Number.isNaN(difference)) {
        moved = true;
        squares[o]! += difference * difference;
      }
    }
    if (moved) explored++;
    const own: Record<string, number> = {};
    // own properties only: a missing input named "toString" must not read Object.prototype's
    for (const name of inputScale.names) if (Object.hasOwn(entry.input, name)) own[name] = entry.input[name]!;
    return own;
  });
  const explorationSpread = squares.map((sum) => (explored > 0 ? Math.sqrt(sum / explored) : 0));
  return { size, inputScale, outputScale, inputs: inputValues, returned, metric, agentInputs, explored, explorationSpread, density };
}

/** Squared distance between two rows; a value missing on one side only counts as a whole range apart. */
export function distance2(a: Float64Array, aOffset: number, b: Float64Array, bOffset: number, count: number): number {
  let sum = 0;
  for (let d = 0; d < count; d++) {
    const x = a[aOffset + d]!;
    const y = b[bOffset + d]!;
    const xMissing = x !== x;
    const yMissing = y !== y;
    if (xMissing || yMissing) {
      if (xMissing !== yMissing) sum += 1;
    } else {
      sum += (x - y) * (x - y);
    }
  }
  return sum;
}
