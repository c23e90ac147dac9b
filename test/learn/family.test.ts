// The family of random worlds (test/learn/family.ts): what the generator draws, over 120 seeds,
// and autopilot against the bandits on a seeded pair of them (the CI's subset of the issue's
// targets). bench/family.bench.ts plays 40 worlds drawn at run time against every baseline.
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import { seededRandom } from '../../src/learn/random.js';
import { autopilotPlayer, play, situationsOf, staticPlayer, type Play } from './arena.js';
import { FAMILY_DAY, randomWorld, randomWorlds } from './family.js';

const worlds = Array.from({ length: 120 }, (_, i) => randomWorld(i + 1));

describe('the family of worlds', () => {
  it('draws every kind: 1–4 inputs, 1–2 outputs, each shape, noise and way situations follow, drift, inputs outside the sets and 0/1 ones', () => {
    const seen = <T>(values: T[]) => new Set(values);
    expect(seen(worlds.map((w) => w.traits.inputs))).toEqual(new Set([1, 2, 3, 4]));
    expect(seen(worlds.map((w) => w.traits.outputs))).toEqual(new Set([1, 2]));
    expect(seen(worlds.map((w) => w.traits.shape))).toEqual(new Set(['peak', 'cliff', 'noisy cliff', 'ridge', 'interacting']));
    expect(seen(worlds.map((w) => w.traits.noise))).toEqual(new Set(['gaussian', 'heavy-tailed', 'bernoulli']));
    expect(seen(worlds.map((w) => w.traits.flow))).toEqual(new Set(['independent', 'lasting', 'daily']));
    expect(worlds.filter((w) => w.traits.drift).length).toBeGreaterThan(20);
    expect(worlds.filter((w) => w.traits.outside > 0).length).toBeGreaterThan(20);
    expect(worlds.filter((w) => w.traits.binary > 0).length).toBeGreaterThan(20);
  });

  it('the same seed draws the same world', () => {
    expect(JSON.stringify(randomWorld(77).agent)).toBe(JSON.stringify(worlds[76]!.agent));
    expect(situationsOf(randomWorld(77), seededRandom(3), 50)).toEqual(situationsOf(worlds[76]!, seededRandom(3), 50));
  });

  it('sends inputs past the sets the agent has for them, and only 0 or 1 to 0/1 inputs', () => {
    for (const world of worlds.filter((w) => w.traits.outside > 0).slice(0, 10)) {
      const ranges = compileAgent(world.agent).inputs;
      const situations = situationsOf(world, seededRandom(1), 600);
      const past = Object.keys(ranges).filter((name) => situations.some((s) => s[name]! > ranges[name]!.range[1]));
      expect(past.length, world.name).toBe(world.traits.outside);
    }
    for (const world of worlds.filter((w) => w.traits.binary > 0).slice(0, 10)) {
      const binary = Object.entries(world.agent.inputs)
        .filter(([, terms]) => 'yes' in terms)
        .map(([name]) => name);
      for (const situation of situationsOf(world, seededRandom(1), 200)) for (const name of binary) expect([0, 1]).toContain(situation[name]);
    }
  });

  it('situations follow each other as drawn: one a day for daily worlds, anew each time for independent ones', () => {
    const distinct = (flow: string) => {
      const world = worlds.find((w) => w.traits.flow === flow && w.traits.binary === 0)!;
      return new Set(situationsOf(world, seededRandom(2), 10 * FAMILY_DAY).map((s) => JSON.stringify(s))).size;
    };
    expect(distinct('daily')).toBe(10);
    expect(distinct('independent')).toBeGreaterThan(1000);
    const lasting = distinct('lasting');
    expect(lasting).toBeGreaterThan(10);
    expect(lasting).toBeLessThan(1000);
  });

  it("leaves out the worlds where no person's guess earns (100 of these 120 are kept), and in the others the starting agent earns", async () => {
    expect(worlds.filter((w) => w.plausible).length).toBeGreaterThan(0.75 * worlds.length);
    const plausible = randomWorlds(1, 30);
    expect(plausible.every((w) => w.plausible)).toBe(true);
    let earning = 0;
    for (const world of plausible) if ((await play(world, staticPlayer(world), 10 * FAMILY_DAY, 1)).cumulative > 0) earning++;
    expect(earning).toBeGreaterThanOrEqual(28);
  }, 60_000);

  it('Bernoulli outcomes are 0 or the largest outcome, and average to the expected value', async () => {
    const world = worlds.find((w) => w.traits.noise === 'bernoulli' && w.plausible)!;
    const result = await play(world, staticPlayer(world), 4000, 5);
    // value + (outcome − value) is the outcome to the last bit or two
    const top = Math.max(...result.served);
    expect(result.served.every((value) => Math.abs(value) < 1e-9 * top || Math.abs(value - top) < 1e-9 * top)).toBe(true);
    expect(result.served.some((value) => Math.abs(value) < 1e-9 * top)).toBe(true);
    const compiled = compileAgent(world.agent);
    const situations = situationsOf(world, seededRandom(5), 4000);
    const expected = situations.reduce((sum, situation, i) => sum + world.expected(situation, evaluate(compiled, situation).crisp, i / 4000), 0) / 4000;
    // 4,000 outcomes of 0 or top: within 4 standard errors of the mean
    expect(Math.abs(result.cumulative - expected)).toBeLessThan((4 * top * 0.5) / Math.sqrt(4000));
  }, 60_000);
});

describe('autopilot on worlds nobody chose: evaluate and feedback, nothing else', () => {
  const days = 10;
  const evaluations = days * FAMILY_DAY;
  const served = (result: Play, from = 0) => result.served.slice(from).reduce((sum, value) => sum + value, 0);
  const lastTwoDays = (result: Play) => served(result, evaluations - 2 * FAMILY_DAY);

  // The first plausible world of the family (seed 1: one input that is 0/1, two outputs, a peak
  // that drifts), one run (CI's time). The targets it asserts: at least +30% over the starting
  // agent over the last two days, and never more than 2% below it over all ten. Being ahead of the
  // bandits is not asserted: it is not met (docs/LEARNING.md, "Worlds nobody chose": here UCB
  // serves +137%, autopilot about +50%).
  const world = randomWorlds(1, 1)[0]!;
  it(`${world.name}: at least +30% over the starting agent over the last two days, and not 2% below it over all ten`, async () => {
    const start = await play(world, staticPlayer(world), evaluations, 1);
    const player = await autopilotPlayer(world, 1);
    const learnt = await play(world, player, evaluations, 1);
    await player.close();
    const gain = (score: (result: Play) => number) => (score(learnt) - score(start)) / Math.abs(score(start));
    expect(gain(lastTwoDays), 'gain over the last two days').toBeGreaterThan(0.3);
    expect(gain(served), 'gain over all ten days').toBeGreaterThan(-0.02);
  }, 900_000);
});
