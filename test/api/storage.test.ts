// GET /storage: the caller's counts per kind of record, and the platform's figures when the
// service is given a storage manager (Chromium's real one: test/browser/storage.test.ts).
import { afterEach, beforeEach, expect, test } from 'vitest';
import { storageStatusSchema } from '../../src/schema/index.js';
import { failWrites, quotaExceeded } from '../support/faults.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
beforeEach(async () => {
  t = await createTestService();
});
afterEach(() => t.close());

test('counts every kind of record of the caller only; usage, quota and persisted are null without a storage manager', async () => {
  const key = await t.signup('counted');
  const other = await t.signup('someone else');
  const empty = await t.call('GET', 'storage', { key });
  expect(empty.status).toBe(200);
  expect(storageStatusSchema.parse(empty.body)).toEqual({
    usage: null,
    quota: null,
    persisted: null,
    counts: { agents: 0, versions: 0, retiredVersions: 0, deletions: 0, evaluations: 0, feedback: 0 },
  });

  const kept = (await t.call('POST', 'agent', { key, body: tippingAgent('kept') })).body;
  await t.call('PUT', `agent/${kept.id}`, { key, body: tippingAgent('kept v2') });
  const gone = (await t.call('POST', 'agent', { key, body: tippingAgent('gone') })).body;
  await t.call('PUT', `agent/${gone.id}`, { key, body: tippingAgent('gone v2') });
  await t.call('PUT', `agent/${gone.id}`, { key, body: tippingAgent('gone v3') });
  const batch = Array.from({ length: 100 }, (_, i) => ({ service: i / 10 }));
  const evaluated = await t.call('POST', `agent/${kept.id}`, { key, body: batch });
  const single = await t.call('POST', `agent/${gone.id}`, { key, body: { service: 3 } });
  const ids = evaluated.headers.get('X-Evaluation-ID')!.split(',');
  for (const id of [ids[0], ids[99], ids[99], single.headers.get('X-Evaluation-ID')]) {
    expect((await t.call('POST', `evaluation/${id}/feedback`, { key, body: { stars: 3 } })).status).toBe(200);
  }
  expect((await t.call('DELETE', `agent/${gone.id}`, { key })).status).toBe(200);
  // another account's records are not counted
  const theirs = (await t.call('POST', 'agent', { key: other, body: tippingAgent() })).body;
  await t.call('POST', `agent/${theirs.id}`, { key: other, body: batch });

  const { body } = await t.call('GET', 'storage', { key });
  expect(body.counts).toEqual({ agents: 1, versions: 2, retiredVersions: 3, deletions: 1, evaluations: 101, feedback: 4 });
  expect((await t.call('GET', 'storage', { key: other })).body.counts).toEqual({
    agents: 1,
    versions: 1,
    retiredVersions: 0,
    deletions: 0,
    evaluations: 100,
    feedback: 0,
  });
});

test('the counts stay exact through every kind of write: evaluate, feedback, delete, retention, import (compared with the stored records counted)', async () => {
  await t.close();
  t = await createTestService({ retention: { perAgent: 60 } });
  const [key, other] = [await t.signup('a'), await t.signup('b')];
  const summed = async () => {
    const all = await Promise.all([key, other].map(async (k) => (await t.call('GET', 'storage', { key: k })).body.counts));
    return { evaluations: all.reduce((sum, c) => sum + c.evaluations, 0), feedback: all.reduce((sum, c) => sum + c.feedback, 0) };
  };
  const kept = (await t.call('POST', 'agent', { key, body: tippingAgent('kept') })).body.id as string;
  const gone = (await t.call('POST', 'agent', { key, body: tippingAgent('gone') })).body.id as string;
  const theirs = (await t.call('POST', 'agent', { key: other, body: tippingAgent() })).body.id as string;
  const batch = Array.from({ length: 100 }, (_, i) => ({ service: i / 10 }));
  const ids = (await t.call('POST', `agent/${kept}`, { key, body: batch })).headers.get('X-Evaluation-ID')!.split(',');
  for (let i = 0; i < 5; i++) ids.push((await t.call('POST', `agent/${gone}`, { key, body: { service: i } })).headers.get('X-Evaluation-ID')!);
  await t.call('POST', `agent/${theirs}`, { key: other, body: batch });
  for (const id of [ids[0], ids[50], ids[50], ids[99], ids[101], ids[104]]) {
    expect((await t.call('POST', `evaluation/${id}/feedback`, { key, body: { stars: 2 } })).status).toBe(200);
  }
  expect(await summed()).toEqual(await t.storedRecords());
  // a single with feedback, a batch item with two, a batch item without
  for (const id of [ids[101], ids[50], ids[7]]) expect((await t.call('DELETE', `evaluation/${id}`, { key })).status).toBe(200);
  expect((await t.call('DELETE', `agent/${gone}`, { key })).status).toBe(200);
  expect(await summed()).toEqual(await t.storedRecords());
  // the batch's oldest go with their feedback
  expect(await t.service.applyRetention()).toBeGreaterThan(0);
  expect(await summed()).toEqual(await t.storedRecords());
  // imported into another database (agent ids are unique across accounts), beside an account of its own
  const exported = await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } });
  const elsewhere = await createTestService();
  try {
    const [restored, bystander] = [await elsewhere.signup('restored'), await elsewhere.signup('bystander')];
    const mine = (await elsewhere.call('POST', 'agent', { key: bystander, body: tippingAgent() })).body.id as string;
    await elsewhere.call('POST', `agent/${mine}`, { key: bystander, body: batch.slice(0, 10) });
    const imported = await elsewhere.call('POST', 'import', {
      key: restored,
      body: await exported.text(),
      headers: { 'Content-Type': 'application/x-ndjson' },
    });
    expect(imported.status).toBe(200);
    const counts = await elsewhere.call('GET', 'storage', { key: restored });
    expect(counts.body.counts).toMatchObject((await t.call('GET', 'storage', { key })).body.counts);
    expect({ evaluations: counts.body.counts.evaluations + 10, feedback: counts.body.counts.feedback }).toEqual(await elsewhere.storedRecords());
  } finally {
    await elsewhere.close();
  }
});

test('usage, quota and persistence come from the storage manager the adapter passes in', async () => {
  await t.close();
  let asked = 0;
  t = await createTestService({
    storageManager: {
      estimate: async () => ({ usage: 1234 + asked++, quota: 10_000_000 }),
      persisted: async () => true,
    },
  });
  const key = await t.signup();
  expect((await t.call('GET', 'storage', { key })).body).toMatchObject({ usage: 1234, quota: 10_000_000, persisted: true });
  // asked on every request, not remembered
  expect((await t.call('GET', 'storage', { key })).body.usage).toBe(1235);
});

test('a storage manager that cannot answer leaves usage, quota and persistence null, the counts still there', async () => {
  // Safari before 17 gives workers a navigator.storage without estimate(); browsers may also reject it
  for (const storageManager of [
    {} as never,
    { estimate: () => Promise.reject(new DOMException('storage is unavailable', 'UnknownError')), persisted: () => Promise.reject(new TypeError('no')) },
  ]) {
    await t.close();
    t = await createTestService({ storageManager });
    const key = await t.signup();
    await t.call('POST', 'agent', { key, body: tippingAgent() });
    const { status, body } = await t.call('GET', 'storage', { key });
    expect(status).toBe(200);
    expect(body).toMatchObject({ usage: null, quota: null, persisted: null, counts: { agents: 1, versions: 1 } });
  }
});

test('GET /storage needs a key', async () => {
  expect((await t.call('GET', 'storage')).status).toBe(401);
});

test('the counts follow DELETE /evaluation, also when a full disk made the delete drop the tally (recounted on the next read)', async () => {
  const key = await t.signup();
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body.id;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await t.call('POST', `agent/${agent}`, { key, body: { service: i } })).headers.get('X-Evaluation-ID')!);
  await t.call('POST', `evaluation/${ids[0]}/feedback`, { key, body: { stars: 1 } });
  await t.call('POST', `evaluation/${ids[1]}/feedback`, { key, body: { stars: 2 } });
  expect((await t.call('DELETE', `evaluation/${ids[0]}`, { key })).status).toBe(200);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 2, feedback: 1 });
  // a full disk: every add and put fails, deletes still work
  const restores = ['tallies', 'logGroups', 'feedback'].map((store) => failWrites(store, quotaExceeded));
  try {
    expect((await t.call('DELETE', `evaluation/${ids[1]}`, { key })).status).toBe(200);
  } finally {
    // each wrapped the one before: unwrap in reverse
    for (const restore of restores.reverse()) restore();
  }
  expect((await t.call('GET', `evaluation/${ids[1]}`, { key })).status).toBe(404);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 1, feedback: 0 });
  // recounted once, then kept again by every write
  expect((await t.call('POST', `agent/${agent}`, { key, body: [{ service: 1 }, { service: 2 }] })).status).toBe(200);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 3, feedback: 0 });
});
