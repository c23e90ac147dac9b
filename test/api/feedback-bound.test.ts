// An evaluation holds at most MAX_FEEDBACK_PER_EVALUATION feedback records (issue 32, item 8):
// its feedback is listed whole, by GET /evaluation/:id/feedback and in GET /agent/:id/evaluation,
// and 50,000 on one evaluation made `?limit=1` a 9 MB answer. REST refuses the next with a 409,
// an import with a 400 naming the line; a push leaves it out (replicas that each kept to the
// bound may together pass it, and a refusal would stop their sync for good).
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { MAX_FEEDBACK_PER_EVALUATION } from '../../src/schema/feedback.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('bounded');
});
afterEach(async () => t.close());

test('the feedback one evaluation holds is bounded on every way in', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const log = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 4 } })).headers.get('x-evaluation-id')!;
  for (let i = 0; i < MAX_FEEDBACK_PER_EVALUATION; i++) expect((await t.call('POST', `evaluation/${log}/feedback`, { key, body: { n: i } })).status).toBe(200);
  const refused = await t.call('POST', `evaluation/${log}/feedback`, { key, body: { n: -1 } });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ status: 'error', error: 'Conflict' });
  expect(refused.body.message).toContain(`already has ${MAX_FEEDBACK_PER_EVALUATION} feedback records`);
  const listed = (await t.call('GET', `evaluation/${log}/feedback`, { key })).body;
  expect(listed.map((f: { data: { n: number } }) => f.data.n)).toEqual(Array.from({ length: MAX_FEEDBACK_PER_EVALUATION }, (_, i) => i));
  expect((await t.call('GET', `agent/${agent.id}/evaluation?limit=1`, { key })).body.evaluations[0].feedback).toHaveLength(MAX_FEEDBACK_PER_EVALUATION);

  const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });
  const more = JSON.stringify({ kind: 'feedback', id: randomUUID(), evaluationLog: log, data: { n: 1000 }, createdAt: new Date().toISOString() });
  const before = await t.snapshot();
  const imported = await t.call('POST', 'import', { key, body: `${header}\n${more}\n`, headers: { 'Content-Type': 'application/x-ndjson' } });
  expect(imported.status).toBe(400);
  expect(imported.body.message).toMatch(new RegExp(`^line 2: evaluation "${log}" already has ${MAX_FEEDBACK_PER_EVALUATION} feedback records`));
  expect(await t.snapshot()).toBe(before);
  const pushed = await t.call('POST', 'sync/push', { key, body: `${header}\n${more}\n`, headers: { 'Content-Type': 'application/x-ndjson' } });
  expect(pushed.status).toBe(200);
  expect(pushed.body).toMatchObject({ imported: 0, unchanged: 1 });
  expect((await t.call('GET', `evaluation/${log}/feedback`, { key })).body).toHaveLength(MAX_FEEDBACK_PER_EVALUATION);
});
