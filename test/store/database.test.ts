// The stored format is a contract with every database an earlier fuzzbox wrote: a database
// declared and filled independently, as version 1 describes it, must read back through the API.
import { createHash } from 'node:crypto';
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, test } from 'vitest';
import { createFuzzyService } from '../../src/index';
import { newId } from '../../src/store/ids';

test('a version-1 database written by an earlier fuzzbox reads back through the API', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 1 as docs/REST.md documents it
  earlier.version(1).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq]',
    deletedAgents: 'id',
    evaluations: 'reqID, [userID+agentID]',
    feedback: '++seq, &id, evaluationLog',
  });
  const apiKey = 'fzb_written-by-an-earlier-release';
  const definition = {
    inputs: { x: { low: [0, 10], high: [0, 10, 20] } },
    outputs: { y: { small: [0, 1, 2] } },
    rules: ['IF x IS low THEN y IS small'],
  };
  const createdAt = '2026-01-02T03:04:05.678Z';
  await earlier.table('accounts').add({ userID: 'U1', name: 'old', keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  await earlier.table('agents').add({ id: 'A1', userID: 'U1', name: 'old agent', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 });
  await earlier.table('versions').add({ id: 'V1', versionOf: 'A1', userID: 'U1', name: 'old agent', ...definition, parsed_rules: [], createdAt, seq: 0 });
  const reqID = '11111111-1111-4111-8111-111111111111';
  await earlier.table('evaluations').add({ reqID, userID: 'U1', agentID: 'A1', versionID: 'V1', input: { x: 0 }, crisp: { y: 1 }, createdAt });
  await earlier.table('feedback').add({ id: '22222222-2222-4222-8222-222222222222', evaluationLog: reqID, data: { score: 2 }, createdAt });
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const get = async (path: string) => {
    const response = await service.handle(new Request(`http://local/${path}`, { headers: { Authorization: `Bearer ${apiKey}` } }));
    expect(response.status).toBe(200);
    return response.json() as Promise<any>;
  };
  try {
    expect(await get('agent')).toEqual([{ id: 'A1', name: 'old agent' }]);
    expect(await get('agent/A1')).toEqual({ id: 'A1', name: 'old agent', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1' });
    expect(await get('agent/A1/version')).toEqual([{ id: 'V1', createdAt }]);
    // x = 0: low is the falling shoulder [0,10] (range 0..20, midpoint 5 < 10) → 1; small is the
    // triangle [0,1,2], centroid 1, the crisp value the earlier release stored
    const log = await get(`evaluation/${reqID}`);
    expect(log).toMatchObject({ input: { x: 0 }, crisp: { y: 1 }, fuzzified: { x: { low: 1, high: 0 } }, inferred: { y: { small: 1 } } });
    expect(log.centroid.y[0]).toBe(1);
    expect((await get(`evaluation/${reqID}/feedback`)).map((f: { data: unknown }) => f.data)).toEqual([{ score: 2 }]);
  } finally {
    await service.close();
  }
});

test('version 2: logs whose trace a version-1 delete wrote in read back exactly; a delete after the upgrade retires versions', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 1 as docs/REST.md documented it: a delete wrote each log's trace in and dropped the versions
  earlier.version(1).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq]',
    deletedAgents: 'id',
    evaluations: 'reqID, [userID+agentID]',
    feedback: '++seq, &id, evaluationLog',
  });
  const apiKey = 'fzb_written-by-version-1';
  const definition = {
    inputs: { x: { low: [0, 10], high: [0, 10, 20] } },
    outputs: { y: { small: [0, 1, 2] } },
    rules: ['IF x IS low THEN y IS small'],
  };
  const createdAt = '2026-01-02T03:04:05.678Z';
  await earlier.table('accounts').add({ userID: 'U1', name: 'old', keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  // A1 lives on; A2 was deleted by version 1, so only its tombstone and its logs remain
  await earlier.table('agents').add({ id: 'A1', userID: 'U1', name: 'kept', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 });
  await earlier.table('versions').add({ id: 'V1', versionOf: 'A1', userID: 'U1', name: 'kept', ...definition, parsed_rules: [], createdAt, seq: 0 });
  await earlier.table('deletedAgents').add({ id: 'A2', userID: 'U1', deletedAt: createdAt });
  const live = '11111111-1111-4111-8111-111111111111';
  const deleted = '33333333-3333-4333-8333-333333333333';
  await earlier.table('evaluations').add({ reqID: live, userID: 'U1', agentID: 'A1', versionID: 'V1', input: { x: 5 }, crisp: { y: 1 }, createdAt });
  // x = 5: low, the falling shoulder [0,10], is 0.5; high, the triangle [0,10,20], is 0.5. The rule
  // fires at 0.5 and cuts small [0,1,2] to the trapezoid (0,0) (0.5,0.5) (1.5,0.5) (2,0): symmetric
  // about x = 1; its centroid height is h(b + 2a) / 3(a + b) = 0.5 · (2 + 2) / 9 = 2/9 (bottom b = 2, top a = 1)
  const trace = {
    fuzzified: { x: { low: 0.5, high: 0.5 } },
    rules: ['IF x IS low THEN y IS small'],
    inferred: { y: { small: 0.5 } },
    clipped: { y: { small: [[0, 0], [0.5, 0.5], [1.5, 0.5], [2, 0]] } },
    combined: { y: [[0, 0], [0.5, 0.5], [1.5, 0.5], [2, 0]] },
    centroid: { y: [1, 2 / 9] },
  };
  await earlier.table('evaluations').add({ reqID: deleted, userID: 'U1', agentID: 'A2', versionID: 'V2', input: { x: 5 }, crisp: { y: 1 }, createdAt, trace });
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const call = (method: string, path: string) =>
    service.handle(new Request(`http://local/${path}`, { method, headers: { Authorization: `Bearer ${apiKey}` } }));
  const get = async (path: string) => {
    const response = await call('GET', path);
    expect(response.status).toBe(200);
    return response.json() as Promise<any>;
  };
  const log = (reqID: string, agentID: string, versionID: string) =>
    ({ reqID, userID: 'U1', agentID, versionID, input: { x: 5 }, ...trace, crisp: { y: 1 }, createdAt });
  try {
    expect(await get(`evaluation/${deleted}`)).toEqual(log(deleted, 'A2', 'V2'));
    expect((await call('GET', 'agent/A2')).status).toBe(410);
    // the live agent's log is recomputed from V1; the engine agrees with the hand-derived trace
    const before = await get(`evaluation/${live}`);
    expect(before.fuzzified).toEqual(trace.fuzzified);
    expect(before.centroid.y[0]).toBeCloseTo(1, 12);
    expect(before.centroid.y[1]).toBeCloseTo(2 / 9, 12);
    expect((await call('DELETE', 'agent/A1')).status).toBe(200);
    expect(await get(`evaluation/${live}`)).toEqual(before);
    expect(await get(`evaluation/${deleted}`)).toEqual(log(deleted, 'A2', 'V2'));
    expect((await call('GET', 'version/V1')).status).toBe(404);
    expect((await call('GET', 'agent/A1')).status).toBe(410);
  } finally {
    await service.close();
  }
  // the upgrade kept every log record as it was and left no trace written in by the new delete
  const upgraded = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  await upgraded.open();
  try {
    expect(upgraded.verno).toBe(2);
    expect(await upgraded.table('evaluations').get(live)).not.toHaveProperty('trace');
    expect(await upgraded.table('retiredVersions').toArray()).toEqual([
      { id: 'V1', versionOf: 'A1', userID: 'U1', name: 'kept', ...definition, parsed_rules: [], createdAt, seq: 0 },
    ]);
  } finally {
    upgraded.close();
  }
});

test('ids are URL-safe and sort in the order they were made, within one millisecond too', () => {
  const sameMillisecond = Array.from({ length: 1000 }, () => newId(1_700_000_000_000));
  const later = newId(1_700_000_000_001);
  const ids = [...sameMillisecond, later];
  for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});
