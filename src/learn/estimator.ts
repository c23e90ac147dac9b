import type { Dataset } from './dataset.js';
import type { Neighbourhoods } from './neighbours.js';
import { POINTS_PER_BLOCK, type Pause } from './slices.js';
import { mean } from './statistics.js';

/**
 * How much the local mean counts, in evaluations, against the evaluations whose returned outputs lie
 * near a candidate's: where the log says nothing about an output, the estimate falls back to what
 * the neighbourhood earned on average instead of trusting one far-away evaluation.
 */
export const PRIOR_WEIGHT = 1;

export interface Bandwidths {
  /** input-space bandwidth, as a share of the input ranges */
  readonly input: number;
  /** per output: bandwidth as a share of that output's range */
  readonly output: Float64Array;
}

/**
 * The slopes' ridge, in evaluations × (output bandwidth)²: a neighbourhood whose answers barely
 * vary keeps its slope near 0, so the estimate falls back towards the kernel mean instead of
 * extrapolating a noisy line.
 */
export const SLOPE_RIDGE = 0.1;

/**
 * The intercept β₀ of the weighted least-squares line from its normal equations (dims × dims,
 * row-major; both arrays and `solution` are overwritten), each slope's diagonal raised by
 * `ridge[o]` × the total weight. Gaussian elimination without pivoting: the matrix is symmetric positive definite.
 */
function interceptOf(normal: Float64Array, right: Float64Array, dims: number, ridge: Float64Array, solution: Float64Array): number {
  const total = normal[0]!;
  for (let o = 1; o < dims; o++) normal[o * dims + o]! += ridge[o - 1]! * total;
  for (let c = 0; c < dims; c++) {
    const pivot = normal[c * dims + c]!;
    for (let r = c + 1; r < dims; r++) {
      const factor = normal[r * dims + c]! / pivot;
      if (factor === 0) continue;
      for (let b = c; b < dims; b++) normal[r * dims + b]! -= factor * normal[c * dims + b]!;
      right[r]! -= factor * right[c]!;
    }
  }
  for (let r = dims - 1; r >= 0; r--) {
    let sum = right[r]!;
    for (let b = r + 1; b < dims; b++) sum -= normal[r * dims + b]! * solution[b]!;
    solution[r] = sum / normal[r * dims + r]!;
  }
  return solution[0]!;
}

/**
 * Local-linear estimate of the metric an agent would earn at the logged inputs, from the
 * evaluations whose inputs are near (Gaussian kernel in input space, over each point's k nearest
 * neighbours) and whose returned outputs are near the outputs the agent would give (Gaussian kernel
 * in output space): the intercept of a line in the returned outputs fitted with those weights, plus
 * PRIOR_WEIGHT evaluations earning the neighbourhood's mean at the answer itself. A line, not a
 * kernel mean (Nadaraya–Watson): at the edge of what the log returned, a mean is pulled back
 * towards the answers on the inside, so a table cell whose best answer lies beyond them looked no
 * better there than where it was; a line is pulled back about half as far (estimator.test.ts).
 * Further out the weights fade and the prior takes over.
 */
export class MetricEstimator {
  readonly #ridge: Float64Array;
  readonly #data: Dataset;
  readonly #hoods: Neighbourhoods;
  readonly #inputWeight: Float64Array;
  readonly #localMean: Float64Array;
  readonly #outputFactor: Float64Array;
  readonly bandwidths: Bandwidths;

  /** `recency`, when given, weighs each logged evaluation on top of the kernels (forgetting: see optimizeAgent's halfLife). */
  constructor(data: Dataset, hoods: Neighbourhoods, bandwidths: Bandwidths, recency?: Float64Array) {
    this.bandwidths = bandwidths;
    this.#data = data;
    this.#hoods = hoods;
    const { k, points } = hoods;
    this.#inputWeight = hoods.distance2.map((d, n) => Math.exp(-d / (2 * bandwidths.input ** 2)) * (recency ? recency[hoods.index[n]!]! : 1));
    this.#localMean = new Float64Array(points.length);
    for (let p = 0; p < points.length; p++) {
      let sum = 0;
      let weight = 0;
      for (let n = p * k; n < (p + 1) * k; n++) {
        const w = this.#inputWeight[n]!;
        sum += w * data.metric[hoods.index[n]!]!;
        weight += w;
      }
      // every input weight underflowed (a bandwidth far below the distances): the neighbours'
      // plain mean, never the point's own metric, which cross-validation and cross-fitting hold out
      this.#localMean[p] = weight > 0 ? sum / weight : mean(Array.from(hoods.index.subarray(p * k, (p + 1) * k), (j) => data.metric[j]!));
    }
    this.#outputFactor = bandwidths.output.map((h) => 1 / (2 * h * h));
    this.#ridge = bandwidths.output.map((h) => SLOPE_RIDGE * h * h);
  }

  /**
   * The estimated metric at each point, for `outputs` (points × outputs, shares of range, NaN =
   * none); with `only`, at those points (indices into the neighbourhoods' points) only, `outputs`
   * then holding one row per index of `only`. `slopes`, when given, receives the fitted line's
   * slopes β_o at each point (metric per share of output o's range), one row per point.
   */
  estimateEach(outputs: Float64Array, only?: Int32Array, slopes?: Float64Array): Float64Array {
    const { k, index } = this.#hoods;
    const outputCount = this.#outputFactor.length;
    const returned = this.#data.returned;
    const metric = this.#data.metric;
    const count = only ? only.length : this.#hoods.points.length;
    const estimates = new Float64Array(count);
    // the weighted least-squares fit metric ≈ β₀ + Σ β_o (returned_o − answer_o): its normal
    // equations, and each neighbour's regressors (1, then the offsets)
    const dims = outputCount + 1;
    const normal = new Float64Array(dims * dims);
    const right = new Float64Array(dims);
    const offset = new Float64Array(dims);
    const solution = new Float64Array(dims);
    offset[0] = 1;
    for (let row = 0; row < count; row++) {
      const p = only ? only[row]! : row;
      normal.fill(0);
      right.fill(0);
      // the prior: PRIOR_WEIGHT evaluations earning the local mean at the answer itself
      normal[0] = PRIOR_WEIGHT;
      right[0] = PRIOR_WEIGHT * this.#localMean[p]!;
      for (let n = p * k; n < (p + 1) * k; n++) {
        const j = index[n]!;
        let exponent = 0;
        for (let o = 0; o < outputCount; o++) {
          const y = outputs[row * outputCount + o]!;
          const r = returned[j * outputCount + o]!;
          const yMissing = y !== y;
          if (yMissing || r !== r) {
            if (yMissing !== (r !== r)) exponent = Infinity;
            offset[o + 1] = 0;
          } else {
            exponent += (y - r) * (y - r) * this.#outputFactor[o]!;
            offset[o + 1] = r - y;
          }
        }
        if (exponent === Infinity) continue;
        const w = this.#inputWeight[n]! * Math.exp(-exponent);
        if (!(w > 0)) continue;
        const value = metric[j]!;
        for (let a = 0; a < dims; a++) {
          const wa = w * offset[a]!;
          right[a]! += wa * value;
          for (let b = 0; b < dims; b++) normal[a * dims + b]! += wa * offset[b]!;
        }
      }
      estimates[row] = interceptOf(normal, right, dims, this.#ridge, solution);
      if (slopes) for (let o = 0; o < outputCount; o++) slopes[row * outputCount + o] = solution[o + 1]!;
    }
    return estimates;
  }

  /** estimateEach at every point, a block of points at a time, awaiting `pause` before each block. */
  async estimateEachInSlices(outputs: Float64Array, pause: Pause): Promise<Float64Array> {
    const count = this.#hoods.points.length;
    const outputCount = this.#outputFactor.length;
    const estimates = new Float64Array(count);
    for (let first = 0; first < count; first += POINTS_PER_BLOCK) {
      await pause();
      const only = Int32Array.from({ length: Math.min(POINTS_PER_BLOCK, count - first) }, (_, i) => first + i);
      estimates.set(this.estimateEach(outputs.subarray(first * outputCount, (first + only.length) * outputCount), only), first);
    }
    return estimates;
  }

  estimate(outputs: Float64Array): number {
    return mean(this.estimateEach(outputs));
  }
}

/** The logged returned outputs at the estimation points, points × outputs. */
export function returnedAtPoints(data: Dataset, points: Int32Array): Float64Array {
  const outputCount = data.outputScale.names.length;
  const outputs = new Float64Array(points.length * outputCount);
  points.forEach((point, p) => outputs.set(data.returned.subarray(point * outputCount, (point + 1) * outputCount), p * outputCount));
  return outputs;
}

const MULTIPLIERS = [0.25, 0.5, 1, 2];

/**
 * Picks bandwidths by leave-one-out cross-validation: each point's own metric is predicted from its
 * neighbours (never itself) at the outputs it actually returned, over a small grid of multiples of
 * the typical neighbour distance (inputs) and of the exploration spread (outputs). `pause` is
 * awaited between blocks of points.
 */
export async function chooseBandwidths(data: Dataset, hoods: Neighbourhoods, recency?: Float64Array, pause: Pause = async () => {}): Promise<Bandwidths> {
  const { k, points } = hoods;
  const typical = new Float64Array(points.length);
  for (let p = 0; p < points.length; p++) typical[p] = Math.sqrt(hoods.distance2[p * k + (k >> 1)] ?? 0);
  typical.sort();
  const inputBase = Math.max(typical[typical.length >> 1] ?? 0, 1e-3);
  const outputBase = data.explorationSpread.map((spread) => Math.max(spread, 0.01));
  const observed = returnedAtPoints(data, points);
  let best: Bandwidths = { input: inputBase, output: outputBase };
  let bestError = Infinity;
  for (const inputMultiplier of MULTIPLIERS) {
    for (const outputMultiplier of MULTIPLIERS) {
      const bandwidths = { input: inputBase * inputMultiplier, output: outputBase.map((h) => h * outputMultiplier) };
      const predicted = await new MetricEstimator(data, hoods, bandwidths, recency).estimateEachInSlices(observed, pause);
      let error = 0;
      points.forEach((point, p) => (error += (predicted[p]! - data.metric[point]!) ** 2));
      if (error < bestError) {
        bestError = error;
        best = bandwidths;
      }
    }
  }
  return best;
}
