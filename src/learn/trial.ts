import { datasetOf, type LoggedEvaluation, type VariableRanges } from './dataset.js';
import { nearestNeighbours } from './neighbours.js';
import type { Interval } from './offpolicy.js';
import { normalCdf } from './policy.js';
import type { Goal } from './optimize.js';
import { Moments, type MeanInterval } from './statistics.js';

/**
 * When a candidate's trial is looked at: after this many feedback values from each arm. The trial
 * is decided at the first look where the evidence is clear, and at the last one at the latest.
 * Short, by measurement (docs/LEARNING.md, "Trying a proposal"): a trial that needs more values
 * than this is deciding a small gain, and the next proposal, made from more data, usually brings
 * a larger one.
 */
export const TRIAL_LOOKS = [20, 40] as const;
/** The family-wise level of the trial: each look tests at TRIAL_LEVEL / TRIAL_LOOKS.length (Bonferroni). */
export const TRIAL_LEVEL = 0.1;
/** Winsorised at these pooled quantiles, so one huge value cannot decide a trial. */
const WINSOR = 0.025;

export type ArmSummary = MeanInterval;

export interface TrialDecision {
  readonly verdict: 'adopt' | 'drop' | 'continue';
  /** one-sided p-value of "the candidate is better" (Welch, normal approximation), on winsorised values */
  readonly pValue: number;
  readonly current: ArmSummary;
  readonly candidate: ArmSummary;
}

export function summarise(values: ArrayLike<number>): ArmSummary {
  const moments = new Moments();
  for (let i = 0; i < values.length; i++) moments.add(values[i]!);
  return moments.interval();
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below]! + (sorted[Math.min(below + 1, sorted.length - 1)]! - sorted[below]!) * (at - below);
}

/**
 * The trial's rule. Once both arms have the next look's number of feedback values (each arm's
 * first values only, so a look always sees the same data), the values are winsorised at the pooled
 * 2.5% and 97.5% quantiles and compared by a one-sided Welch test: adopt when the candidate is
 * better at level TRIAL_LEVEL / looks, drop when it is worse at that level or at the last look.
 * Dropping early never adopts anything, so it leaves the chance of adopting a candidate that is
 * not better at most TRIAL_LEVEL (up to the normal approximation: test/learn/trial.test.ts).
 */
export function decideTrial(current: readonly number[], candidate: readonly number[], goal: Goal): TrialDecision {
  const n = Math.min(current.length, candidate.length);
  const look = [...TRIAL_LOOKS].reverse().find((size) => n >= size);
  const currentSummary = summarise(current);
  const candidateSummary = summarise(candidate);
  if (look === undefined) return { verdict: 'continue', pValue: NaN, current: currentSummary, candidate: candidateSummary };
  const a = current.slice(0, look);
  const b = candidate.slice(0, look);
  const pooled = [...a, ...b].sort((x, y) => x - y);
  const low = quantile(pooled, WINSOR);
  const high = quantile(pooled, 1 - WINSOR);
  const clip = (v: number) => Math.min(high, Math.max(low, v));
  const sa = summarise(a.map(clip));
  const sb = summarise(b.map(clip));
  const variance = (s: ArmSummary) => ((s.high - s.mean) / 1.96) ** 2;
  const se = Math.sqrt(variance(sa) + variance(sb));
  const sign = goal === 'maximize' ? 1 : -1;
  const z = se > 0 ? (sign * (sb.mean - sa.mean)) / se : 0;
  const pValue = 1 - normalCdf(z);
  const level = TRIAL_LEVEL / TRIAL_LOOKS.length;
  const last = look === TRIAL_LOOKS[TRIAL_LOOKS.length - 1];
  const verdict = pValue < level ? 'adopt' : 1 - pValue < level || last ? 'drop' : 'continue';
  return { verdict, pValue, current: currentSummary, candidate: candidateSummary };
}

/**
 * What the trial measured the candidate to gain over the current version: the difference of the
 * arms' means of every value fresh feedback gave (relative to the situation, so in the metric's
 * units), with its 95% interval. Fresh evaluations served at random by either arm, so unlike the
 * estimate made when the candidate was proposed, no model and no selection on the same data. The
 * interval: Welch, normal approximation.
 */
export function measuredGain(current: ArrayLike<number>, candidate: ArrayLike<number>): Interval {
  const a = summarise(current);
  const b = summarise(candidate);
  const value = b.mean - a.mean;
  const half = Math.hypot(a.high - a.mean, b.high - b.mean);
  return { value, low: value - half, high: value + half };
}

/** Neighbours in input space that make a trial value's baseline. */
const BASELINE_NEIGHBOURS = 32;

/**
 * Each trial value minus what evaluations logged *before* the trial earned in the same situation
 * (the mean metric of its BASELINE_NEIGHBOURS nearest earlier evaluations in input space, inputs
 * clamped to their ranges). The baseline is fixed before the trial and blind to which arm served
 * the value, so the difference between the arms' means is unchanged in expectation, while most of
 * the spread that comes from the situations (a hot day sells more whatever the price) is gone: the
 * same test decides with far fewer values.
 */
export function situationAdjusted(before: readonly LoggedEvaluation[], trial: readonly LoggedEvaluation[], inputs: VariableRanges, outputs: VariableRanges): Float64Array {
  if (before.length === 0) return Float64Array.from(trial, ({ metric }) => metric);
  const data = datasetOf([...before, ...trial], inputs, outputs);
  const pool = Int32Array.from(before, (_, i) => i);
  const points = Int32Array.from(trial, (_, i) => before.length + i);
  const { k, index } = nearestNeighbours(data, points, BASELINE_NEIGHBOURS, pool);
  return Float64Array.from(trial, ({ metric }, p) => {
    let sum = 0;
    for (let n = p * k; n < (p + 1) * k; n++) sum += data.metric[index[n]!]!;
    return metric - sum / k;
  });
}
