import type { Dataset } from './dataset.js';
import { MetricEstimator, type Bandwidths } from './estimator.js';
import { nearestNeighboursInSlices, type Neighbourhoods } from './neighbours.js';
import { shuffle, type Random } from './random.js';
import type { Pause } from './slices.js';

/** A weight 1/density is clipped here: a rare answer must not decide the estimate alone. */
export const MAX_WEIGHT = 20;
/**
 * A `local` correction's weight of "no correction": where the evaluations near a situation carry
 * less weight than this in all (each one's weight w says how near its returned answer lies to the
 * agent's answer in its own situation), the correction fades towards 0 and the model stands.
 */
const LOCAL_PRIOR = 1;
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
  const means = Array.from(sums, (s, b) => s / counts[b]!)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
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
   * estimate), or `local`, per situation over the weights of the evaluations near it in inputs
   * (Σ κ·w·(r − m̂) / (LOCAL_PRIOR + Σ κ·w), κ the model's input kernel): for comparing versions
   * that each served their own share of the log. An agent's answers are near only the evaluations
   * that agent served, so dividing by all of them would shrink the correction by that share; and
   * one average over the whole log would spread the model's error where that agent served few
   * evaluations over every situation, so that error stayed almost whole.
   */
  readonly correction?: 'each' | 'local';
  /** awaited between blocks of the estimate's work, so that other work can run (a `timeSlices` pause yields once a slice is used up) */
  readonly pause?: Pause;
}

/**
 * Doubly robust, cross-fitted estimates of the mean metric two deterministic agents would earn on
 * the logged inputs: the kernel model m̂ (fitted on the other half of the log) at the agent's
 * answer, plus, where the log recorded the density p the answer was drawn with, the correction
 * w · (r − m̂(x, returned)) with w = K_h(returned − answer) / p clipped at MAX_WEIGHT, averaged as
 * OffPolicyOptions' `correction` says. Means are medians of means (heavy tails; a `local`
 * correction's weighted averages are not robust: pull heavy tails in first). `before`/`after` are points ×
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
  const order = shuffle(
    Array.from({ length: data.size }, (_, i) => i),
    random,
  );
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
    for (const [which, answers] of [
      ['before', before],
      ['after', after],
    ] as const) {
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
    return {
      before: robustMean(scoreBefore),
      after: robustMean(scoreAfter),
      gain: robustMean(scoreAfter.map((value, i) => value - scoreBefore[i]!)),
      weighted,
    };
  }
  // every evaluation's neighbours in inputs, over the whole log: the residuals a situation's correction averages
  const near = await nearestNeighboursInSlices(
    data,
    Int32Array.from({ length: data.size }, (_, i) => i),
    NEIGHBOURS,
    undefined,
    pause,
  );
  const kernel = near.distance2.map((d) => Math.exp(-d / (2 * bandwidths.input ** 2)));
  const correctBy = (w: Float64Array): Correction => ({ sign: 1, ...localCorrection(near, kernel, w, residual) });
  const estimate = (model: Float64Array, corrections: readonly Correction[]): Interval => {
    const scores = model.map((value, p) => corrections.reduce((sum, { sign, perPoint }) => sum + sign * perPoint[p]!, value));
    const { value } = robustMean(scores);
    const half = 1.96 * Math.sqrt(varianceOf(scores, near, kernel, residual, corrections));
    return { value, low: value - half, high: value + half };
  };
  // each step a few milliseconds: a pause between them keeps the slices short
  await pause();
  const correctBefore = correctBy(weights.before);
  await pause();
  const correctAfter = correctBy(weights.after);
  await pause();
  const estimatedBefore = estimate(modelled.before, [correctBefore]);
  await pause();
  const estimatedAfter = estimate(modelled.after, [correctAfter]);
  await pause();
  const gain = estimate(
    modelled.after.map((value, i) => value - modelled.before[i]!),
    [correctAfter, { ...correctBefore, sign: -1 }],
  );
  return { before: estimatedBefore, after: estimatedAfter, gain, weighted };
}

/** A `local` correction, added to (sign 1) or taken from (−1) an estimate: per point, and the weight it rests on. */
interface Correction {
  readonly sign: 1 | -1;
  readonly weights: Float64Array;
  /** per point: Σ κ·w·(r − m̂) / (LOCAL_PRIOR + Σ κ·w) over the point and its neighbours */
  readonly perPoint: Float64Array;
  /** per point: LOCAL_PRIOR + Σ κ·w */
  readonly total: Float64Array;
}

/** Each point's correction from the weighted residuals of itself (κ = 1) and its neighbours (κ = `kernel`). */
function localCorrection(near: Neighbourhoods, kernel: Float64Array, weights: Float64Array, residual: Float64Array): Omit<Correction, 'sign'> {
  const { k, index } = near;
  const size = weights.length;
  const perPoint = new Float64Array(size);
  const total = new Float64Array(size);
  for (let p = 0; p < size; p++) {
    let weight = LOCAL_PRIOR + weights[p]!;
    let sum = weights[p]! * residual[p]!;
    for (let n = p * k; n < (p + 1) * k; n++) {
      const j = index[n]!;
      weight += kernel[n]! * weights[j]!;
      sum += kernel[n]! * weights[j]! * residual[j]!;
    }
    perPoint[p] = sum / weight;
    total[p] = weight;
  }
  return { weights, perPoint, total };
}

/**
 * The variance of the mean of `scores` (model plus corrections, per point) from each evaluation's
 * influence on it: ψⱼ = (sⱼ − s̄)/n for the situation it stands for, plus, for every point p whose
 * correction uses its residual, sign · κ_pj·wⱼ·(rⱼ − c_p) / (n · total_p). The corrections share each
 * evaluation's residual and the model its situation, so they move together and their variances do
 * not simply add: a version against itself reads exactly 0 ± 0.
 */
function varianceOf(scores: Float64Array, near: Neighbourhoods, kernel: Float64Array, residual: Float64Array, corrections: readonly Correction[]): number {
  const n = scores.length;
  const { k, index } = near;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += scores[i]! / n;
  const influence = scores.map((score) => (score - mean) / n);
  for (const { sign, weights, perPoint, total } of corrections) {
    // each correction's part on its own first, so that two equal corrections of opposite signs cancel exactly
    const part = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      const share = 1 / (n * total[p]!);
      part[p]! += share * weights[p]! * (residual[p]! - perPoint[p]!);
      for (let m = p * k; m < (p + 1) * k; m++) {
        const j = index[m]!;
        part[j]! += share * kernel[m]! * weights[j]! * (residual[j]! - perPoint[p]!);
      }
    }
    part.forEach((value, j) => (influence[j]! += sign * value));
  }
  return influence.reduce((sum, value) => sum + value * value, 0);
}
