import { AgentValidationError, compileAgent, evaluateBatch } from '../engine/index.js';
import type { AgentDefinition, Inputs, SetDefinition } from '../engine/types.js';
import { cellLayout, cellsFiring, cellsPerInput, tableAgent, valuesAtCentres, type CellLayout } from './cells.js';
import { columnsOf, datasetOf, normalise, rowsOf, type Dataset, type LogColumns, type LoggedEvaluation } from './dataset.js';
import { chooseBandwidths, MetricEstimator, returnedAtPoints, type Bandwidths } from './estimator.js';
import { nearestNeighboursInSlices, type Neighbourhoods } from './neighbours.js';
import { offPolicyEstimate, type Interval, type OffPolicyEstimate, type OffPolicyOptions } from './offpolicy.js';
import { seededRandom, shuffle } from './random.js';
import { DEFAULT_SLICE_MS, nextMacrotask, POINTS_PER_BLOCK, timeSlices, type Pause } from './slices.js';
import { HUBER_SPREADS, heavyTailBound, standardDeviation } from './statistics.js';
import { Tuning, type Change, type Move, type Numbers, type Side } from './tuning.js';

export type Goal = 'maximize' | 'minimize';

export interface SearchProgress {
  /** candidate agents estimated so far */
  readonly done: number;
  /** the most the search will estimate; `done` reaches it when the search ends */
  readonly total: number;
}

export interface OptimizeOptions {
  readonly goal: Goal;
  /** fixes the search order and the estimation sample: one seed, one answer */
  readonly seed?: number;
  /** the most candidate agents to estimate (default 800) */
  readonly budget?: number;
  /** tune the input sets as well as the output sets and rule weights (default false) */
  readonly tuneInputs?: boolean;
  /** the most logged inputs the metric is estimated at (default 2000); beyond it, a seeded sample */
  readonly estimationPoints?: number;
  readonly onProgress?: (progress: SearchProgress) => void;
  /** lets other work run during a long search; the default waits for the next macrotask */
  readonly yieldControl?: () => Promise<void>;
  /** the longest the search runs between two yields (default 30 ms) */
  readonly sliceMs?: number;
  /**
   * May change the structure (default false): propose a table agent (src/learn/cells.ts), one
   * rule per cell of the inputs, each cell's answer placed where the log says the metric is best
   */
  readonly structure?: boolean;
  /**
   * Forgetting (default none): an evaluation counts half as much as one `halfLife` evaluations
   * newer (the log is oldest first), in the estimate the search maximises
   */
  readonly halfLife?: number;
}

export type OptimizeResult =
  | {
      readonly status: 'optimized';
      readonly definition: AgentDefinition;
      readonly evaluationsUsed: number;
      /** the estimated mean metric of the agent given, at the logged inputs */
      readonly before: number;
      /** the same estimate for the agent proposed */
      readonly after: number;
      readonly changes: Change[];
      /**
       * Out-of-sample, doubly robust estimates of both agents' mean metric and of the gain, with 95%
       * intervals, when some logged answers carry the density they were drawn with (autopilot's)
       */
      readonly offPolicy?: OffPolicyEstimate;
    }
  | {
      readonly status: 'insufficient';
      readonly evaluationsUsed: number;
      /** how many more evaluations with feedback (explored ones, when exploration is missing) the method needs */
      readonly needed: number;
      readonly message: string;
    };

/** Nearest neighbours in input space each estimate looks at. */
const NEIGHBOURS = 64;
/** Step sizes per move: a `tilt` moves a linear term at its input's ends half as far as a `shift` of the same step moves it everywhere. */
const START_STEP: Record<Move['kind'], number> = { shift: 0.1, spread: 0.25, tilt: 0.1, weight: 0.25 };
const MAX_STEP: Record<Move['kind'], number> = { shift: 0.4, spread: 1, tilt: 0.4, weight: 0.5 };
const MIN_STEP: Record<Move['kind'], number> = { shift: 0.004, spread: 0.02, tilt: 0.004, weight: 0.02 };
/** The most evaluations the off-policy estimate uses (a seeded sample beyond). */
const OFF_POLICY_MOST = 4000;
/** compareAgents: the fewest evaluations it estimates from, and at how many its bandwidths are chosen (more only slows it). */
const COMPARE_FEWEST = 50;
const COMPARE_POINTS = 300;
/**
 * compareAgents pulls in only values beyond this many robust standard deviations: wider than a
 * proposal's, since a version answering near a cliff has neighbours on both sides of it, whose
 * ordinary spread is no outlier (at 5, cliff and far-optimum gains were understated by up to a third).
 */
const COMPARE_HUBER_SPREADS = 12;
/** compareAgents' output bandwidths, as a share of those chosen by cross-validation (measured: docs/LEARNING.md, "What autopilot gained"). */
const COMPARE_OUTPUT_BANDWIDTH = 0.5;
/**
 * A move is kept only if it raises the estimate by more than this share of the metric's standard
 * deviation: smaller gains are within what the log's noise can fake, and chasing them only fits it.
 */
const MIN_GAIN = 0.002;
/**
 * The table search's MIN_GAIN, lower: a table proposal is tried on fresh feedback before it is
 * adopted (autopilot's trial), which catches what the log's noise faked, while a cell's real gain
 * is counted over all points though its rule reaches a tenth of them (docs/LEARNING.md, "Trying a proposal").
 */
const TABLE_MIN_GAIN = 0.0005;

/** The fewest evaluations with feedback the method needs: enough to outnumber what it tunes. */
function evaluationsNeeded(moveCount: number): number {
  return Math.max(50, 5 * moveCount);
}

/**
 * Proposes an agent with the same structure and better-estimated numbers. The metric each candidate
 * agent would earn is estimated from the log by MetricEstimator at the outputs the candidate returns
 * for the logged inputs; a pattern search (seeded order, halving steps) keeps each move that raises
 * the estimate (lowers it when minimising), so the proposal is never estimated worse than the agent given.
 */
export async function optimizeAgent(
  definition: AgentDefinition,
  log: LogColumns | readonly LoggedEvaluation[],
  options: OptimizeOptions,
): Promise<OptimizeResult> {
  const { goal, seed = 1, budget = 800, tuneInputs = false, estimationPoints = 2000, onProgress, sliceMs = DEFAULT_SLICE_MS } = options;
  const yieldControl = options.yieldControl ?? nextMacrotask;
  // awaited between the steps below as well as inside the loops: each step over the whole log
  // (its columns, the estimator, the answers at every point) is a few milliseconds
  const pause = timeSlices(yieldControl, sliceMs);
  const compiled = compileAgent(definition);
  const tuning = new Tuning(definition);
  const sides: Side[] = tuneInputs ? ['outputs', 'inputs'] : ['outputs'];
  const moves = tuning.moves(sides);
  const logged = Array.isArray(log) ? columnsOf(log, Object.keys(compiled.inputs), Object.keys(compiled.outputs)) : (log as LogColumns);
  // Metrics in shares of the largest |value|, so that no sum of them overflows; scaled back at the end.
  const metricScale = logged.metric.reduce((largest, value) => Math.max(largest, Math.abs(value)), 0) || 1;
  const columns = { ...logged, metric: logged.metric.map((value) => value / metricScale) };
  const data = datasetOf(columns, compiled.inputs, compiled.outputs);
  await pause();
  const shortfall = insufficiency(data, evaluationsNeeded(moves.length), logged.metric[0]);
  if (shortfall) return { status: 'insufficient', evaluationsUsed: data.size, ...shortfall };
  let done = 0;
  const report = () => onProgress?.({ done, total: budget });
  report();

  const random = seededRandom(seed);
  const points = samplePoints(data.size, estimationPoints, random);
  const perInput = options.structure && !data.inputs.some(Number.isNaN) ? cellsPerInput(data.inputScale.names.length, data.size, data.inputs) : [];
  const layout = perInput.length > 0 ? tableLayout(definition, perInput) : undefined;
  const hoods = await nearestNeighboursInSlices(data, points, NEIGHBOURS, undefined, pause);
  const recency = options.halfLife ? Float64Array.from({ length: data.size }, (_, i) => 2 ** (-(data.size - 1 - i) / options.halfLife!)) : undefined;
  const fitted = new MetricEstimator(data, hoods, await chooseBandwidths(data, hoods, recency, pause), recency);
  await pause();
  const estimator = layout ? await huberised(data, hoods, fitted, recency, pause) : fitted;
  await pause();
  const pointInputs = Array.from(points, (point) => data.agentInputs[point]!);
  const sign = goal === 'maximize' ? 1 : -1;
  const initialOutputs = outputsAt(definition, pointInputs, data)!;
  await pause();
  const score = (numbers: Numbers): number => {
    const outputs = outputsAt(tuning.definitionOf(numbers), pointInputs, data);
    if (!outputs || answersLess(outputs, initialOutputs)) return -Infinity;
    return sign * estimator.estimate(outputs);
  };

  /** Out of sample, when the log carries densities: the doubly robust estimate of `proposal` against the agent given. */
  const offPolicyOf = (proposal: AgentDefinition): Promise<OffPolicyEstimate | undefined> =>
    doublyRobust(definition, proposal, { columns, data, bandwidths: estimator.bandwidths, seed, metricScale, pause });
  if (layout) {
    const table = await searchTable(definition, layout, {
      data,
      points,
      estimator,
      pointInputs,
      threshold: TABLE_MIN_GAIN * standardDeviation(data.metric),
      sign,
      random,
      budget,
      progress: () => {
        done++;
        report();
      },
      pause,
    });
    done = budget;
    report();
    const after = estimator.estimate(outputsAt(table.definition, pointInputs, data)!) * metricScale;
    const offPolicy = await offPolicyOf(table.definition);
    return {
      status: 'optimized',
      definition: table.definition,
      evaluationsUsed: data.size,
      before: estimator.estimate(initialOutputs) * metricScale,
      after,
      changes: table.changes,
      ...(offPolicy ? { offPolicy } : {}),
    };
  }
  const threshold = MIN_GAIN * standardDeviation(data.metric);
  let best = tuning.initial;
  let bestScore = sign * estimator.estimate(initialOutputs);
  const before = sign * bestScore * metricScale;
  // Passes start from the full step sizes and repeat until one keeps no move. A pass that keeps
  // nothing tries every move at every step size whatever its order, so the answer is a fixed
  // point: optimizing it again with the same log changes nothing.
  let kept = true;
  search: while (kept) {
    kept = false;
    const step = new Map(moves.map((move) => [move, START_STEP[move.kind]]));
    const direction = new Map(moves.map((move) => [move, 1]));
    for (;;) {
      const active = moves.filter((move) => step.get(move)! >= MIN_STEP[move.kind]);
      if (active.length === 0) break;
      for (const move of shuffle(active, random)) {
        let improved = false;
        for (const sense of [direction.get(move)!, -direction.get(move)!]) {
          const candidate = tuning.apply(best, move, sense * step.get(move)!);
          if (!candidate) continue;
          if (done >= budget) break search;
          const candidateScore = score(candidate);
          done++;
          report();
          if (candidateScore > bestScore + threshold) {
            best = candidate;
            bestScore = candidateScore;
            direction.set(move, sense);
            improved = kept = true;
            break;
          }
        }
        step.set(move, improved ? Math.min(step.get(move)! * 1.5, MAX_STEP[move.kind]) : step.get(move)! / 2);
        await pause();
      }
    }
  }
  done = budget;
  report();
  const proposal = tuning.definitionOf(best);
  const offPolicy = await offPolicyOf(proposal);
  return {
    status: 'optimized',
    definition: proposal,
    evaluationsUsed: data.size,
    before,
    after: sign * bestScore * metricScale,
    changes: tuning.changes(best),
    ...(offPolicy ? { offPolicy } : {}),
  };
}

interface DoublyRobustInput {
  readonly columns: LogColumns;
  /** `columns` as a dataset, metrics divided by `metricScale` (scaled back here) */
  readonly data: Dataset;
  readonly metricScale: number;
  readonly bandwidths: Bandwidths;
  readonly seed: number;
  readonly pause: Pause;
  readonly correction?: OffPolicyOptions['correction'];
}

/** The doubly robust estimate of `after` against `before` on the log, when some logged answers carry the density they were drawn with. */
async function doublyRobust(before: AgentDefinition, after: AgentDefinition, input: DoublyRobustInput): Promise<OffPolicyEstimate | undefined> {
  const { columns, data, metricScale, bandwidths, seed, pause, correction } = input;
  if (!data.density.some((density) => density > 0)) return undefined;
  await pause();
  const compiled = compileAgent(before);
  // its cost grows with the square of the evaluations it uses: a seeded sample beyond OFF_POLICY_MOST
  const offData =
    data.size > OFF_POLICY_MOST
      ? datasetOf(rowsOf(columns, samplePoints(data.size, OFF_POLICY_MOST, seededRandom(seed + 2))), compiled.inputs, compiled.outputs)
      : data;
  const answers = (agent: AgentDefinition) => outputsAt(agent, offData.agentInputs, offData)!;
  const estimate = await offPolicyEstimate(offData, bandwidths, answers(before), answers(after), seededRandom(seed + 1), {
    pause,
    ...(correction ? { correction } : {}),
  });
  const scaled = (interval: Interval): Interval => ({
    value: interval.value * metricScale,
    low: interval.low * metricScale,
    high: interval.high * metricScale,
  });
  return { before: scaled(estimate.before), after: scaled(estimate.after), gain: scaled(estimate.gain), weighted: estimate.weighted };
}

/** The dataset with each evaluation's returned answers as further inputs, for neighbours near in both. */
function answersAsInputs(data: Dataset): Dataset {
  const inputCount = data.inputScale.names.length;
  const outputCount = data.outputScale.names.length;
  const width = inputCount + outputCount;
  const inputs = new Float64Array(data.size * width);
  for (let i = 0; i < data.size; i++) {
    inputs.set(data.inputs.subarray(i * inputCount, (i + 1) * inputCount), i * width);
    inputs.set(data.returned.subarray(i * outputCount, (i + 1) * outputCount), i * width + inputCount);
  }
  const scale = { names: [...data.inputScale.names, ...data.outputScale.names], min: new Float64Array(width), width: new Float64Array(width).fill(1) };
  return { ...data, inputs, inputScale: scale };
}

/**
 * How much more `after` earns than `before`, estimated from a log in which both answered (each
 * answer logged with the density it was drawn with: autopilot's log): doubly robust and out of
 * sample like a proposal's off-policy estimate, but here both agents' answers lie where the log
 * explored, so the model is not extrapolating, and each situation's correction is averaged over
 * the evaluations near it in inputs and near each agent's answers (OffPolicyOptions, `local`). Heavy tails are pulled in first, at
 * every evaluation, as for a table proposal but against neighbours in inputs and answers. Undefined when no logged answer
 * carries a density or fewer than COMPARE_FEWEST evaluations are given. Both agents must have the
 * same inputs and outputs. Runs in slices of about `sliceMs` (default 30 ms) between yields.
 */
export async function compareAgents(
  before: AgentDefinition,
  after: AgentDefinition,
  log: LogColumns | readonly LoggedEvaluation[],
  options: { seed?: number; yieldControl?: () => Promise<void>; sliceMs?: number } = {},
): Promise<OffPolicyEstimate | undefined> {
  const { seed = 1, yieldControl = nextMacrotask, sliceMs = DEFAULT_SLICE_MS } = options;
  const pause = timeSlices(yieldControl, sliceMs);
  const compiled = compileAgent(before);
  const logged = Array.isArray(log) ? columnsOf(log, Object.keys(compiled.inputs), Object.keys(compiled.outputs)) : (log as LogColumns);
  const metricScale = logged.metric.reduce((largest, value) => Math.max(largest, Math.abs(value)), 0) || 1;
  const data = datasetOf({ ...logged, metric: logged.metric.map((value) => value / metricScale) }, compiled.inputs, compiled.outputs);
  if (data.size < COMPARE_FEWEST) return undefined;
  // every evaluation's metric is pulled in (one wild value would move the model of every
  // neighbour), against neighbours near in answers as well as in inputs: the versions compared may
  // earn very differently in one situation, and that is no outlier.
  const joint = answersAsInputs(data);
  await pullInHeavyTails(
    data,
    await nearestNeighboursInSlices(
      joint,
      Int32Array.from({ length: data.size }, (_, i) => i),
      NEIGHBOURS,
      undefined,
      pause,
    ),
    pause,
    COMPARE_HUBER_SPREADS,
  );
  const columns = { ...logged, metric: data.metric };
  await pause();
  const hoods = await nearestNeighboursInSlices(data, samplePoints(data.size, COMPARE_POINTS, seededRandom(seed)), NEIGHBOURS, undefined, pause);
  await pause();
  // in outputs, half what predicts best: an estimate at each agent's own answers wants less
  // smoothing (over a concave metric, smoothing pulls it down) more than less noise
  const chosen = await chooseBandwidths(data, hoods, undefined, pause);
  const bandwidths = { input: chosen.input, output: chosen.output.map((h) => h * COMPARE_OUTPUT_BANDWIDTH) };
  return doublyRobust(before, after, { columns, data, metricScale, bandwidths, seed, pause, correction: 'local' });
}

/**
 * Heavy tails: each of the neighbourhoods' points' metric value is compared with the median of its
 * neighbours' (in inputs, or in inputs and answers, as the caller found them; never itself: one
 * wild value cannot move a median, where it would move a kernel mean and with it every
 * neighbour's prediction); values beyond ± `spreads` × 1.4826 × the
 * median absolute residual are pulled in to that bound, in place. The bound is wide, because the
 * median ignores the answer's effect: it takes out the rare huge outcome and leaves the ordinary
 * spread, and a cliff's losses, as they are. Returns how many were pulled in.
 */
async function pullInHeavyTails(data: Dataset, hoods: Neighbourhoods, pause: Pause, spreads = HUBER_SPREADS): Promise<number> {
  const { points, k, index } = hoods;
  const medians = new Float64Array(points.length);
  const values = new Float64Array(k);
  for (let p = 0; p < points.length; p++) {
    if (p % POINTS_PER_BLOCK === 0) await pause();
    for (let n = 0; n < k; n++) values[n] = data.metric[index[p * k + n]!]!;
    values.sort();
    medians[p] = k % 2 ? values[k >> 1]! : (values[(k >> 1) - 1]! + values[k >> 1]!) / 2;
  }
  const residuals = Float64Array.from(points, (point, p) => data.metric[point]! - medians[p]!);
  const bound = heavyTailBound(residuals, spreads);
  if (!(bound > 0)) return 0;
  let pulled = 0;
  points.forEach((point, p) => {
    if (Math.abs(residuals[p]!) <= bound) return;
    data.metric[point] = medians[p]! + Math.sign(residuals[p]!) * bound;
    pulled++;
  });
  return pulled;
}

/** The estimator again after pulling in heavy tails at its estimation points, bandwidths too (they were chosen with the wild values in). */
async function huberised(
  data: Dataset,
  hoods: Neighbourhoods,
  estimator: MetricEstimator,
  recency: Float64Array | undefined,
  pause: Pause,
): Promise<MetricEstimator> {
  return (await pullInHeavyTails(data, hoods, pause)) === 0
    ? estimator
    : new MetricEstimator(data, hoods, await chooseBandwidths(data, hoods, recency, pause), recency);
}

interface TableSearch {
  readonly data: Dataset;
  /** the estimation points (indices into data) and their inputs */
  readonly points: Int32Array;
  readonly pointInputs: readonly Inputs[];
  readonly estimator: MetricEstimator;
  /** the least gain in the mean estimate (over all points) a change must bring */
  readonly threshold: number;
  /** 1 when maximising, −1 when minimising */
  readonly sign: number;
  readonly random: () => number;
  readonly budget: number;
  readonly progress: () => void;
  readonly pause: (force?: boolean) => Promise<void>;
}

/** Answers tried per cell and output: evenly over what the log returned near the cell, widened by the exploration's spread. */
const TABLE_GRID = 21;
/** Passes over the cells; each cell's answer depends little on the others', so two or three settle. */
const TABLE_PASSES = 3;

/**
 * Places each cell's answer, one output of one cell at a time in a seeded order, at the value of a
 * grid over the answers logged near that cell whose estimated metric is best (the estimate of the
 * whole agent, computed only at the points the cell's rule reaches: the rest do not change). The
 * grid spans what was returned there, widened by the exploration's spread, so a cell moves at most
 * about that far beyond what the log has seen.
 */
async function searchTable(original: AgentDefinition, layout: CellLayout, search: TableSearch): Promise<{ definition: AgentDefinition; changes: Change[] }> {
  const { data, points, pointInputs, estimator, threshold, sign, random } = search;
  const outputCount = layout.outputs.length;
  const inputCount = layout.inputs.length;
  const current = original.rules.length === layout.cells.length ? tableValues(original, layout) : undefined;
  const initial = current ?? valuesAtCentres(original, layout);
  const values = Float64Array.from(initial);
  // the estimation points each cell's rule may reach
  const reached: number[][] = layout.cells.map(() => []);
  points.forEach((point, p) => {
    for (const cell of cellsFiring(layout, data.inputs.subarray(point * inputCount, (point + 1) * inputCount))) reached[cell]!.push(p);
  });
  await search.pause();
  const scoreAt = (candidate: Float64Array, at: Int32Array): number => {
    const outputs = outputsAt(
      tableAgent(original, layout, candidate),
      Array.from(at, (p) => pointInputs[p]!),
      data,
    );
    if (!outputs) return -Infinity;
    let sum = 0;
    for (const value of estimator.estimateEach(outputs, at)) sum += value;
    return sign * sum;
  };
  let done = 0;
  for (let pass = 0; pass < TABLE_PASSES; pass++) {
    let moved = false;
    for (const cell of shuffle(
      layout.cells.map((_, c) => c),
      random,
    )) {
      const at = Int32Array.from(reached[cell]!);
      if (at.length === 0) continue;
      for (let o = 0; o < outputCount; o++) {
        const { range } = layout.outputs[o]!;
        const width = range[1] - range[0] || 1;
        const logged = Array.from(at, (p) => data.returned[points[p]! * outputCount + o]!)
          .filter((v) => v === v)
          .sort((a, b) => a - b);
        if (logged.length === 0) continue;
        const spread = data.explorationSpread[o]!;
        const low = Math.max(0, logged[Math.floor(logged.length * 0.02)]! - spread);
        const high = Math.min(1, logged[Math.ceil(logged.length * 0.98) - 1]! + spread);
        const index = cell * outputCount + o;
        let bestValue = values[index]!;
        let bestScore = scoreAt(values, at);
        const start = bestScore;
        for (let g = 0; g < TABLE_GRID; g++) {
          if (done >= search.budget) break;
          const candidate = Float64Array.from(values);
          candidate[index] = range[0] + (low + ((high - low) * g) / (TABLE_GRID - 1)) * width;
          const score = scoreAt(candidate, at);
          done++;
          search.progress();
          if (score > bestScore) [bestValue, bestScore] = [candidate[index]!, score];
          await search.pause();
        }
        if (bestScore > start + threshold * points.length && bestValue !== values[index]) {
          values[index] = bestValue;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  const definition = tableAgent(original, layout, values);
  const changes: Change[] = [];
  layout.cells.forEach((_, c) =>
    layout.outputs.forEach(({ name }, o) => {
      const from = initial[c * outputCount + o]!;
      const to = (definition.outputs[name]![layout.setNames[c]!] as SetDefinition)[1]!;
      if (Math.abs(to - from) > 1e-9 * (Math.abs(from) + 1))
        changes.push({ kind: 'set', side: 'outputs', variable: name, set: layout.setNames[c]!, point: 1, from, to });
    }),
  );
  return { definition, changes };
}

/**
 * The cells of a table agent for `definition`, or undefined when its table would not be a valid
 * agent: a table answers with triangles, which an output weighed rather than integrated
 * (Takagi–Sugeno, Tsukamoto) cannot hold. Then the agent's own numbers are tuned.
 */
function tableLayout(definition: AgentDefinition, perInput: readonly number[]): CellLayout | undefined {
  const layout = cellLayout(definition, perInput);
  try {
    compileAgent(tableAgent(definition, layout, valuesAtCentres(definition, layout)));
    return layout;
  } catch (error) {
    if (error instanceof AgentValidationError) return undefined;
    throw error;
  }
}

/** The answers of an agent that is already this layout's table (its rules and cell sets), else undefined. */
function tableValues(definition: AgentDefinition, layout: CellLayout): Float64Array | undefined {
  const skeleton = tableAgent(definition, layout, new Float64Array(layout.cells.length * layout.outputs.length));
  if (skeleton.rules.some((rule, i) => rule !== definition.rules[i])) return undefined;
  if (JSON.stringify(skeleton.inputs) !== JSON.stringify(definition.inputs)) return undefined;
  const values = new Float64Array(layout.cells.length * layout.outputs.length);
  for (const [c, set] of layout.setNames.entries()) {
    for (const [o, { name }] of layout.outputs.entries()) {
      const points = definition.outputs[name]?.[set];
      if (!points || !Array.isArray(points) || points.length !== 3) return undefined;
      values[c * layout.outputs.length + o] = points[1]!;
    }
  }
  return values;
}

function insufficiency(data: Dataset, needed: number, firstValue: number | undefined): { needed: number; message: string } | undefined {
  if (data.size < needed) {
    return {
      needed: needed - data.size,
      message: `${data.size} evaluations carry this metric; the method needs ${needed} for this agent: post feedback on ${needed - data.size} more`,
    };
  }
  if (data.metric.every((value) => value === data.metric[0])) {
    return {
      needed,
      message: `all ${data.size} evaluations give this metric the same value (${firstValue}): nothing to learn from; post feedback that varies on ${needed} more evaluations`,
    };
  }
  if (data.explored < needed) {
    return {
      needed: needed - data.explored,
      message: `only ${data.explored} of ${data.size} evaluations explored (returned something other than the engine's answer); the method needs ${needed}: evaluate ${needed - data.explored} more with ?explore=0.1 and post feedback on them`,
    };
  }
  return undefined;
}

/** Whether a candidate leaves out an output where the agent given answered: a gap, not a tuning. */
function answersLess(outputs: Float64Array, initial: Float64Array): boolean {
  for (let i = 0; i < outputs.length; i++) {
    if (outputs[i] !== outputs[i] && initial[i] === initial[i]) return true;
  }
  return false;
}

/** Every index when the log is small, else a seeded sample without repetition, in ascending order. */
function samplePoints(size: number, most: number, random: () => number): Int32Array {
  const all = Array.from({ length: size }, (_, i) => i);
  if (size <= most) return Int32Array.from(all);
  return Int32Array.from(
    shuffle(all, random)
      .slice(0, most)
      .sort((a, b) => a - b),
  );
}

/** What the agent answers at each input, as shares of the output ranges; undefined if it does not compile. */
export function outputsAt(definition: AgentDefinition, inputs: readonly Inputs[], data: Dataset): Float64Array | undefined {
  let compiled;
  try {
    compiled = compileAgent(definition);
  } catch {
    return undefined;
  }
  const outputCount = data.outputScale.names.length;
  const outputs = new Float64Array(inputs.length * outputCount);
  evaluateBatch(compiled, inputs).forEach((answer, i) => normalise(answer, data.outputScale, outputs, i * outputCount));
  return outputs;
}
