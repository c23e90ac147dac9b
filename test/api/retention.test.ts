// Retention: the service drops the logs its policy does not keep, with their feedback, in the
// background; what is kept reads back unchanged.
import { afterEach, expect, test, vi } from 'vitest';
import { createFuzzyService } from '../../src/index.js';
import { failWrites, quotaExceeded } from '../support/faults.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const counts = async (service: TestService, key: string) => (await service.call('GET', 'storage', { key })).body.counts;

/** Agent A: a batch of 100 then 3 singles; agent B: 10 singles; feedback on A's oldest and newest log. */
async function seed(service: TestService, key: string) {
  const a = (await service.call('POST', 'agent', { key, body: tippingAgent('a') })).body.id as string;
  const b = (await service.call('POST', 'agent', { key, body: tippingAgent('b') })).body.id as string;
  const batch = Array.from({ length: 100 }, (_, i) => ({ service: i / 10 }));
  const ids = (await service.call('POST', `agent/${a}`, { key, body: batch })).headers.get('X-Evaluation-ID')!.split(',');
  for (let i = 0; i < 3; i++) ids.push((await service.call('POST', `agent/${a}`, { key, body: { service: i } })).headers.get('X-Evaluation-ID')!);
  for (let i = 0; i < 10; i++) await service.call('POST', `agent/${b}`, { key, body: { service: i } });
  for (const id of [ids[0], ids[102]]) expect((await service.call('POST', `evaluation/${id}/feedback`, { key, body: { stars: 1 } })).status).toBe(200);
  return { a, b, ids };
}

test('last N per agent: each agent keeps its newest N logs, the rest go with their feedback', async () => {
  t = await createTestService({ retention: { perAgent: 50 } });
  const key = await t.signup();
  const { ids } = await seed(t, key);
  expect(await t.service.applyRetention()).toBe(103 - 50);
  expect(await counts(t, key)).toMatchObject({ evaluations: 60, feedback: 1 });
  // the newest 50 of A are the 3 singles and the batch's last 47
  for (const [index, status] of [
    [0, 404],
    [52, 404],
    [53, 200],
    [99, 200],
    [102, 200],
  ] as const) {
    expect((await t.call('GET', `evaluation/${ids[index]}`, { key })).status).toBe(status);
  }
  expect((await t.call('GET', `evaluation/${ids[53]}`, { key })).body.input).toEqual({ service: 5.3 });
  // a second sweep finds nothing more to drop
  expect(await t.service.applyRetention()).toBe(0);
});

test('last N per agent also trims an agent deleted on a full disk (no tombstone, its versions left in place)', async () => {
  t = await createTestService({ retention: { perAgent: 50 } });
  const key = await t.signup();
  const { a, ids } = await seed(t, key);
  const restore = failWrites('retiredVersions', quotaExceeded);
  try {
    expect((await t.call('DELETE', `agent/${a}`, { key })).status).toBe(200);
  } finally {
    restore();
  }
  expect(await t.service.applyRetention()).toBe(103 - 50);
  expect(await counts(t, key)).toMatchObject({ evaluations: 60 });
  expect((await t.call('GET', `evaluation/${ids[0]}`, { key })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${ids[102]}`, { key })).status).toBe(200);
});

test('keepWithFeedback keeps an old log that received feedback', async () => {
  t = await createTestService({ retention: { perAgent: 5, keepWithFeedback: true } });
  const key = await t.signup();
  const { ids } = await seed(t, key);
  await t.service.applyRetention();
  expect(await counts(t, key)).toMatchObject({ evaluations: 11, feedback: 2 });
  expect((await t.call('GET', `evaluation/${ids[0]}`, { key })).status).toBe(200);
  expect((await t.call('GET', `evaluation/${ids[1]}`, { key })).status).toBe(404);
});

test('days: logs older than N days go, newer ones stay', async () => {
  t = await createTestService({ retention: { days: 30 } });
  const key = await t.signup();
  const { ids } = await seed(t, key);
  // a backup restored with 40-day-old logs: rewrite the dates of A's batch
  const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
  const backup = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  const aged = backup
    .split('\n')
    .map((line) =>
      line.includes('"kind":"evaluation"') && ids.slice(0, 100).some((id) => line.includes(id))
        ? line.replace(/"createdAt":"[^"]+"/, `"createdAt":"${old}"`)
        : line,
    )
    .join('\n');
  const restored = createFuzzyService({ ...(await freshStorage()), retention: { days: 30 } });
  try {
    const account = await restored.createAccount();
    const call = (method: string, path: string, body?: string) =>
      restored.handle(
        new Request(`http://local/${path}`, {
          method,
          headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/x-ndjson' },
          ...(body ? { body } : {}),
        }),
      );
    expect((await call('POST', 'import', aged)).status).toBe(200);
    expect(await restored.applyRetention()).toBe(100);
    expect(((await (await call('GET', 'storage')).json()) as any).counts).toMatchObject({ evaluations: 13, feedback: 1 });
    expect((await call('GET', `evaluation/${ids[100]}`)).status).toBe(200);
  } finally {
    await restored.close();
  }
  // the service that made them drops nothing: they are all new
  expect(await t.service.applyRetention()).toBe(0);
});

test('the policy is applied in the background, started by a request', async () => {
  t = await createTestService({ retention: { perAgent: 1 } });
  const key = await t.signup();
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body.id;
  await t.call('POST', `agent/${agent}`, { key, body: [{ service: 1 }, { service: 2 }, { service: 3 }] });
  // the first request started a sweep (before any log existed); one an hour, so this one waits
  expect((await counts(t, key)).evaluations).toBe(3);
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61 * 60 * 1000 });
  try {
    await t.call('GET', 'agent', { key });
  } finally {
    vi.useRealTimers();
  }
  await vi.waitFor(async () => expect((await counts(t!, key)).evaluations).toBe(1));
});

test('an invalid policy fails at start', () => {
  expect(() => createFuzzyService({ retention: {} })).toThrow(/days, perAgent or both/);
  expect(() => createFuzzyService({ retention: { days: -1 } })).toThrow(/retention/);
});

async function freshStorage() {
  const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}
