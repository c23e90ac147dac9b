// Learning's numbers under feedback at the edge of what a double holds (issue 32, item 10): each
// metric value is clipped to ±METRIC_LIMIT as learning reads it (docs/LEARNING.md, "What learning
// reads"), so means, intervals and estimated gains stay numbers. Before, ±1e308 overflowed: the
// performance answered low and high as null, and a proposal claimed a gain of 5.5e307 from noise.
import { afterEach, expect, test } from 'vitest';
import { METRIC_LIMIT } from '../../src/learn/statistics.js';
import { seededRandom } from '../../src/learn/random.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
afterEach(() => t?.close());

test('feedback of ±1e308: the performance interval and an optimisation estimate stay finite, within the clip', async () => {
  t = await createTestService({ random: seededRandom(7) });
  const key = await t.signup('extreme');
  const agent = (await t.call('POST', 'agent', { key, body: { ...tippingAgent(), performance: { score: 'maximize' } } })).body;
  const situations = Array.from({ length: 300 }, (_, i) => ({ service: (i * 37) % 11 }));
  const evaluated = await t.call('POST', `agent/${agent.id}?explore=0.15`, { key, body: situations });
  expect(evaluated.status).toBe(200);
  const ids = evaluated.headers.get('X-Evaluation-ID')!.split(',');
  // noise of ±1e308 with no signal at all, and ordinary values on a few
  const scores = ids.map((_, i) => (i % 10 === 0 ? 3 : i % 2 === 0 ? 1e308 : -1e308));
  for (const [i, id] of ids.entries()) expect((await t.call('POST', `evaluation/${id}/feedback`, { key, body: { score: scores[i] } })).status).toBe(200);
  await t.service.idle();

  const performance = (await t.call('GET', `agent/${agent.id}/performance`, { key })).body;
  const version = performance.versions.find((v: { id: string }) => v.id === agent.latestVersion);
  const { n, mean, low, high } = version.metrics.score;
  expect(n).toBe(300);
  for (const value of [mean, low, high]) {
    expect(typeof value).toBe('number');
    expect(Number.isFinite(value)).toBe(true);
  }
  expect(low).toBeLessThanOrEqual(mean);
  expect(mean).toBeLessThanOrEqual(high);
  // the clipped values' mean, summed here: 30 threes, 120 at +1e15, 150 at −1e15
  const clipped = scores.map((score) => Math.max(-METRIC_LIMIT, Math.min(METRIC_LIMIT, score)));
  expect(mean / (clipped.reduce((sum, score) => sum + score, 0) / clipped.length)).toBeCloseTo(1, 9);
  expect(high - low).toBeGreaterThan(METRIC_LIMIT / 10);

  const optimized = await t.call('POST', `agent/${agent.id}/optimize`, { key, body: { metric: 'score', goal: 'maximize', dryRun: true } });
  expect(optimized.status, JSON.stringify(optimized.body).slice(0, 300)).toBe(200);
  for (const estimate of [optimized.body.before, optimized.body.after]) {
    expect(Number.isFinite(estimate)).toBe(true);
    expect(Math.abs(estimate)).toBeLessThanOrEqual(METRIC_LIMIT);
  }
}, 120_000);
