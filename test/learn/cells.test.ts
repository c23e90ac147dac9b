// The table agents autopilot may propose (src/learn/cells.ts) and what makes them trustworthy:
// valid and readable under the SPEC, answering where their sets say, placed where the log says
// the metric is best, robust to one huge outcome, forgetting what a drifting world no longer does;
// and the trial's values taken relative to the situation.
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate, parseRule, printRule } from '../../src/engine/index.js';
import type { AgentDefinition, Inputs, Outputs, SetDefinition } from '../../src/engine/types.js';
import { cellLayout, cellsPerInput, describeProposal, tableAgent, valuesAtCentres } from '../../src/learn/cells.js';
import { datasetOf, type LoggedEvaluation } from '../../src/learn/dataset.js';
import { chooseBandwidths, MetricEstimator, returnedAtPoints } from '../../src/learn/estimator.js';
import { nearestNeighbours } from '../../src/learn/neighbours.js';
import { optimizeAgent } from '../../src/learn/index.js';
import { exploreTruncated, NARROWEST_SPREAD } from '../../src/learn/policy.js';
import { gaussian, seededRandom, type Random } from '../../src/learn/random.js';
import { measuredGain, situationAdjusted } from '../../src/learn/trial.js';
import { irrigation } from './worlds.js';
import { worlds, type ArenaWorld } from './arena.js';

const cliff = worlds.find((world) => world.name === 'cliff')!;

/** `count` evaluations of `definition` varied the way autopilot varies them, with the world's outcome at `progress`. */
function autopilotLog(
  world: ArenaWorld,
  definition: AgentDefinition,
  count: number,
  random: Random,
  progress: (i: number) => number = () => 0,
  scale = 0.05,
): LoggedEvaluation[] {
  const compiled = compileAgent(definition);
  return Array.from({ length: count }, (_, i) => {
    const input = world.situation(random);
    const { crisp } = evaluate(compiled, input);
    const { returned, density } = exploreTruncated(crisp, compiled.outputs, scale, random);
    return { input, crisp, returned, density, metric: world.expected(input, returned, progress(i)) + world.noise(random) };
  });
}

/** The world's expected metric for `definition` over 500 seeded situations. */
function truth(world: ArenaWorld, definition: AgentDefinition, progress = 0): number {
  const compiled = compileAgent(definition);
  const random = seededRandom(99);
  let sum = 0;
  for (let i = 0; i < 500; i++) {
    const situation = world.situation(random);
    sum += world.expected(situation, evaluate(compiled, situation).crisp as Outputs, progress);
  }
  return sum / 500;
}

describe('table agents', () => {
  it('are valid, readable agents that keep every range and answer what their cells say', () => {
    for (const [agent, perInput] of [
      [cliff.agent, [6]],
      [irrigation.agent, [4, 3]],
    ] as const) {
      const layout = cellLayout(agent, perInput);
      const values = valuesAtCentres(agent, layout);
      const table = tableAgent(agent, layout, values);
      const compiled = compileAgent(table);
      const original = compileAgent(agent);
      expect(layout.cells).toHaveLength(perInput.reduce((a, b) => a * b, 1));
      expect(table.rules).toHaveLength(layout.cells.length);
      for (const [name, { range }] of Object.entries(original.inputs)) expect(compiled.inputs[name]!.range).toEqual(range);
      for (const [name, { range }] of Object.entries(original.outputs)) expect(compiled.outputs[name]!.range).toEqual(range);
      // every rule is in the engine's own canonical text, so a person's edit round-trips
      for (const rule of table.rules) expect(printRule(parseRule(rule))).toBe(rule);
      // at an interior cell's centre only that cell's rule fires: the answer is the cell's value
      layout.cells.forEach((cell, c) => {
        if (cell.some((i, d) => i === 0 || i === layout.inputs[d]!.centres.length - 1)) return;
        const input: Inputs = Object.fromEntries(cell.map((i, d) => [layout.inputs[d]!.name, layout.inputs[d]!.centres[i]!]));
        const crisp = evaluate(compiled, input).crisp;
        layout.outputs.forEach(({ name }, o) => expect(crisp[name]).toBeCloseTo(values[c * layout.outputs.length + o]!, 3));
      });
    }
    expect(cliff.agent.rules.length).toBe(3);
    // 25 evaluations per cell, 3 to 10 per input (2 for four inputs), at most 36 rules
    expect(cellsPerInput(1, 74)).toEqual([]);
    expect(cellsPerInput(1, 100)).toEqual([4]);
    expect(cellsPerInput(1, 400)).toEqual([10]);
    expect(cellsPerInput(2, 1000)).toEqual([6, 6]);
    expect(cellsPerInput(4, 399)).toEqual([]);
    expect(cellsPerInput(4, 10_000)).toEqual([3, 3, 2, 2]);
  });

  it('give a 0/1 input 2 cells and the cells left to the input whose logged values spread over its range', () => {
    // the lemonade stand's shape: numBuyers mostly past its sets (share ≥ 1), temperature over its range, sunny 0 or 1
    const evaluations = 1000;
    const shares = Float64Array.from({ length: evaluations * 3 }, (_, k) => {
      const [i, d] = [Math.floor(k / 3), k % 3];
      return d === 0 ? (i % 5 === 0 ? (i % 20) / 20 : 1 + i / 100) : d === 1 ? (i % 97) / 96 : i % 2;
    });
    const [numBuyers, temperature, sunny] = cellsPerInput(3, evaluations, shares);
    expect(sunny).toBe(2);
    expect(temperature).toBe(6);
    expect(numBuyers).toBe(3);
    // without the shares every input counts alike: 3 × 3 × 4 = 36
    expect(cellsPerInput(3, evaluations)).toEqual([4, 3, 3]);
  });

  it('are proposed only with structure: true, and close most of the gap to the best answer on a cliff-shaped world', async () => {
    for (const seed of [1, 2, 3]) {
      const log = autopilotLog(cliff, cliff.agent, 600, seededRandom(seed));
      const tuned = await optimizeAgent(cliff.agent, log, { goal: 'maximize', seed: 1 });
      const table = await optimizeAgent(cliff.agent, log, { goal: 'maximize', seed: 1, structure: true });
      if (tuned.status !== 'optimized' || table.status !== 'optimized') throw new Error('insufficient');
      expect(tuned.definition.rules).toHaveLength(3);
      expect(table.definition.rules.length).toBeGreaterThan(3);
      // the version's evidence says what changed in plain words
      const cells = table.definition.rules.length;
      const gain = { value: 1.5, low: 0.25, high: 2.75 };
      const said = describeProposal(cliff.agent, table.definition, table.changes, 'profit', gain, 600);
      expect(said).toContain(`Replaces the 3 rules by a table of ${cells} (temperature in ${cells} cells), one rule per cell`);
      expect(said).toContain(`price: ${table.changes.length} cell answers moved`);
      expect(said).toContain('estimated better by +1.5 per evaluation in profit (95% interval +0.25 to +2.75)');
      const tunedSaid = describeProposal(cliff.agent, tuned.definition, tuned.changes, 'profit', undefined, 600);
      expect(tunedSaid.startsWith('Keeps the 3 rules; ')).toBe(true);
      expect(tunedSaid).toContain(`${tuned.changes.filter((change) => change.kind === 'set' && change.variable === 'price').length} set points moved`);
      // one round from 600 evaluations explored by 5% of the range: well above the start and above tuning the numbers
      expect(truth(cliff, table.definition), `seed ${seed}`).toBeGreaterThan(truth(cliff, tuned.definition));
      expect(truth(cliff, table.definition), `seed ${seed}`).toBeGreaterThan(1.1 * truth(cliff, cliff.agent));
    }
  }, 120_000);

  it('are not carried by one huge outcome', async () => {
    const log = autopilotLog(cliff, cliff.agent, 600, seededRandom(4));
    const wild = log.map((entry, i) => (i === 300 ? { ...entry, metric: entry.metric + 1e5 } : entry));
    const plain = await optimizeAgent(cliff.agent, log, { goal: 'maximize', seed: 1, structure: true });
    const spoilt = await optimizeAgent(cliff.agent, wild, { goal: 'maximize', seed: 1, structure: true });
    if (plain.status !== 'optimized' || spoilt.status !== 'optimized') throw new Error('insufficient');
    expect(Math.abs(truth(cliff, spoilt.definition) - truth(cliff, plain.definition))).toBeLessThan(0.02 * truth(cliff, plain.definition));
  });

  it('forget: with a half-life, what the world did lately outweighs what it did long ago', async () => {
    // the same situations and answers twice: first the metric was 0, lately it is 1
    const random = seededRandom(6);
    const half = Array.from({ length: 300 }, () => ({
      input: { temperature: 10 + 30 * random() },
      crisp: { price: 1 },
      returned: { price: 0.9 + 0.2 * random() },
    }));
    const log = [...half.map((entry) => ({ ...entry, metric: 0 })), ...half.map((entry) => ({ ...entry, metric: 1 }))];
    const compiled = compileAgent(cliff.agent);
    const data = datasetOf(log, compiled.inputs, compiled.outputs);
    const points = Int32Array.from({ length: 50 }, (_, i) => 300 + i);
    const hoods = nearestNeighbours(data, points, 64);
    const bandwidths = await chooseBandwidths(data, hoods);
    const at = returnedAtPoints(data, points);
    const recency = (halfLife: number) => Float64Array.from({ length: data.size }, (_, i) => 2 ** (-(data.size - 1 - i) / halfLife));
    const remembering = new MetricEstimator(data, hoods, bandwidths).estimate(at);
    const forgetting = new MetricEstimator(data, hoods, bandwidths, recency(30)).estimate(at);
    expect(remembering).toBeGreaterThan(0.3);
    expect(remembering).toBeLessThan(0.7);
    expect(forgetting).toBeGreaterThan(0.99);
  });
});

describe('trial values relative to the situation', () => {
  it('keep the difference between the arms and lose the spread the situations cause', async () => {
    const random = seededRandom(5);
    const situation = () => ({ temperature: 10 + 30 * random() });
    const outcome = (input: Inputs, lift: number) => 4 * input.temperature! + lift + gaussian(random);
    const entry = (lift: number) => {
      const input = situation();
      return { input, crisp: { price: 1 }, metric: outcome(input, lift) };
    };
    const before = Array.from({ length: 2000 }, () => entry(0));
    const trial = Array.from({ length: 400 }, (_, i) => entry(i % 2 ? 1 : 0));
    const adjusted = await situationAdjusted(before, trial, cliff.agent);
    const arm = (values: ArrayLike<number>, parity: number) => Array.from(values).filter((_, i) => i % 2 === parity);
    const raw = trial.map(({ metric }) => metric);
    expect(mean(arm(adjusted, 1)) - mean(arm(adjusted, 0))).toBeCloseTo(1, 0);
    expect(sd(arm(adjusted, 0))).toBeLessThan(0.1 * sd(arm(raw, 0)));
    // the gain a trial reports: the difference of the arms' means, its interval from each arm's spread
    const gain = measuredGain(arm(adjusted, 0), arm(adjusted, 1));
    const half = 1.96 * Math.sqrt(sd(arm(adjusted, 0)) ** 2 / 199 + sd(arm(adjusted, 1)) ** 2 / 199);
    expect(gain.value).toBeCloseTo(mean(arm(adjusted, 1)) - mean(arm(adjusted, 0)), 12);
    expect(gain.high - gain.value).toBeCloseTo(half, 12);
    expect(gain.low).toBeLessThan(1);
    expect(gain.high).toBeGreaterThan(1);
    // the raw values' interval would be ten times as wide: the situations' spread is gone
    const rawGain = measuredGain(arm(raw, 0), arm(raw, 1));
    expect(rawGain.high - rawGain.low).toBeGreaterThan(10 * (gain.high - gain.low));
  });

  it('also lose the spread of the exploration draws', async () => {
    // the two-output world: the candidate answers ice near the top of its range where it is hot and cold, the current version ice 4
    const world = worlds.find(({ name }) => name === 'two outputs')!;
    const { trial, adjusted, measured, trueGain } = await iceTrial(
      [9.5, 9.8, 10],
      (input, returned) => world.expected(input, returned, 1),
      world.noise,
      4000,
      8,
    );
    expect(measured.low).toBeLessThan(trueGain);
    expect(measured.high).toBeGreaterThan(trueGain);
    // within the world's noise (sd 3) and a little more: the situations' and the draws' spread are gone
    expect(sd(currentArm(trial.map(({ metric }) => metric)))).toBeGreaterThan(15);
    expect(sd(currentArm(adjusted))).toBeLessThan(4);
  });

  it('favour neither arm where one answers at the end of a range, and its draws, cut off there, move the answer on average', async () => {
    // noise-free and linear in ice: the adjusted arms differ by exactly what the draws returned
    const { measured, trueGain } = await iceTrial(
      [9.9, 10, 10],
      (input, returned) => 4 * input.temperature! + 10 * returned.ice!,
      () => 0,
      2000,
      10,
    );
    // without the draws' average under the cut-off, the candidate would gain 2.4 more than it does
    expect(measured.low).toBeLessThan(trueGain);
    expect(measured.high).toBeGreaterThan(trueGain);
    expect(measured.high - measured.low).toBeLessThan(0.5);
  });
});

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const sd = (values: number[]) => Math.sqrt(mean(values.map((v) => (v - mean(values)) ** 2)));
/** The values of the arm served by the current version: the even ones. */
const currentArm = (values: ArrayLike<number>) => Array.from(values).filter((_, i) => i % 2 === 0);

/**
 * A trial in the two-output world, both arms explored by autopilot's draw: its starting agent
 * (ice 4) against one whose ice set is `ice`, taking turns, after 2,000 evaluations of the starting
 * agent; `expected` is the metric without `noise`. The true gain: `expected`'s difference over 40,000
 * fresh situations and draws.
 */
async function iceTrial(
  ice: SetDefinition,
  expected: (input: Inputs, returned: Outputs) => number,
  noise: (random: Random) => number,
  size: number,
  seed: number,
) {
  const world = worlds.find(({ name }) => name === 'two outputs')!;
  const current = world.agent;
  const candidate = { ...current, outputs: { ...current.outputs, ice: { ...current.outputs.ice, some: ice } } };
  const [compiledCurrent, compiledCandidate] = [compileAgent(current), compileAgent(candidate)];
  const served = (compiled: ReturnType<typeof compileAgent>, input: Inputs, random: Random) => {
    const { crisp } = evaluate(compiled, input);
    const { returned, density } = exploreTruncated(crisp, compiled.outputs, NARROWEST_SPREAD, random);
    const value = expected(input, returned);
    return { input, crisp, returned, density, metric: value + noise(random), expected: value };
  };
  const random = seededRandom(seed);
  const before = Array.from({ length: 2000 }, () => served(compiledCurrent, world.situation(random), random));
  const trial = Array.from({ length: size }, (_, i) => served(i % 2 ? compiledCandidate : compiledCurrent, world.situation(random), random));
  const adjusted = await situationAdjusted(before, trial, current, undefined, undefined, NARROWEST_SPREAD);
  const truthRandom = seededRandom(seed + 1);
  let trueGain = 0;
  for (let i = 0; i < 40_000; i++) {
    const input = world.situation(truthRandom);
    trueGain += (served(compiledCandidate, input, truthRandom).expected - served(compiledCurrent, input, truthRandom).expected) / 40_000;
  }
  const candidateArm = Array.from(adjusted).filter((_, i) => i % 2 === 1);
  return { trial, adjusted, measured: measuredGain(currentArm(adjusted), candidateArm), trueGain };
}
