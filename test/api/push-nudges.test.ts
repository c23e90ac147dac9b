// A push with feedback is news for autopilot only on the agents whose evaluations it is on (issue
// 32, item 3): every agent of the account with `performance` was checked after each push, so in
// an account of 2,000 autopilot agents a one-line feedback push stalled a server for seconds.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('nudged');
});
afterEach(async () => t.close());

test('a one-line feedback push checks the one agent it concerns, not all of the account', async () => {
  const agents: string[] = [];
  for (let i = 0; i < 30; i++)
    agents.push((await t.call('POST', 'agent', { key, body: { ...tippingAgent(`a${i}`), performance: { score: 'maximize' } } })).body.id);
  const target = agents[17]!;
  const log = (await t.call('POST', `agent/${target}`, { key, body: { service: 3 } })).headers.get('x-evaluation-id')!;
  await t.service.idle();
  const checked = vi.spyOn(t.store, 'readAutopilot');
  const line = { kind: 'feedback', id: randomUUID(), evaluationLog: log, data: { score: 2 }, createdAt: new Date().toISOString() };
  const header = { format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() };
  const pushed = await t.call('POST', 'sync/push', {
    key,
    body: `${JSON.stringify(header)}\n${JSON.stringify(line)}\n`,
    headers: { 'Content-Type': 'application/x-ndjson' },
  });
  expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
  expect(pushed.body).toMatchObject({ imported: 1 });
  await t.service.idle();
  expect(new Set(checked.mock.calls.map((call) => call[1]))).toEqual(new Set([target]));
  // the feedback is there, and autopilot saw it
  expect((await t.call('GET', `evaluation/${log}/feedback`, { key })).body).toHaveLength(1);
  // a push of feedback already stored is no news
  checked.mockClear();
  expect(
    (
      await t.call('POST', 'sync/push', {
        key,
        body: `${JSON.stringify(header)}\n${JSON.stringify(line)}\n`,
        headers: { 'Content-Type': 'application/x-ndjson' },
      })
    ).body,
  ).toMatchObject({ imported: 0, unchanged: 1 });
  await t.service.idle();
  expect(checked).not.toHaveBeenCalled();
});
