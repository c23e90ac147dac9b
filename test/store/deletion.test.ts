// DELETE removes the agent's record and nothing else: no write adds a byte, so it works on a full
// disk (where browsers let only transactions that delete commit). Its versions stay, out of the
// interface, to recompute its logs, which read back exactly as before.
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

test('DELETE only deletes (so it works on a full disk), and the logs read back as before', async () => {
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

test('a retired version is no one else\'s either: another account reading its logs or the version gets 404', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID')!;
  await t.call('DELETE', `agent/${agent.id}`, { key });
  const other = await t.signup();
  expect((await t.call('GET', `evaluation/${reqID}`, { key: other })).status).toBe(404);
  expect((await t.call('GET', `version/${agent.latestVersion}`, { key: other })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${reqID}`, { key })).status).toBe(200);
});
