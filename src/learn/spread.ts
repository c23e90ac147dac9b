import type { CompiledAgent } from '../engine/index.js';
import type { LogColumns } from './dataset.js';
import { NARROWEST_SPREAD, WIDEST_SPREAD } from './policy.js';
import { POINTS_PER_BLOCK, type Pause } from './slices.js';
import { heavyTailBound, mean, standardDeviation } from './statistics.js';

/** What exploring one output may cost per evaluation: this share of the metric's standard deviation. */
export const SPREAD_COST = 0.01;
/** The fewest of autopilot's draws the cost is measured on; with fewer, every output keeps WIDEST_SPREAD. */
export const SPREAD_DRAWS = 200;
/**
 * The most columns the fit may have: its cost grows with their cube, and 160 is an agent of ten
 * variables (six inputs and four outputs), fitted in a few tens of milliseconds. Larger agents
 * keep WIDEST_SPREAD.
 */
const MOST_COLUMNS = 160;

/** Autopilot explores at WIDEST_SPREAD until it has this many draws in the window; then evidenceSpread narrows it. */
export const WIDE_DRAWS = 400;

/**
 * How wide autopilot still explores after `draws` of its draws in the window: WIDEST_SPREAD up to
 * WIDE_DRAWS, then WIDEST_SPREAD × WIDE_DRAWS / draws, down to NARROWEST_SPREAD (reached at four
 * times WIDE_DRAWS). What one more draw can still teach a proposal falls as the log grows,
 * what it costs does not: on a cliff, a draw across the edge loses the whole sale however much is
 * known (docs/LEARNING.md, "How exploration stops").
 */
export function evidenceSpread(draws: number): number {
  return Math.max(NARROWEST_SPREAD, WIDEST_SPREAD * Math.min(1, WIDE_DRAWS / draws));
}

/**
 * Each output's spread for autopilot's next draws: the narrower of evidenceSpread (over autopilot's
 * draws in `columns`) and costSpread. Every output starts at WIDEST_SPREAD, since wider draws show
 * the learner more; where the metric bends sharply as an output moves (a cliff), exploring it
 * costs, and its draws narrow sooner. Awaits `pause` between blocks of draws.
 */
export async function spreadFor(
  columns: LogColumns,
  agent: Pick<CompiledAgent, 'inputs' | 'outputs'>,
  pause: Pause = async () => {},
): Promise<Record<string, number>> {
  let draws = 0;
  for (let i = 0; i < columns.size; i++) if (columns.density[i]! > 0 && Number.isFinite(columns.metric[i]!)) draws++;
  const byEvidence = evidenceSpread(draws);
  const byCost = await costSpread(columns, agent, pause);
  return Object.fromEntries(Object.entries(byCost).map(([name, spread]) => [name, Math.min(spread, byEvidence)]));
}

/**
 * Each output's spread as wide as its measured cost allows, between NARROWEST_SPREAD and
 * WIDEST_SPREAD.
 *
 * The cost: autopilot's draw d (returned − crisp, in shares of the range) is random and
 * independent of the situation, so in a least-squares fit of the metric on the situation and the
 * answer (for the spread they cause: a quadratic in both, and each one's cube and fourth power)
 * plus, per output, d, d × each input and answer and d × each input² (the slope differs by
 * situation) and d², the coefficient of d² is the metric's bend along that output: exploring it
 * with spread σ costs bend × σ² per evaluation. Nothing the fit leaves out biases the bend, since
 * the draws are random; it only widens the bend's standard error (with the quadratic alone the
 * two-output world's residuals spread 4.2 where its noise is 3; with the rest, 3.1). The spread is the σ at which
 * that cost, with the bend one standard error gentler than measured (narrow only on evidence),
 * reaches SPREAD_COST of the metric's standard deviation. Metric values beyond 5 robust standard
 * deviations of the median are pulled in first, so one huge outcome cannot widen or narrow anything.
 * Awaits `pause` between blocks of draws.
 */
export async function costSpread(
  columns: LogColumns,
  agent: Pick<CompiledAgent, 'inputs' | 'outputs'>,
  pause: Pause = async () => {},
): Promise<Record<string, number>> {
  const outputNames = columns.outputNames;
  const inputCount = columns.inputNames.length;
  const outputCount = outputNames.length;
  const widest = Object.fromEntries(outputNames.map((name) => [name, WIDEST_SPREAD]));
  // a log from before a person's edit may name variables the agent no longer has
  if (columns.inputNames.some((name) => !agent.inputs[name]) || outputNames.some((name) => !agent.outputs[name])) return widest;
  const share = (value: number, range: readonly [number, number]) => (range[1] > range[0] ? (value - range[0]) / (range[1] - range[0]) : 0);
  const inputRanges = columns.inputNames.map((name) => agent.inputs[name]!.range);
  const outputRanges = outputNames.map((name) => agent.outputs[name]!.range);
  const rows: number[] = [];
  for (let i = 0; i < columns.size; i++) {
    if (!(columns.density[i]! > 0) || !Number.isFinite(columns.metric[i]!)) continue;
    let complete = true;
    for (let o = 0; o < outputCount; o++)
      if (!Number.isFinite(columns.crisp[i * outputCount + o]!) || !Number.isFinite(columns.returned[i * outputCount + o]!)) complete = false;
    if (complete) rows.push(i);
  }
  if (rows.length < SPREAD_DRAWS) return widest;

  const metric = Float64Array.from(rows, (i) => columns.metric[i]!);
  const sorted = Float64Array.from(metric).sort();
  const median = sorted[sorted.length >> 1]!;
  const bound = heavyTailBound(Float64Array.from(metric, (value) => value - median));
  if (bound > 0) metric.forEach((value, r) => (metric[r] = Math.min(median + bound, Math.max(median - bound, value))));
  const budget = SPREAD_COST * standardDeviation(metric);
  if (!(budget > 0)) return widest;

  // features per row: the situation and answer (centred shares, missing inputs at the middle), then the draws
  const z = new Float64Array(inputCount + outputCount);
  const draws = new Float64Array(outputCount);
  const nuisance = 1 + 3 * z.length + (z.length * (z.length + 1)) / 2;
  const width = nuisance + outputCount * (z.length + inputCount + 2);
  if (width > MOST_COLUMNS || rows.length < 2 * width) return widest;
  const x = new Float64Array(rows.length * width);
  for (let r = 0; r < rows.length; r++) {
    if (r % POINTS_PER_BLOCK === 0) await pause();
    const i = rows[r]!;
    for (let d = 0; d < inputCount; d++) {
      const value = columns.inputs[i * inputCount + d]!;
      z[d] = Number.isFinite(value) ? share(value, inputRanges[d]!) - 0.5 : 0;
    }
    for (let o = 0; o < outputCount; o++) {
      const crisp = share(columns.crisp[i * outputCount + o]!, outputRanges[o]!);
      z[inputCount + o] = crisp - 0.5;
      draws[o] = share(columns.returned[i * outputCount + o]!, outputRanges[o]!) - crisp;
    }
    let at = r * width;
    x[at++] = 1;
    for (let j = 0; j < z.length; j++) {
      x[at++] = z[j]!;
      x[at++] = z[j]! ** 3;
      x[at++] = z[j]! ** 4;
      for (let k = j; k < z.length; k++) x[at++] = z[j]! * z[k]!;
    }
    for (let o = 0; o < outputCount; o++) {
      x[at++] = draws[o]!;
      for (let j = 0; j < z.length; j++) x[at++] = draws[o]! * z[j]!;
      for (let d = 0; d < inputCount; d++) x[at++] = draws[o]! * z[d]! ** 2;
    }
    for (let o = 0; o < outputCount; o++) x[at++] = draws[o]! * draws[o]!;
  }
  const normal = new Float64Array(width * width);
  const right = new Float64Array(width);
  for (let first = 0; first < rows.length; first += POINTS_PER_BLOCK) {
    await pause();
    for (let r = first; r < Math.min(rows.length, first + POINTS_PER_BLOCK); r++) {
      const row = r * width;
      for (let a = 0; a < width; a++) {
        const xa = x[row + a]!;
        if (xa === 0) continue;
        right[a]! += xa * metric[r]!;
        for (let b = a; b < width; b++) normal[a * width + b]! += xa * x[row + b]!;
      }
    }
  }
  for (let a = 0; a < width; a++) for (let b = 0; b < a; b++) normal[a * width + b] = normal[b * width + a]!;
  await pause();
  // Within one version the answer is a function of the situation, and outputs may move together,
  // so columns may be collinear: a slight ridge on all but the d² columns (random, never collinear)
  // keeps the fit defined without touching what it measures.
  for (let a = 0; a < width - outputCount; a++) normal[a * width + a]! += 1e-8 * (normal[a * width + a]! + 1);
  const inverse = await invert(normal, width, pause);
  if (!inverse) return widest;
  await pause();
  const beta = new Float64Array(width);
  for (let a = 0; a < width; a++) for (let b = 0; b < width; b++) beta[a]! += inverse[a * width + b]! * right[b]!;
  let squares = 0;
  for (let r = 0; r < rows.length; r++) {
    if (r % POINTS_PER_BLOCK === 0) await pause();
    let fitted = 0;
    for (let a = 0; a < width; a++) fitted += x[r * width + a]! * beta[a]!;
    squares += (metric[r]! - fitted) ** 2;
  }
  const residualVariance = squares / (rows.length - width);
  return Object.fromEntries(
    outputNames.map((name, o) => {
      const at = width - outputCount + o;
      // the metric falls by `bend` × d² (a positive bend is a concave metric, whose exploring costs)
      const bend = -beta[at]! - Math.sqrt(residualVariance * inverse[at * width + at]!);
      const sigma = bend > 0 ? Math.sqrt(budget / bend) : WIDEST_SPREAD;
      return [name, Math.min(WIDEST_SPREAD, Math.max(NARROWEST_SPREAD, sigma))];
    }),
  );
}

/** The inverse of a symmetric matrix (Gauss–Jordan with partial pivoting), or undefined where it is singular; awaits `pause` after each column. */
async function invert(matrix: Float64Array, size: number, pause: Pause): Promise<Float64Array | undefined> {
  const a = Float64Array.from(matrix);
  const inverse = new Float64Array(size * size);
  for (let i = 0; i < size; i++) inverse[i * size + i] = 1;
  const scale = mean(Float64Array.from({ length: size }, (_, i) => Math.abs(a[i * size + i]!))) || 1;
  for (let column = 0; column < size; column++) {
    await pause();
    let pivot = column;
    for (let r = column + 1; r < size; r++) if (Math.abs(a[r * size + column]!) > Math.abs(a[pivot * size + column]!)) pivot = r;
    if (Math.abs(a[pivot * size + column]!) < 1e-12 * scale) return undefined;
    if (pivot !== column) {
      for (let c = 0; c < size; c++) {
        [a[column * size + c], a[pivot * size + c]] = [a[pivot * size + c]!, a[column * size + c]!];
        [inverse[column * size + c], inverse[pivot * size + c]] = [inverse[pivot * size + c]!, inverse[column * size + c]!];
      }
    }
    const lead = a[column * size + column]!;
    for (let c = 0; c < size; c++) {
      a[column * size + c]! /= lead;
      inverse[column * size + c]! /= lead;
    }
    for (let r = 0; r < size; r++) {
      if (r === column) continue;
      const factor = a[r * size + column]!;
      if (factor === 0) continue;
      for (let c = 0; c < size; c++) {
        a[r * size + c]! -= factor * a[column * size + c]!;
        inverse[r * size + c]! -= factor * inverse[column * size + c]!;
      }
    }
  }
  return inverse;
}
