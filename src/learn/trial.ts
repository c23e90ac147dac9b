import { compileAgent } from '../engine/index.js';
import type { AgentDefinition } from '../engine/types.js';
import { datasetOf, type LoggedEvaluation } from './dataset.js';
import { chooseBandwidths, MetricEstimator } from './estimator.js';
import { nearestNeighboursInSlices } from './neighbours.js';
import type { Interval } from './offpolicy.js';
import { averageDraw, normalCdf, spreadOf, type Spread, WIDEST_SPREAD } from './policy.js';
import { outputsAt, type Goal } from './optimize.js';
import { DEFAULT_SLICE_MS, nextMacrotask, timeSlices } from './slices.js';
import { Moments, type MeanEstimate } from './statistics.js';

/**
 * When a candidate's trial is looked at: after this many feedback values from each arm. The trial
 * is decided at the first look where the evidence is clear, and at the last one at the latest.
 * Short, by measurement (docs/LEARNING.md, "Trying a proposal"): a trial that needs more values
 * than this is deciding a small gain, and the next proposal, made from more data, usually brings
 * a larger one.
 */
export const TRIAL_LOOKS = [20, 40] as const;
/** Each look but the last adopts a candidate better, or drops one worse, at TRIAL_LEVEL / TRIAL_LOOKS.length. */
export const TRIAL_LEVEL = 0.2;
/** Winsorised at these pooled quantiles, so one huge value cannot decide a trial. */
const WINSOR = 0.025;

export type ArmSummary = MeanEstimate;

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
 * better at level TRIAL_LEVEL / looks, drop when it is worse at that level. At the last look the
 * candidate is adopted when its mean is ahead (p < ½), else dropped: a candidate comes to trial
 * only when the cross-fitted off-policy estimate of its gain is clearly positive, so the trial
 * guards against a proposal that is worse rather than asks for proof that it is better, which 40
 * outcomes of 0 or a price cannot give (docs/LEARNING.md, "Trying a proposal": 9 of 13 dropped
 * candidates were better). One that is no better is adopted about half the time, which costs
 * nothing; one worse by half the values' standard deviation, about 2% (test/learn/trial.test.ts).
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
  const verdict = pValue < (last ? 0.5 : level) ? 'adopt' : 1 - pValue < level || last ? 'drop' : 'continue';
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

/** Neighbours in input space of each trial value's baseline, from the evaluations before the trial. */
const BASELINE_NEIGHBOURS = 64;
/** Evaluations before the trial at which the baseline's bandwidths are chosen (more only slows it). */
const BASELINE_POINTS = 150;

/**
 * Each trial value relative to its situation and to autopilot's draw: minus what `current` (the
 * version on trial against) is estimated to earn in that situation, and minus the estimated effect
 * of how far the exploration's draw moved the answer. Both come from the evaluations logged
 * *before* the trial: MetricEstimator's local-linear estimate at `current`'s answer, and its slope
 * times the draw's move less the move such a draw makes on average (not 0 near the end of a range,
 * where the truncated draw is cut off on one side). Both are fixed before the trial and blind to
 * which arm served the value, so the difference between the arms' means is unchanged in
 * expectation, while most of the spread that comes from the situations (a hot day sells more
 * whatever the price) and from exploring is gone: the same test decides with far fewer values.
 * Runs in slices of about `sliceMs` between calls of `yieldControl`; `spread` is what the trial's
 * draws were made with.
 */
export async function situationAdjusted(
  before: readonly LoggedEvaluation[],
  trial: readonly LoggedEvaluation[],
  current: AgentDefinition,
  yieldControl: () => Promise<void> = nextMacrotask,
  sliceMs = DEFAULT_SLICE_MS,
  spread: Spread = WIDEST_SPREAD,
): Promise<Float64Array> {
  // a baseline needs neighbours other than the evaluation itself
  if (before.length < 2) return Float64Array.from(trial, ({ metric }) => metric);
  const compiled = compileAgent(current);
  const data = datasetOf([...before, ...trial], compiled.inputs, compiled.outputs);
  const pool = Int32Array.from(before, (_, i) => i);
  const sampled = Math.min(BASELINE_POINTS, before.length);
  const sample = Int32Array.from({ length: sampled }, (_, i) => Math.floor((i * before.length) / sampled));
  const pause = timeSlices(yieldControl, sliceMs);
  // the sample lies in the pool, and a point is never its own neighbour
  const sampleHoods = await nearestNeighboursInSlices(data, sample, Math.min(BASELINE_NEIGHBOURS, before.length - 1), pool, pause);
  const bandwidths = await chooseBandwidths(data, sampleHoods, undefined, pause);
  const points = Int32Array.from(trial, (_, i) => before.length + i);
  const estimator = new MetricEstimator(data, await nearestNeighboursInSlices(data, points, BASELINE_NEIGHBOURS, pool, pause), bandwidths);
  await pause();
  const outputs = Object.entries(compiled.outputs);
  const slopes = new Float64Array(trial.length * outputs.length);
  const baseline = estimator.estimateEach(
    outputsAt(
      current,
      trial.map(({ input }) => input),
      data,
    )!,
    undefined,
    slopes,
  );
  return Float64Array.from(trial, ({ metric, crisp, returned, density }, p) => {
    let drawEffect = 0;
    // only autopilot's draws are known (policy.ts)
    if (density !== undefined && density > 0 && returned) {
      outputs.forEach(([name, { range }], o) => {
        const width = range[1] - range[0];
        const [answer, drawn] = [crisp[name], returned[name]];
        if (!(width > 0) || answer === undefined || drawn === undefined) return;
        drawEffect += slopes[p * outputs.length + o]! * ((drawn - answer) / width - averageDraw((answer - range[0]) / width, spreadOf(spread, name)));
      });
    }
    return metric - baseline[p]! - drawEffect;
  });
}
