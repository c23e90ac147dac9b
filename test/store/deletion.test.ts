// DELETE moves the agent's versions into retiredVersions and leaves its evaluation logs exactly as
// they were. On a full disk, where browsers commit only transactions that add nothing, it removes
// the agent's record alone and the versions stay where they are: deleting always works.
import { Dexie } from 'dexie';
import { IDBKeyRange } from 'fake-indexeddb';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { failWrites, quotaExceeded } from '../support/faults.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let restore: (() => void) | undefined;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
});
afterEach(async () => {
  restore?.();
  restore = undefined;
  await t.close();
});

/** Every record of `table`, read independently of the service. */
async function records(table: string): Promise<unknown[]> {
  const reader = new Dexie(t.dbName, { indexedDB: t.indexedDB, IDBKeyRange });
  try {
    await reader.open();
    return await reader.table(table).toArray();
  } finally {
    reader.close();
  }
}

test('on a full disk DELETE only deletes, and the logs read back as before', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const first = (await t.call('POST', `agent/${agent.id}`, { key, body: [{ service: 1 }, { service: 4.5 }, { service: 9 }] })).headers.get('X-Evaluation-ID')!;
  const renamed = (await t.call('PUT', `agent/${agent.id}`, { key, body: { ...tippingAgent('second'), rules: ['IF service IS poor THEN tip IS high'] } })).body;
  const second = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 2.5 } })).headers.get('X-Evaluation-ID')!;
  const reqIDs = [...first.split(','), second];
  const logs = await Promise.all(reqIDs.map(async (reqID) => (await t.call('GET', `evaluation/${reqID}`, { key })).body));
  const storedLogs = JSON.stringify(await records('logGroups'));
  const versions = await records('versions');
  expect(versions).toHaveLength(2);

  // every write that adds fails, as on a full disk, and so does any write to the logs
  const stores = ['accounts', 'agents', 'versions', 'retiredVersions', 'deletedAgents', 'feedback'];
  const restores = stores.map((store) => failWrites(store, quotaExceeded));
  restores.push(failWrites('logGroups', quotaExceeded, { methods: ['add', 'put', 'delete', 'clear'] }));
  restore = () => [...restores].reverse().forEach((undo) => undo());
  expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
  restore();

  expect(JSON.stringify(await records('logGroups'))).toBe(storedLogs);
  expect(await records('agents')).toEqual([]);
  expect(await records('versions')).toEqual(versions);
  expect(await records('deletedAgents')).toEqual([]);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ agents: 0, versions: 0, retiredVersions: 2, deletions: 1 });
  for (const [i, reqID] of reqIDs.entries()) {
    expect((await t.call('GET', `evaluation/${reqID}`, { key })).body).toEqual(logs[i]);
  }
  // the second version sends poor (0.5 at 2.5) to high: [20,25,30] cut at 0.5 is symmetric about 25
  expect(logs[3].crisp.tip).toBeCloseTo(25, 12);
  expect(logs[3].versionID).toBe(renamed.latestVersion);
  // retired versions are gone from the interface
  for (const versionID of [agent.latestVersion, renamed.latestVersion]) {
    expect((await t.call('GET', `version/${versionID}`, { key })).status).toBe(404);
  }
  expect((await t.call('GET', `agent/${agent.id}`, { key })).status).toBe(410);
  expect((await t.call('GET', `agent/${agent.id}/version`, { key })).status).toBe(410);
});

test("a retired version is no one else's either: another account reading its logs or the version gets 404", async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID')!;
  await t.call('DELETE', `agent/${agent.id}`, { key });
  const other = await t.signup();
  expect((await t.call('GET', `evaluation/${reqID}`, { key: other })).status).toBe(404);
  expect((await t.call('GET', `version/${agent.latestVersion}`, { key: other })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${reqID}`, { key })).status).toBe(200);
});

test('with room to write, DELETE retires the versions and leaves a tombstone with the time', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const versions = await records('versions');
  expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
  expect(await records('versions')).toEqual([]);
  expect(await records('retiredVersions')).toEqual(versions);
  const [tombstone] = (await records('deletedAgents')) as Array<{ deletedAt: string }>;
  expect((await t.call('GET', `agent/${agent.id}`, { key })).body.message).toBe(`agent "${agent.id}" was deleted at ${tombstone!.deletedAt}`);
});

test('an agent deleted on a full disk goes into a backup as a deletion with its versions retired, and restores as one', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID')!;
  restore = failWrites('retiredVersions', quotaExceeded);
  expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
  restore();
  const backup = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  const lines = backup
    .trimEnd()
    .split('\n')
    .slice(1, -1)
    .map((line) => JSON.parse(line));
  expect(lines.map((line) => [line.kind, line.retired])).toEqual([
    ['version', true],
    ['deletion', undefined],
    ['evaluation', undefined],
  ]);
  expect(lines[1]).toEqual({ kind: 'deletion', id: agent.id, deletedAt: lines[0].createdAt });

  const elsewhere = await createTestService();
  try {
    const restoredKey = await elsewhere.signup();
    const imported = await elsewhere.call('POST', 'import', { key: restoredKey, body: backup, headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(imported.status).toBe(200);
    expect((await elsewhere.call('GET', `agent/${agent.id}`, { key: restoredKey })).status).toBe(410);
    const original = (await t.call('GET', `evaluation/${reqID}`, { key })).body;
    expect((await elsewhere.call('GET', `evaluation/${reqID}`, { key: restoredKey })).body).toMatchObject({
      reqID,
      crisp: original.crisp,
      centroid: original.centroid,
    });
    expect((await elsewhere.call('GET', 'storage', { key: restoredKey })).body.counts).toEqual((await t.call('GET', 'storage', { key })).body.counts);
  } finally {
    await elsewhere.close();
  }
});

test('on a full disk an evaluation alone in its record is erased (its tally counted afresh later); one of a batch needs room (507)', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const single = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID')!;
  const batch = (await t.call('POST', `agent/${agent.id}`, { key, body: [{ service: 1 }, { service: 2 }] })).headers.get('X-Evaluation-ID')!.split(',');
  await t.call('POST', `evaluation/${single}/feedback`, { key, body: { stars: 1 } });
  const stores = ['accounts', 'agents', 'versions', 'retiredVersions', 'deletedAgents', 'logGroups', 'feedback', 'tallies'];
  const restores = stores.map((store) => failWrites(store, quotaExceeded));
  restore = () => [...restores].reverse().forEach((undo) => undo());
  expect((await t.call('DELETE', `evaluation/${single}`, { key })).status).toBe(200);
  const refused = await t.call('DELETE', `evaluation/${batch[0]}`, { key });
  expect(refused.status).toBe(507);
  expect(refused.body.message).toContain('erase evaluation logs');
  // GET /storage counts afresh, and cannot store the count: it answers it all the same
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 2, feedback: 0 });
  restore();
  expect((await t.call('GET', `evaluation/${single}`, { key })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${batch[0]}`, { key })).status).toBe(200);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 2, feedback: 0 });
  expect(await records('tallies')).toHaveLength(1);
  await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } });
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 3, feedback: 0 });
});
