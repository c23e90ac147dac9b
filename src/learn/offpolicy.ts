import type { Dataset } from './dataset.js';
import { MetricEstimator, type Bandwidths } from './estimator.js';
import { nearestNeighboursInSlices } from './neighbours.js';
import { shuffle, type Random } from './random.js';
import type { Pause } from './slices.js';

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

export interface OffPolicyOptions {
  /**
   * How the correction is averaged: over every evaluation (default; the textbook doubly robust
   * estimate), or `normalised`, over the weights (Σ w·(r − m̂) / Σ w): for comparing versions that
   * each served their own share of the log, where an agent's answers are near only the evaluations
   * that agent served, so dividing by all of them would shrink the correction by that share.
   */
  readonly correction?: 'each' | 'normalised';
  /** awaited between blocks of the estimate's work, so that other work can run (a `timeSlices` pause yields once a slice is used up) */
  readonly pause?: Pause;
}

/**
 * Doubly robust, cross-fitted estimates of the mean metric two deterministic agents would earn on
 * the logged inputs: the kernel model m̂ (fitted on the other half of the log) at the agent's
 * answer, plus, where the log recorded the density p the answer was drawn with, the correction
 * w · (r − m̂(x, returned)) with w = K_h(returned − answer) / p clipped at MAX_WEIGHT, averaged as
 * OffPolicyOptions' `correction` says. Means are medians of means (heavy tails; a correction
 * averaged over the weights has none: pull heavy tails in first). `before`/`after` are points ×
 * outputs in shares of range, for every evaluation of `data`.
 */
export async function offPolicyEstimate(
  data: Dataset,
  bandwidths: Bandwidths,
  before: Float64Array,
  after: Float64Array,
  random: Random,
  options: OffPolicyOptions = {},
): Promise<OffPolicyEstimate> {
  const { correction = 'each', pause = async () => {} } = options;
  const outputCount = data.outputScale.names.length;
  const order = shuffle(Array.from({ length: data.size }, (_, i) => i), random);
  const halves = [Int32Array.from(order.filter((_, i) => i % 2 === 0)), Int32Array.from(order.filter((_, i) => i % 2 === 1))];
  const modelled = { before: new Float64Array(data.size), after: new Float64Array(data.size) };
  const weights = { before: new Float64Array(data.size), after: new Float64Array(data.size) };
  const residual = new Float64Array(data.size);
  let weighted = 0;
  for (const [h, points] of halves.entries()) {
    const hoods = await nearestNeighboursInSlices(data, points, NEIGHBOURS, halves[1 - h]!, pause);
    const model = new MetricEstimator(data, hoods, bandwidths);
    const at = (answers: Float64Array) => {
      const rows = new Float64Array(points.length * outputCount);
      points.forEach((point, p) => rows.set(answers.subarray(point * outputCount, (point + 1) * outputCount), p * outputCount));
      return model.estimateEachInSlices(rows, pause);
    };
    const observed = await at(data.returned);
    points.forEach((point, p) => (residual[point] = data.metric[point]! - observed[p]!));
    for (const [which, answers] of [['before', before], ['after', after]] as const) {
      const values = await at(answers);
      points.forEach((point, p) => {
        modelled[which][point] = values[p]!;
        const density = data.density[point]!;
        if (!(density > 0)) return;
        let kernel = 1;
        for (let o = 0; o < outputCount; o++) {
          const hO = bandwidths.output[o]!;
          const d = (data.returned[point * outputCount + o]! - answers[point * outputCount + o]!) / hO;
          kernel *= d === d ? Math.exp(-0.5 * d * d) / (hO * Math.sqrt(2 * Math.PI)) : 0;
        }
        weights[which][point] = Math.min(MAX_WEIGHT, kernel / density);
        if (which === 'before') weighted++;
      });
    }
  }
  if (correction === 'each') {
    const score = (which: 'before' | 'after') => modelled[which].map((value, i) => value + weights[which][i]! * residual[i]!);
    const [scoreBefore, scoreAfter] = [score('before'), score('after')];
    return { before: robustMean(scoreBefore), after: robustMean(scoreAfter), gain: robustMean(scoreAfter.map((value, i) => value - scoreBefore[i]!)), weighted };
  }
  const correctBy = (sign: 1 | -1, w: Float64Array): Correction => ({ sign, weights: w, mean: weightedMean(residual, w) });
  const estimate = (model: Float64Array, corrections: readonly Correction[]): Interval => {
    const value = robustMean(model).value + corrections.reduce((sum, { sign, mean }) => sum + sign * mean, 0);
    const half = 1.96 * Math.sqrt(varianceOf(model, residual, corrections));
    return { value, low: value - half, high: value + half };
  };
  return {
    before: estimate(modelled.before, [correctBy(1, weights.before)]),
    after: estimate(modelled.after, [correctBy(1, weights.after)]),
    gain: estimate(
      modelled.after.map((value, i) => value - modelled.before[i]!),
      [correctBy(1, weights.after), correctBy(-1, weights.before)],
    ),
    weighted,
  };
}

/** The weighted mean of the residuals, added to (sign 1) or taken from (−1) an estimate. */
interface Correction {
  readonly sign: 1 | -1;
  readonly weights: Float64Array;
  readonly mean: number;
}

/** Σ w·v / Σ w; 0 when no weight. */
function weightedMean(values: Float64Array, weights: Float64Array): number {
  let total = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    total += weights[i]!;
    sum += weights[i]! * values[i]!;
  }
  return total > 0 ? sum / total : 0;
}

/**
 * The variance of the mean of `model` plus the corrections, from each evaluation's influence
 * ψᵢ = (mᵢ − m̄)/n + Σ sign · wᵢ(rᵢ − mean)/Σw: the corrections share each evaluation's residual and
 * the model its situation, so they move together and their variances do not simply add.
 */
function varianceOf(model: Float64Array, residual: Float64Array, corrections: readonly Correction[]): number {
  const n = model.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += model[i]! / n;
  const totals = corrections.map(({ weights }) => weights.reduce((sum, w) => sum + w, 0));
  let variance = 0;
  for (let i = 0; i < n; i++) {
    let influence = (model[i]! - mean) / n;
    corrections.forEach(({ sign, weights, mean: corrected }, k) => {
      if (totals[k]! > 0) influence += (sign * weights[i]! * (residual[i]! - corrected)) / totals[k]!;
    });
    variance += influence * influence;
  }
  return variance;
}
