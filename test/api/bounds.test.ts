// The work and the answer of one request are bounded before anything runs or is written
// (docs/REST.md, "Cost of a request"): an agent at the size limits cannot take a big batch, the
// largest request the budget allows goes through, and an answer too large to build is refused
// with nothing stored, instead of a 500 after the logs were committed.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { compileAgent, evaluationCost } from '../../src/engine/index.js';
import { ITEM_STEPS, MAX_ANSWER_CHARS, REQUEST_BUDGET } from '../../src/core/request-cost.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
});
afterEach(async () => {
  await t.close();
});

const sets = (count: number, make: (i: number) => number[]) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, make(i)]));

/** bench/engine.bench.ts's agent at the size limits: 10 outputs × 100 sets that all overlap. */
function atTheLimits() {
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const outputs = Object.fromEntries(
    Array.from({ length: 10 }, (_, o) => [`o${o}`, sets(100, () => [random(), 40 + random() * 10, 50 + random() * 10, 99 + random()])]),
  );
  const rules = Array.from({ length: 100 }, (_, i) => `IF x IS s${i} THEN ${Array.from({ length: 10 }, (_, o) => `o${o} IS s${i}`).join(', ')}`);
  return { name: 'limits', inputs: { x: sets(100, (i) => [i - 100, i, i + 100]) }, outputs, rules };
}

/** 3 outputs of 30 triangles that all overlap: a few milliseconds an evaluation. */
function overlapping() {
  const outputs = Object.fromEntries(Array.from({ length: 3 }, (_, o) => [`o${o}`, sets(30, (i) => [0, 40 + ((i * 7 + o) % 30) * 0.6, 100])]));
  const rules = Array.from({ length: 30 }, (_, i) => `IF x IS s${i} THEN o0 IS s${i}, o1 IS s${i}, o2 IS s${i}`);
  return { name: 'overlapping', inputs: { x: sets(30, (i) => [i * 3 - 50, i * 3, i * 3 + 50]) }, outputs, rules };
}

const xs = (count: number) => Array.from({ length: count }, (_, i) => ({ x: (i * 97) % 100 }));

test('an agent at the size limits with a batch of 4096 is refused (413) before anything is written; one item is answered', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: atTheLimits() })).body;
  const before = await t.snapshot();
  const refused = await t.call('POST', `agent/${agent.id}`, { key, body: xs(4096) });
  expect(refused.status).toBe(413);
  expect(refused.body.error).toBe('PayloadTooLarge');
  const perItem = evaluationCost(compileAgent(atTheLimits())) + ITEM_STEPS;
  expect(perItem).toBeGreaterThan(REQUEST_BUDGET);
  expect(refused.body.message).toContain(`4096 items × ${perItem.toLocaleString('en-US')} per evaluation`);
  expect(refused.body.message).toContain(`over the ${REQUEST_BUDGET.toLocaleString('en-US')} one request may cost; send at most 1 item per request`);
  expect(refused.headers.get('X-Evaluation-ID')).toBeNull();
  expect(await t.snapshot()).toBe(before);
  // two items are already over; one is what the engine's limits bound on their own
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: xs(2) })).status).toBe(413);
  const one = await t.call('POST', `agent/${agent.id}`, { key, body: [{ x: 49.5 }] });
  expect(one.status).toBe(200);
  expect(Object.keys(one.body[0])).toHaveLength(10);
});

test('the largest batch the budget allows is answered and stored; one more item is refused', async () => {
  const definition = overlapping();
  const perItem = evaluationCost(compileAgent(definition)) + ITEM_STEPS;
  const most = Math.floor(REQUEST_BUDGET / perItem);
  expect(most).toBeGreaterThan(1);
  expect(most).toBeLessThan(4096);
  const agent = (await t.call('POST', 'agent', { key, body: definition })).body;
  const before = await t.snapshot();
  const over = await t.call('POST', `agent/${agent.id}`, { key, body: xs(most + 1) });
  expect(over.status).toBe(413);
  expect(over.body.message).toContain(`send at most ${most} items per request`);
  expect(await t.snapshot()).toBe(before);

  const largest = await t.call('POST', `agent/${agent.id}`, { key, body: xs(most) });
  expect(largest.status).toBe(200);
  expect(largest.body).toHaveLength(most);
  const ids = largest.headers.get('X-Evaluation-ID')!.split(',');
  expect(ids).toHaveLength(most);
  const log = await t.call('GET', `evaluation/${ids[most - 1]}`, { key });
  expect(log.body.crisp).toEqual(largest.body[most - 1]);
});

test('ordinary agents keep batches of 4096', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const batch = Array.from({ length: 4096 }, (_, i) => ({ service: (i % 101) / 10 }));
  const answered = await t.call('POST', `agent/${agent.id}?meta=1`, { key, body: batch });
  expect(answered.status).toBe(200);
  expect(answered.body).toHaveLength(4096);
});

/** Every rule fires and is 1,900 characters long, so ?meta carries ~0.8 MB of rule text per item. */
function wordy() {
  const condition = Array.from({ length: 170 }, () => 'x IS a').join(' OR ');
  const rules = Array.from({ length: 400 }, () => `IF ${condition} THEN y IS b`);
  return { name: 'wordy', inputs: { x: { a: [0, 5, 10] } }, outputs: { y: { b: [0, 5, 10] } }, rules };
}

test('?meta on a batch whose answer would be too large is refused (413) before any log is written', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: wordy() })).body;
  const before = await t.snapshot();
  const items = Math.ceil(MAX_ANSWER_CHARS / 750_000) + 10;
  const refused = await t.call('POST', `agent/${agent.id}?meta=1`, { key, body: Array.from({ length: items }, () => ({ x: 5 })) });
  expect(refused.status).toBe(413);
  expect(refused.body.message).toContain(`the answer to these ${items} items would exceed 64 MiB, so nothing was stored`);
  expect(refused.body.message).toContain('leave out ?meta');
  expect(refused.headers.get('X-Evaluation-ID')).toBeNull();
  expect(await t.snapshot()).toBe(before);
  // without ?meta the same batch is small, and stored whole
  const plain = await t.call('POST', `agent/${agent.id}`, { key, body: Array.from({ length: items }, () => ({ x: 5 })) });
  expect(plain.status).toBe(200);
  expect(plain.headers.get('X-Evaluation-ID')!.split(',')).toHaveLength(items);
  // a few items with ?meta come back with their ids
  const few = await t.call('POST', `agent/${agent.id}?meta=1`, { key, body: [{ x: 5 }, { x: 4 }] });
  expect(few.status).toBe(200);
  expect(few.body.map((item: { meta: { reqID: string } }) => item.meta.reqID).join(',')).toBe(few.headers.get('X-Evaluation-ID'));
  expect(few.body[0].meta.rules).toHaveLength(400);
});

test('a PUT that lands while a batch is evaluated: the logs are of the version they were computed on, the latest', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: overlapping() })).body;
  const evaluating = t.call('POST', `agent/${agent.id}`, { key, body: xs(60) });
  const changed = { ...overlapping(), rules: ['IF x IS s0 THEN o0 IS s1'] };
  const put = await t.call('PUT', `agent/${agent.id}`, { key, body: changed });
  const answered = await evaluating;
  expect(answered.status).toBe(200);
  const ids = answered.headers.get('X-Evaluation-ID')!.split(',');
  const log = (await t.call('GET', `evaluation/${ids[0]}`, { key })).body;
  const version = (await t.call('GET', `version/${log.versionID}`, { key })).body;
  expect(log.createdAt >= version.createdAt).toBe(true);
  expect(log.versionID).toBe(put.body.latestVersion);
  expect(answered.body[0]).toEqual(log.crisp);
});
