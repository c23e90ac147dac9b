// Bad input to the learning endpoints never breaks the service: fast-check sends arbitrary bodies
// to POST /agent/:id/optimize and arbitrary ?explore= values to inference. Never a 500, the error
// shape on every 4xx, and after every 4xx the database is unchanged.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seededRandom } from '../../src/learn/random.js';
import { errorBodySchema } from '../../src/schema/index.js';
import { optimizeResultSchema } from '../../src/schema/optimize.js';
import { createTestService, type TestService } from '../support/service.js';
import { lemonade } from './worlds.js';

let t: TestService;
let key: string;
let agentID: string;

beforeAll(async () => {
  t = await createTestService({ random: seededRandom(1) });
  key = await t.signup('fuzz');
  agentID = (await t.call('POST', 'agent', { key, body: { name: 'lemonade', ...lemonade.agent } })).body.id;
  const random = seededRandom(2);
  const situations = Array.from({ length: 80 }, () => lemonade.situation(random));
  const explored = await t.call('POST', `agent/${agentID}?explore=0.2`, { key, body: situations });
  const ids = explored.headers.get('X-Evaluation-ID')!.split(',');
  for (const [i, reqID] of ids.entries()) {
    const profit = lemonade.outcome(situations[i]!, explored.body[i], random);
    await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { profit, cups: i % 3 } });
  }
});
afterAll(() => t.close());

const anyText = fc.string({ unit: 'grapheme', maxLength: 12 });
const optimizeBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        metric: fc.oneof(fc.constantFrom('profit', 'cups', 'revenue', ''), anyText, fc.jsonValue()),
        goal: fc.oneof(fc.constantFrom('maximize', 'minimize', 'max', 'MAXIMIZE'), fc.jsonValue()),
        dryRun: fc.oneof(fc.boolean(), fc.jsonValue()),
        tuneInputs: fc.oneof(fc.boolean(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
  },
  fc.jsonValue(),
);

test('arbitrary optimize bodies: never a 500, and a 4xx changes nothing', async () => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(optimizeBody, async (body) => {
      const before = await t.snapshot();
      const answer = await t.call('POST', `agent/${agentID}/optimize`, { key, body: JSON.stringify(body) });
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      expect([200, 400, 409]).toContain(answer.status);
      if (answer.status === 200) expect(optimizeResultSchema.safeParse(answer.body).success).toBe(true);
      else {
        expect(errorBodySchema.safeParse(answer.body).success).toBe(true);
        expect(await t.snapshot()).toBe(before);
      }
    }),
    { numRuns: 80, seed: 7 },
  );
  // the generators reach past validation into real optimizations
  expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([200, 400]));
}, 120_000);

test('arbitrary ?explore= values: a 200 within (0, 0.5], else a 400 that stores nothing', async () => {
  const value = fc.oneof(
    fc.double({ min: -1, max: 1, noNaN: true }).map(String),
    fc.constantFrom('', ' ', '0', '0.5', '5e-1', '1e-9', 'NaN', 'Infinity', '0x1', '.25', '0.1,0.2'),
    fc.string({ maxLength: 8 }),
  );
  await fc.assert(
    fc.asyncProperty(value, async (scale) => {
      const before = await t.snapshot();
      const answer = await t.call('POST', `agent/${agentID}?explore=${encodeURIComponent(scale)}`, { key, body: { temperature: 25 } });
      const number = scale.trim() === '' ? NaN : Number(scale);
      if (number > 0 && number <= 0.5) {
        expect(answer.status).toBe(200);
        expect(answer.body.price).toBeGreaterThanOrEqual(0);
        expect(answer.body.price).toBeLessThanOrEqual(3);
      } else {
        expect(answer.status).toBe(400);
        expect(errorBodySchema.safeParse(answer.body).success).toBe(true);
        expect(await t.snapshot()).toBe(before);
      }
    }),
    { numRuns: 150, seed: 7 },
  );
});
