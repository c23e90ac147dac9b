import type { Dataset } from './dataset.js';
import { MetricEstimator, type Bandwidths } from './estimator.js';
import { nearestNeighbours } from './neighbours.js';
import { shuffle, type Random } from './random.js';

/** A weight 1/density is clipped here: a rare answer must not decide the estimate alone. */
export const MAX_WEIGHT = 20;
/** Blocks of the median of means. */
const BLOCKS = 8;
const NEIGHBOURS = 64;

export interface Interval {
  readonly value: number;
  /** 95% confidence interval (normal approximation around the median of means) */
  readonly low: number;
  readonly high: number;
}

export interface OffPolicyEstimate {
  readonly before: Interval;
  readonly after: Interval;
  readonly gain: Interval;
  /** evaluations whose logged density entered the correction term */
  readonly weighted: number;
}

/** The median of the means of BLOCKS interleaved blocks, and a normal 95% interval of the plain mean's spread around it. */
function robustMean(values: Float64Array): Interval {
  const n = values.length;
  const sums = new Float64Array(BLOCKS);
  const counts = new Float64Array(BLOCKS);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sums[i % BLOCKS]! += values[i]!;
    counts[i % BLOCKS]! += 1;
    sum += values[i]!;
  }
  const means = Array.from(sums, (s, b) => s / counts[b]!).filter(Number.isFinite).sort((a, b) => a - b);
  const middle = means.length >> 1;
  const value = means.length % 2 ? means[middle]! : (means[middle - 1]! + means[middle]!) / 2;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i]! - mean) ** 2;
  const half = 1.96 * Math.sqrt(squares / Math.max(1, n - 1) / n);
  return { value, low: value - half, high: value + half };
}

/**
 * Doubly robust, cross-fitted estimates of the mean metric two deterministic agents would earn on
 * the logged inputs: the kernel model m̂ (fitted on the other half of the log) at the agent's
 * answer, plus, where the log recorded the density p the answer was drawn with, the correction
 * w · (r − m̂(x, returned)) with w = K_h(returned − answer) / p clipped at MAX_WEIGHT. Means are
 * medians of means (heavy tails). `before`/`after` are points × outputs in shares of range, for
 * every evaluation of `data`.
 */
export function offPolicyEstimate(data: Dataset, bandwidths: Bandwidths, before: Float64Array, after: Float64Array, random: Random): OffPolicyEstimate {
  const outputCount = data.outputScale.names.length;
  const order = shuffle(Array.from({ length: data.size }, (_, i) => i), random);
  const halves = [Int32Array.from(order.filter((_, i) => i % 2 === 0)), Int32Array.from(order.filter((_, i) => i % 2 === 1))];
  const scores = { before: new Float64Array(data.size), after: new Float64Array(data.size) };
  let weighted = 0;
  halves.forEach((points, h) => {
    const hoods = nearestNeighbours(data, points, NEIGHBOURS, halves[1 - h]!);
    const model = new MetricEstimator(data, hoods, bandwidths);
    const at = (answers: Float64Array) => {
      const rows = new Float64Array(points.length * outputCount);
      points.forEach((point, p) => rows.set(answers.subarray(point * outputCount, (point + 1) * outputCount), p * outputCount));
      return model.estimateEach(rows);
    };
    const observed = at(data.returned);
    for (const [which, answers] of [['before', before], ['after', after]] as const) {
      const modelled = at(answers);
      points.forEach((point, p) => {
        let value = modelled[p]!;
        const density = data.density[point]!;
        if (density > 0) {
          let kernel = 1;
          for (let o = 0; o < outputCount; o++) {
            const hO = bandwidths.output[o]!;
            const d = (data.returned[point * outputCount + o]! - answers[point * outputCount + o]!) / hO;
            kernel *= d === d ? Math.exp(-0.5 * d * d) / (hO * Math.sqrt(2 * Math.PI)) : 0;
          }
          const weight = Math.min(MAX_WEIGHT, kernel / density);
          value += weight * (data.metric[point]! - observed[p]!);
          if (which === 'before') weighted++;
        }
        scores[which][point] = value;
      });
    }
  });
  const gain = scores.after.map((value, i) => value - scores.before[i]!);
  return { before: robustMean(scores.before), after: robustMean(scores.after), gain: robustMean(gain), weighted };
}
