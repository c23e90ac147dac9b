import { describe, expect, it } from 'vitest';
import { optimizeAgent, type SearchProgress } from '../../src/learn/index.js';
import { seededRandom } from '../../src/learn/random.js';
import { cooling, explorePlaying, irrigation, lemonade, meanOutcome, type World } from './worlds.js';

const SEEDS = [1, 2, 3, 4, 5];

/** The proof of issue 5 §3 at engine level: explore 500 times, optimize, compare on 500 fresh plain evaluations. */
async function prove(world: World, seed: number, tuneInputs = false) {
  const random = seededRandom(seed);
  const log = explorePlaying(world, world.agent, 500, 0.15, random);
  const result = await optimizeAgent(world.agent, log, { goal: world.goal, seed, tuneInputs });
  if (result.status !== 'optimized') throw new Error(result.message);
  const fresh = Array.from({ length: 500 }, () => world.situation(random));
  // both agents meet the same situations and the same outcome noise
  const start = meanOutcome(world, world.agent, fresh, seededRandom(1000 + seed));
  const optimized = meanOutcome(world, result.definition, fresh, seededRandom(1000 + seed));
  return { log, result, start, optimized };
}

describe('optimizeAgent in a simulated world whose rule the agent never sees', () => {
  for (const world of [lemonade, irrigation]) {
    it(`${world.goal}s ${world.metric} of the ${world.name} by at least 20% for every seed`, async () => {
      for (const seed of SEEDS) {
        const { result, start, optimized } = await prove(world, seed);
        const gain = world.goal === 'maximize' ? optimized - start : start - optimized;
        expect(gain, `seed ${seed}: ${start} → ${optimized}`).toBeGreaterThanOrEqual(0.2 * Math.abs(start));
        // honest estimates: the same direction as the truth, and the gain not overstated
        const estimatedGain = world.goal === 'maximize' ? result.after - result.before : result.before - result.after;
        expect(estimatedGain).toBeGreaterThan(0);
        expect(estimatedGain).toBeLessThan(1.3 * gain);
        expect(result.changes.length).toBeGreaterThan(0);
      }
    });
  }

  it('moves input sets when asked, and that fixes what output sets cannot: a hand-over at the wrong place', async () => {
    for (const seed of SEEDS) {
      const outputsOnly = await prove(cooling, seed);
      const withInputs = await prove(cooling, seed, true);
      expect(outputsOnly.result.changes.every((change) => change.kind !== 'set' || change.side === 'outputs')).toBe(true);
      expect(withInputs.result.changes.some((change) => change.kind === 'set' && change.side === 'inputs')).toBe(true);
      expect(withInputs.optimized, `seed ${seed}`).toBeLessThan(0.8 * outputsOnly.optimized);
      expect(withInputs.optimized).toBeLessThan(0.5 * withInputs.start);
    }
  });

  it('changes nothing when optimizing twice with no new data', async () => {
    for (const world of [lemonade, irrigation]) {
      const { log, result } = await prove(world, 3);
      if (result.status !== 'optimized') throw new Error('first run');
      const again = await optimizeAgent(result.definition, log, { goal: world.goal, seed: 3 });
      expect(again).toEqual({ ...result, before: result.after, changes: [] });
    }
  });

  it('gives the same answer for the same seed and reports progress up to its total', async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 300, 0.2, seededRandom(9));
    const progress: SearchProgress[] = [];
    const first = await optimizeAgent(lemonade.agent, log, { goal: 'maximize', seed: 4, onProgress: (p) => progress.push(p) });
    const second = await optimizeAgent(lemonade.agent, log, { goal: 'maximize', seed: 4 });
    expect(second).toEqual(first);
    expect(progress.length).toBeGreaterThan(10);
    expect(progress[0]).toEqual({ done: 0, total: 800 });
    expect(progress.at(-1)).toEqual({ done: 800, total: 800 });
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
  });

  it('stops at its budget', async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 300, 0.2, seededRandom(9));
    const progress: SearchProgress[] = [];
    await optimizeAgent(lemonade.agent, log, { goal: 'maximize', budget: 7, onProgress: (p) => progress.push(p) });
    // one report before the search, one per candidate, one at the end
    expect(progress.map((p) => p.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 7]);
  });

  it('lets other work run while it searches', async () => {
    const log = explorePlaying(irrigation, irrigation.agent, 2000, 0.2, seededRandom(2));
    let yields = 0;
    await optimizeAgent(irrigation.agent, log, { goal: 'minimize', yieldControl: async () => void yields++ });
    expect(yields).toBeGreaterThan(0);
  });

  it("gives the same proposal whatever the metric's scale, even near the largest doubles", async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 150, 0.2, seededRandom(6));
    const at = (factor: number) =>
      optimizeAgent(
        lemonade.agent,
        log.map((entry) => ({ ...entry, metric: entry.metric * factor })),
        { goal: 'maximize' },
      );
    const plain = await at(1);
    if (plain.status !== 'optimized') throw new Error('plain');
    for (const factor of [1e300, 1e-300]) {
      const scaled = await at(factor);
      if (scaled.status !== 'optimized') throw new Error(`${factor}`);
      expect(scaled.changes).toEqual(plain.changes);
      expect(scaled.before / factor).toBeCloseTo(plain.before, 9);
      expect(scaled.after / factor).toBeCloseTo(plain.after, 9);
    }
  });

  it('ignores inputs and outputs the agent no longer has', async () => {
    // as if earlier versions had other variables: half the log knows only an input since removed
    const log = explorePlaying(lemonade, lemonade.agent, 200, 0.2, seededRandom(5)).map((entry, i) => ({
      ...entry,
      input: i % 2 ? { humidity: 40 } : { ...entry.input, humidity: 40 },
      crisp: { ...entry.crisp, cups: 3 },
    }));
    const result = await optimizeAgent(lemonade.agent, log, { goal: 'maximize' });
    expect(result.status).toBe('optimized');
  });
});

describe('optimizeAgent with too little to learn from', () => {
  // lemonade tunes 9 numbers' worth of moves: shift and spread for each of its 3 price sets (each
  // has at least two points inside 0..3) and 3 rule weights; it needs max(50, 5 × 9) = 50 evaluations
  const needed = 50;

  it('says how many more evaluations it needs', async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 30, 0.2, seededRandom(1));
    const result = await optimizeAgent(lemonade.agent, log, { goal: 'maximize' });
    expect(result).toMatchObject({ status: 'insufficient', evaluationsUsed: 30, needed: needed - 30 });
    expect(result.status === 'insufficient' && result.message).toContain('20 more');
  });

  it('needs explored evaluations: answers that were not varied teach nothing about other answers', async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 200, 0.2, seededRandom(1)).map((entry, i) =>
      i < 35 ? entry : { input: entry.input, crisp: entry.crisp, metric: entry.metric },
    );
    const result = await optimizeAgent(lemonade.agent, log, { goal: 'maximize' });
    expect(result).toMatchObject({ status: 'insufficient', evaluationsUsed: 200, needed: needed - 35 });
    expect(result.status === 'insufficient' && result.message).toContain('?explore=');
  });

  it('needs the metric to vary', async () => {
    const log = explorePlaying(lemonade, lemonade.agent, 100, 0.2, seededRandom(1)).map((entry) => ({ ...entry, metric: 7 }));
    const result = await optimizeAgent(lemonade.agent, log, { goal: 'maximize' });
    expect(result).toMatchObject({ status: 'insufficient', evaluationsUsed: 100, needed });
    expect(result.status === 'insufficient' && result.message).toContain('same value');
  });
});
