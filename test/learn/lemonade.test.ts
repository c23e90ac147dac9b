// The lemonade stand as fuzzy.ai's published app played it (test/learn/lemonade.ts): the harness
// checked against the service itself, the baselines' standing, and autopilot through the real
// handler with evaluate + feedback only. bench/lemonade.bench.ts plays five seeds against every baseline.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { createFuzzyService } from '../../src/index.js';
import { seededRandom } from '../../src/learn/random.js';
import { autopilotPlayer, banditPlayer, callOn, linearBanditPlayer, oraclePlayer, play, servedParts, staticPlayer, type Play } from './arena.js';
import { buyer, BUYERS_PER_DAY, lemonadeDays, lemonadeStand, profitOf, seller } from './lemonade.js';

const DAYS = 12;
const EVALUATIONS = DAYS * BUYERS_PER_DAY;
const sum = (values: ArrayLike<number>, from = 0, to = values.length) => {
  let total = 0;
  for (let i = from; i < to; i++) total += values[i]!;
  return total;
};
const lastTwoDays = (result: Play) => sum(result.served, EVALUATIONS - 2 * BUYERS_PER_DAY) / 2;

describe('the lemonade stand as published', () => {
  it('both agents are accepted as published, and a sale is what the buyer agent, asked through the service, says', async () => {
    const service = createFuzzyService({ indexedDB: new IDBFactory(), IDBKeyRange });
    const call = async (method: string, path: string, key: string | undefined, body?: unknown) => (await callOn(service)(method, path, key, body)).body;
    const { apiKey } = await call('POST', 'account', undefined, {});
    await call('POST', 'agent', apiKey, seller);
    const { id: buyerID } = await call('POST', 'agent', apiKey, buyer);
    const random = seededRandom(4);
    let sales = 0;
    for (let i = 0; i < 60; i++) {
      const situation = { numBuyers: 1 + Math.floor(random() * 100), temperature: Math.round(random() * 100), sunny: Math.round(random()) };
      const price = random() * 5;
      const asked = Math.round(price * 100) / 100;
      const { willBuy } = await call('POST', `agent/${buyerID}`, apiKey, { price: asked, ...situation });
      const expected = willBuy > 0.5 ? Math.round((asked - 0.5) * 100) / 100 : 0;
      expect(profitOf(situation, price)).toBe(expected);
      if (expected !== 0) sales++;
    }
    // both sides of the threshold were checked
    expect(sales).toBeGreaterThan(5);
    expect(sales).toBeLessThan(55);
    await service.close();
  });

  it("each day's buyers count down from 100, and the weather is redrawn before about half of them", () => {
    const situations = lemonadeDays(seededRandom(8), 10 * BUYERS_PER_DAY);
    let redrawn = 0;
    for (const [n, { numBuyers, temperature, sunny }] of situations.entries()) {
      expect(numBuyers).toBe(BUYERS_PER_DAY - (n % BUYERS_PER_DAY));
      expect(Number.isInteger(temperature) && temperature! >= 0 && temperature! <= 100).toBe(true);
      expect([0, 1]).toContain(sunny);
      const before = n % BUYERS_PER_DAY === 0 ? { temperature: 32, sunny: 0 } : situations[n - 1]!;
      if (temperature !== before.temperature || sunny !== before.sunny) redrawn++;
    }
    // a redraw can give the same weather (1 in 202); 1,000 coin flips land within 450..550 but for 1 run in 1,600
    expect(redrawn).toBeGreaterThan(440);
    expect(redrawn).toBeLessThan(550);
  });

  it('the bandits find what the seller as created leaves: at least +30% over the last two days, the best price per buyer +80%', async () => {
    const start = lastTwoDays(await play(lemonadeStand, staticPlayer(lemonadeStand), EVALUATIONS, 1));
    const ucb = lastTwoDays(
      await play(lemonadeStand, banditPlayer(lemonadeStand, { levels: 19, buckets: { temperature: 5, sunny: 2 }, c: 0.1, greedy: 'mean' }), EVALUATIONS, 1),
    );
    const linear = lastTwoDays(await play(lemonadeStand, linearBanditPlayer(lemonadeStand, { levels: 19, alpha: 1 }), EVALUATIONS, 1));
    const best = lastTwoDays(await play(lemonadeStand, oraclePlayer(lemonadeStand), EVALUATIONS, 1));
    expect(ucb).toBeGreaterThan(1.3 * start);
    expect(linear).toBeGreaterThan(1.3 * start);
    expect(best).toBeGreaterThan(1.8 * start);
  }, 60_000);
});

describe('autopilot on the lemonade stand: evaluate and feedback, nothing else', () => {
  it('what it serves is the seller as created plus what its versions, trials and draws each add, and at least 15% more over the last two days', async () => {
    const start = await play(lemonadeStand, staticPlayer(lemonadeStand), EVALUATIONS, 1);
    const player = await autopilotPlayer(lemonadeStand, 1);
    const learnt = await play(lemonadeStand, player, EVALUATIONS, 1);
    const split = await servedParts(lemonadeStand, player, 1, EVALUATIONS, BUYERS_PER_DAY);
    await player.close();
    for (let day = 0; day < DAYS; day++) {
      const [from, to] = [day * BUYERS_PER_DAY, (day + 1) * BUYERS_PER_DAY];
      const parts = split.parts.versions[day]! + split.parts.trials[day]! + split.parts.exploration[day]!;
      expect(sum(learnt.served, from, to) - sum(start.served, from, to)).toBeCloseTo(parts, 6);
    }
    // docs/LEARNING.md, "The lemonade stand": the versions gain, and the draws, narrowing with the
    // evidence, no longer lose it all: what is served over the last two days is at least 15% above
    // the seller as created (seed 1: +23%). The target, +40% and ahead of UCB (+44% on
    // this seed), is not met, so not asserted.
    const versions = sum(split.parts.versions, DAYS - 2) / 2 / lastTwoDays(start);
    expect(versions).toBeGreaterThan(0.15);
    expect(lastTwoDays(learnt)).toBeGreaterThan(1.15 * lastTwoDays(start));
  }, 1_200_000);
});
