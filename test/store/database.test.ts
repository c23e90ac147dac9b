// The stored format is a contract with every database an earlier fuzzbox wrote: a database
// declared and filled independently, as version 1 describes it, must read back through the API.
import { createHash } from 'node:crypto';
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, test } from 'vitest';
import { createFuzzyService } from '../../src/index.js';
import { FuzzboxDatabase } from '../../src/store/dexie/database.js';
import { idPrefixesOf } from '../../src/store/dexie/log-groups.js';
import { newEvaluationIDs, newId } from '../../src/store/ids.js';
import { readLearningLog } from '../../src/store/dexie/learning.js';
import { failWrites, quotaExceeded } from '../support/faults.js';

/** Version 1 as docs/REST.md documented it: one record per log, keyed by reqID. */
const version1 = {
  accounts: 'userID, &keyHash',
  agents: 'id, userID',
  versions: 'id, [versionOf+seq]',
  deletedAgents: 'id',
  evaluations: 'reqID, [userID+agentID]',
  feedback: '++seq, &id, evaluationLog',
};

const definition = {
  inputs: { x: { low: [0, 10], high: [0, 10, 20] } },
  outputs: { y: { small: [0, 1, 2] } },
  rules: ['IF x IS low THEN y IS small'],
};

// x = 5: low, the falling shoulder [0,10], is 0.5; high, the triangle [0,10,20], is 0.5. The rule
// fires at 0.5 and cuts small [0,1,2] to the trapezoid (0,0) (0.5,0.5) (1.5,0.5) (2,0): symmetric
// about x = 1; its centroid height is h(b + 2a) / 3(a + b) = 0.5 · (2 + 2) / 9 = 2/9 (bottom b = 2, top a = 1)
const trace = {
  fuzzified: { x: { low: 0.5, high: 0.5 } },
  rules: ['IF x IS low THEN y IS small'],
  inferred: { y: { small: 0.5 } },
  clipped: {
    y: {
      small: [
        [0, 0],
        [0.5, 0.5],
        [1.5, 0.5],
        [2, 0],
      ],
    },
  },
  combined: {
    y: [
      [0, 0],
      [0.5, 0.5],
      [1.5, 0.5],
      [2, 0],
    ],
  },
  centroid: { y: [1, 2 / 9] },
};

/**
 * Account `U1` (key `apiKey`, named `accountName`) and its agent `A1` at version `V1`, written as
 * earlier schemas stored them; `withHead` from schema 8 on, which keeps each agent's head.
 */
async function writeAgentA1(
  earlier: Dexie,
  { apiKey, createdAt, accountName, withHead }: { apiKey: string; createdAt: string; accountName: string; withHead: boolean },
) {
  await earlier.table('accounts').add({ userID: 'U1', name: accountName, keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  await earlier
    .table('agents')
    .add({ id: 'A1', userID: 'U1', name: 'n', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 });
  if (withHead) await earlier.table('heads').add({ agentID: 'A1', userID: 'U1', latestVersion: 'V1' });
  await earlier.table('versions').add({ id: 'V1', versionOf: 'A1', userID: 'U1', name: 'n', ...definition, parsed_rules: [], createdAt, seq: 0 });
}

test('a version-1 database written by an earlier fuzzbox reads back through the API', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 1 as docs/REST.md documents it
  earlier.version(1).stores(version1);
  const apiKey = 'fzb_written-by-an-earlier-release';
  const createdAt = '2026-01-02T03:04:05.678Z';
  await earlier.table('accounts').add({ userID: 'U1', name: 'old', keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  await earlier
    .table('agents')
    .add({ id: 'A1', userID: 'U1', name: 'old agent', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 });
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
    // the upgrade gave the agent its head (version 8), which the write of a new log checks
    const evaluated = await service.handle(
      new Request('http://local/agent/A1', {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: '{"x":0}',
      }),
    );
    expect(evaluated.status).toBe(200);
    expect(await get(`evaluation/${evaluated.headers.get('X-Evaluation-ID')}`)).toMatchObject({ input: { x: 0 }, crisp: { y: 1 } });
  } finally {
    await service.close();
  }
});

test('version 2: logs whose trace a version-1 delete wrote in read back exactly; a delete after the upgrade retires versions', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 1 as docs/REST.md documented it: a delete wrote each log's trace in and dropped the versions
  earlier.version(1).stores(version1);
  const apiKey = 'fzb_written-by-version-1';
  const createdAt = '2026-01-02T03:04:05.678Z';
  await earlier.table('accounts').add({ userID: 'U1', name: 'old', keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  // A1 lives on; A2 was deleted by version 1, so only its tombstone and its logs remain
  await earlier
    .table('agents')
    .add({ id: 'A1', userID: 'U1', name: 'kept', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 });
  await earlier.table('versions').add({ id: 'V1', versionOf: 'A1', userID: 'U1', name: 'kept', ...definition, parsed_rules: [], createdAt, seq: 0 });
  await earlier.table('deletedAgents').add({ id: 'A2', userID: 'U1', deletedAt: createdAt });
  const live = '11111111-1111-4111-8111-111111111111';
  const deleted = '33333333-3333-4333-8333-333333333333';
  await earlier.table('evaluations').add({ reqID: live, userID: 'U1', agentID: 'A1', versionID: 'V1', input: { x: 5 }, crisp: { y: 1 }, createdAt });
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
  const log = (reqID: string, agentID: string, versionID: string) => ({
    reqID,
    userID: 'U1',
    agentID,
    versionID,
    input: { x: 5 },
    ...trace,
    crisp: { y: 1 },
    createdAt,
  });
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
    expect(upgraded.verno).toBe(11);
    const group = (await upgraded.table('logGroups').toArray()).find((stored) => stored.keys[0][1] === live);
    expect(group.logs[0]).not.toHaveProperty('trace');
    expect(await upgraded.table('retiredVersions').toArray()).toEqual([
      { id: 'V1', versionOf: 'A1', userID: 'U1', name: 'kept', ...definition, parsed_rules: [], createdAt, seq: 0 },
    ]);
  } finally {
    upgraded.close();
  }
});

test('version 3: every log of a version-2 database moves into a group of one and reads back exactly', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // versions 1 and 2 as docs/REST.md documented them: one record per log, keyed by reqID
  earlier.version(1).stores(version1);
  earlier.version(2).stores({ retiredVersions: 'id' });
  const keyOf = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');
  const [key1, key2] = ['fzb_written-by-version-2-one', 'fzb_written-by-version-2-two'];
  const createdAt = '2026-02-03T04:05:06.789Z';
  const later = '2026-02-03T04:05:07.000Z';
  await earlier.table('accounts').bulkAdd([
    { userID: 'U1', name: 'one', keyHash: keyOf(key1), createdAt },
    { userID: 'U2', name: 'two', keyHash: keyOf(key2), createdAt },
  ]);
  const version = (id: string, versionOf: string, userID: string) => ({ id, versionOf, userID, name: 'n', ...definition, parsed_rules: [], createdAt, seq: 0 });
  await earlier.table('agents').bulkAdd([
    { id: 'A1', userID: 'U1', name: 'n', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1', versionCount: 1 },
    { id: 'B1', userID: 'U2', name: 'n', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'W1', versionCount: 1 },
  ]);
  await earlier.table('versions').bulkAdd([version('V1', 'A1', 'U1'), version('W1', 'B1', 'U2')]);
  // A2 was deleted under version 2 (its version retired), A3 under version 1 (its log holds the trace)
  await earlier.table('retiredVersions').add(version('V2', 'A2', 'U1'));
  await earlier.table('deletedAgents').bulkAdd([
    { id: 'A2', userID: 'U1', deletedAt: later },
    { id: 'A3', userID: 'U1', deletedAt: later },
  ]);
  const logs = {
    plain: { reqID: '10000000-0000-4000-8000-000000000001', userID: 'U1', agentID: 'A1', versionID: 'V1', input: { x: 0 }, crisp: { y: 1 }, createdAt },
    explored: {
      reqID: '10000000-0000-4000-8000-000000000002',
      userID: 'U1',
      agentID: 'A1',
      versionID: 'V1',
      input: { x: 5 },
      crisp: { y: 1 },
      returned: { y: 1.25 },
      createdAt: later,
    },
    retired: { reqID: '10000000-0000-4000-8000-000000000003', userID: 'U1', agentID: 'A2', versionID: 'V2', input: { x: 5 }, crisp: { y: 1 }, createdAt },
    traced: { reqID: '10000000-0000-4000-8000-000000000004', userID: 'U1', agentID: 'A3', versionID: 'V3', input: { x: 5 }, crisp: { y: 1 }, createdAt, trace },
    others: { reqID: '10000000-0000-4000-8000-000000000005', userID: 'U2', agentID: 'B1', versionID: 'W1', input: { x: 5 }, crisp: { y: 1 }, createdAt },
  };
  await earlier.table('evaluations').bulkAdd(Object.values(logs));
  await earlier.table('feedback').bulkAdd([
    { id: 'F1', evaluationLog: logs.plain.reqID, data: { score: 2 }, createdAt },
    { id: 'F2', evaluationLog: logs.explored.reqID, data: { score: 3, other: 1 }, createdAt },
    { id: 'F3', evaluationLog: logs.plain.reqID, data: { score: 4 }, createdAt: later },
  ]);
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const call = (path: string, apiKey: string) => service.handle(new Request(`http://local/${path}`, { headers: { Authorization: `Bearer ${apiKey}` } }));
  const get = async (path: string, apiKey = key1) => {
    const response = await call(path, apiKey);
    expect(response.status).toBe(200);
    return response.json() as Promise<any>;
  };
  /** A log's stored fields as GET /evaluation/:id answers them, in the answer's order. */
  const stored = ({ trace: _, ...log }: Record<string, unknown>) => log;
  try {
    // the log whose trace version 1 wrote in reads back exactly, field for field and in order
    const traced = await get(`evaluation/${logs.traced.reqID}`);
    const { reqID, userID, agentID, versionID, input, crisp, createdAt: at } = logs.traced;
    expect(JSON.stringify(traced)).toBe(JSON.stringify({ reqID, userID, agentID, versionID, input, ...trace, crisp, createdAt: at }));
    for (const log of [logs.plain, logs.explored, logs.retired]) {
      const read = await get(`evaluation/${log.reqID}`);
      expect(read).toMatchObject(stored(log));
      if (!('returned' in log)) expect(read).not.toHaveProperty('returned');
      expect(Object.keys(read)).toEqual([
        'reqID',
        'userID',
        'agentID',
        'versionID',
        'input',
        'fuzzified',
        'rules',
        'inferred',
        'clipped',
        'combined',
        'centroid',
        'crisp',
        ...('returned' in log ? ['returned'] : []),
        'createdAt',
      ]);
    }
    // recomputed from the live V1 and from the retired V2: x = 5 is the hand-derived trace above;
    // x = 0: low is 1, high 0, small [0,1,2] is uncut, centroid (1, 1/3)
    for (const log of [logs.explored, logs.retired]) {
      const read = await get(`evaluation/${log.reqID}`);
      expect(read.fuzzified).toEqual(trace.fuzzified);
      expect(read.centroid.y[1]).toBeCloseTo(2 / 9, 12);
    }
    const plain = await get(`evaluation/${logs.plain.reqID}`);
    expect(plain.fuzzified).toEqual({ x: { low: 1, high: 0 } });
    expect(plain.centroid.y[1]).toBeCloseTo(1 / 3, 12);
    // feedback still refers to its log's reqID, oldest first; accounts stay apart
    expect((await get(`evaluation/${logs.plain.reqID}/feedback`)).map((f: { data: unknown }) => f.data)).toEqual([{ score: 2 }, { score: 4 }]);
    expect((await call(`evaluation/${logs.others.reqID}`, key1)).status).toBe(404);
    expect((await call(`evaluation/${logs.plain.reqID}`, key2)).status).toBe(404);
    expect(await get(`evaluation/${logs.others.reqID}`, key2)).toMatchObject(stored(logs.others));
  } finally {
    await service.close();
  }

  const upgraded = new FuzzboxDatabase('fuzzbox', { indexedDB, IDBKeyRange });
  await upgraded.open();
  try {
    expect(upgraded.verno).toBe(11);
    expect(upgraded.tables.map((table) => table.name)).not.toContain('evaluations');
    // one group per version-2 log, holding it exactly (no `returned` or `trace` made up)
    const groups = await upgraded.logGroups.toArray();
    const { reqID, userID, agentID, versionID, createdAt: at, ...rest } = logs.explored;
    expect(groups).toHaveLength(5);
    expect(groups.find((group) => group.keys[0]![1] === reqID)).toEqual({
      seq: expect.any(Number),
      userID,
      agentID,
      versionID,
      createdAt: at,
      keys: [[userID, reqID]],
      idPrefixes: [[userID, reqID.slice(0, -2)]],
      logs: [rest],
    });
    // version 4 gave feedback its owner; version 6 counted each account's logs and feedback
    expect((await upgraded.feedback.toArray()).map((feedback) => feedback.userID)).toEqual(['U1', 'U1', 'U1']);
    expect(await upgraded.tallies.toArray()).toEqual([
      { userID: 'U1', evaluations: 4, feedback: 3 },
      { userID: 'U2', evaluations: 1, feedback: 0 },
    ]);
    // the optimizer reads the agent's logs back as version 2 stored them, with each one's latest value
    const read = await readLearningLog(upgraded, 'U1', 'A1', { metrics: ['score'], most: 10 });
    expect(read.metricNames).toEqual(new Set(['score', 'other']));
    expect(read.total).toBe(2);
    expect({ inputs: [...read.inputs], crisp: [...read.crisp], returned: [...read.returned], values: [...read.values] }).toEqual({
      inputs: [0, 5],
      crisp: [1, 1],
      returned: [1, 1.25],
      values: [4, 3],
    });
    expect(read.versionIDs).toEqual(['V1']);
  } finally {
    upgraded.close();
  }
});

test('version 4: a version-3 group of 100 logs becomes chunks of 64 and 36 that read back; feedback gets its owner', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  earlier.version(1).stores(version1);
  earlier.version(2).stores({ retiredVersions: 'id' });
  earlier.version(3).stores({ logGroups: '++seq, *reqIDs, [userID+agentID]', evaluations: null });
  const apiKey = 'fzb_written-by-version-3';
  const createdAt = '2026-03-04T05:06:07.891Z';
  await writeAgentA1(earlier, { apiKey, createdAt, accountName: 'three', withHead: false });
  const reqIDs = Array.from({ length: 100 }, (_, i) => `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const logs = reqIDs.map((_, i) => ({ input: { x: i / 10 }, crisp: { y: 1 } }));
  await earlier.table('logGroups').add({ userID: 'U1', agentID: 'A1', versionID: 'V1', createdAt, reqIDs, logs });
  await earlier.table('feedback').add({ id: 'F1', evaluationLog: reqIDs[99], data: { score: 5 }, createdAt });
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const get = async (path: string) => {
    const response = await service.handle(new Request(`http://local/${path}`, { headers: { Authorization: `Bearer ${apiKey}` } }));
    expect(response.status).toBe(200);
    return response.json() as Promise<any>;
  };
  try {
    for (const i of [0, 63, 64, 99]) expect(await get(`evaluation/${reqIDs[i]}`)).toMatchObject({ reqID: reqIDs[i], input: { x: i / 10 } });
    expect((await get(`evaluation/${reqIDs[99]}/feedback`)).map((f: { data: unknown }) => f.data)).toEqual([{ score: 5 }]);
  } finally {
    await service.close();
  }
  const upgraded = new FuzzboxDatabase('fuzzbox', { indexedDB, IDBKeyRange });
  await upgraded.open();
  try {
    const groups = await upgraded.logGroups.toArray();
    expect(groups.map((group) => group.logs.length)).toEqual([64, 36]);
    expect(groups.flatMap((group) => group.keys)).toEqual(reqIDs.map((reqID) => ['U1', reqID]));
    expect(groups.flatMap((group) => group.logs)).toEqual(logs);
    expect(await upgraded.feedback.toArray()).toEqual([
      // version 10 named the group holding its log
      { seq: 1, id: 'F1', userID: 'U1', evaluationLog: reqIDs[99], logGroup: groups[1]!.seq, data: { score: 5 }, createdAt },
    ]);
    // version 6 counted the account's logs and feedback once
    expect(await upgraded.tallies.toArray()).toEqual([{ userID: 'U1', evaluations: 100, feedback: 1 }]);
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

test('version 5: a version-4 database counts through the API as before, and after a delete on a full disk', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 4 as docs/REST.md documented it, declared whole
  earlier.version(4).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq], userID',
    retiredVersions: 'id, userID',
    deletedAgents: 'id, userID',
    logGroups: '++seq, *keys, [userID+agentID+seq]',
    feedback: '++seq, &id, evaluationLog, [userID+seq]',
  });
  const apiKey = 'fzb_written-by-version-4';
  const createdAt = '2026-03-04T05:06:07.890Z';
  const version = (id: string, versionOf: string, seq: number) => ({ id, versionOf, userID: 'U1', name: 'n', ...definition, parsed_rules: [], createdAt, seq });
  await earlier.table('accounts').add({ userID: 'U1', name: 'four', keyHash: createHash('sha256').update(apiKey).digest('hex'), createdAt });
  await earlier
    .table('agents')
    .add({ id: 'A1', userID: 'U1', name: 'n', ...definition, createdAt, updatedAt: createdAt, latestVersion: 'V1b', versionCount: 2 });
  await earlier.table('versions').bulkAdd([version('V1a', 'A1', 0), version('V1b', 'A1', 1)]);
  // A2 was deleted by version 4: its version retired, a tombstone with the time
  await earlier.table('retiredVersions').add(version('V2', 'A2', 0));
  await earlier.table('deletedAgents').add({ id: 'A2', userID: 'U1', deletedAt: createdAt });
  const reqID = '50000000-0000-4000-8000-000000000001';
  const log = { input: { x: 5 }, crisp: { y: 1 } };
  await earlier.table('logGroups').add({ userID: 'U1', agentID: 'A2', versionID: 'V2', createdAt, keys: [['U1', reqID]], logs: [log] });
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const call = (method: string, path: string) =>
    service.handle(new Request(`http://local/${path}`, { method, headers: { Authorization: `Bearer ${apiKey}` } }));
  try {
    const counts = async () => ((await (await call('GET', 'storage')).json()) as { counts: unknown }).counts;
    expect(await counts()).toEqual({ agents: 1, versions: 2, retiredVersions: 1, deletions: 1, evaluations: 1, feedback: 0 });
    expect((await (await call('GET', 'agent/A2')).json()).message).toBe(`agent "A2" was deleted at ${createdAt}`);
    expect((await call('GET', `evaluation/${reqID}`)).status).toBe(200);
    // a delete on a full disk leaves A1's versions where they are, and they count as a deleted agent's
    const restore = failWrites('retiredVersions', quotaExceeded);
    try {
      expect((await call('DELETE', 'agent/A1')).status).toBe(200);
    } finally {
      restore();
    }
    expect(await counts()).toEqual({ agents: 0, versions: 0, retiredVersions: 3, deletions: 2, evaluations: 1, feedback: 0 });
    expect((await call('GET', 'agent/A1')).status).toBe(410);
    expect((await call('GET', 'version/V1b')).status).toBe(404);
  } finally {
    await service.close();
  }
});

test('version 10: the logs of a version-9 database, found by one index entry per log, read, list, erase and take feedback as before', async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 9 as docs/REST.md documented it, declared whole
  earlier.version(9).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq], userID, [userID+seq]',
    retiredVersions: 'id, userID',
    deletedAgents: 'id, userID',
    logGroups: '++seq, *keys, [userID+agentID+seq]',
    feedback: '++seq, &id, evaluationLog, [userID+seq]',
    tallies: 'userID',
    autopilot: 'agentID, userID',
    heads: 'agentID',
    syncStates: 'key',
  });
  const apiKey = 'fzb_written-by-version-9';
  const createdAt = '2026-11-20T05:06:07.890Z';
  await writeAgentA1(earlier, { apiKey, createdAt, accountName: 'eight', withHead: true });
  // version 9's ids were random UUIDs throughout: a batch of three, then an evaluation alone
  const batch = ['8a1f0c3e-5b7d-4e2a-9c4b-1d2e3f405162', '0b9e8d7c-6a5b-4c3d-8e2f-a1b2c3d4e5f6', 'f0e1d2c3-b4a5-4968-a776-655443322110'];
  const alone = '7c6b5a49-3827-4165-b054-3f2e1d0c0b0a';
  const log = (x: number) => ({ input: { x }, crisp: { y: 1 } });
  await earlier.table('logGroups').bulkAdd([
    { userID: 'U1', agentID: 'A1', versionID: 'V1', createdAt, keys: batch.map((reqID) => ['U1', reqID]), logs: [log(1), log(2), log(3)] },
    { userID: 'U1', agentID: 'A1', versionID: 'V1', createdAt, keys: [['U1', alone]], logs: [log(4)] },
  ]);
  await earlier.table('feedback').add({ id: 'F1', userID: 'U1', evaluationLog: batch[1], data: { score: 2 }, createdAt });
  await earlier.table('tallies').add({ userID: 'U1', evaluations: 4, feedback: 1 });
  earlier.close();

  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  const call = (method: string, path: string, body?: unknown) =>
    service.handle(
      new Request(`http://local/${path}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const get = async (path: string) => {
    const response = await call('GET', path);
    expect(response.status, path).toBe(200);
    return response.json() as Promise<any>;
  };
  let fresh: string[];
  try {
    for (const [i, reqID] of [...batch, alone].entries()) expect(await get(`evaluation/${reqID}`)).toMatchObject({ reqID, input: { x: i + 1 } });
    expect((await get(`evaluation/${batch[1]}/feedback`)).map((f: { data: unknown }) => f.data)).toEqual([{ score: 2 }]);
    expect((await get('agent/A1/evaluation')).evaluations.map((e: { reqID: string }) => e.reqID)).toEqual([alone, batch[2], batch[1], batch[0]]);
    expect((await call('DELETE', `evaluation/${batch[1]}`)).status).toBe(200);
    expect((await call('GET', `evaluation/${batch[1]}`)).status).toBe(404);
    expect((await call('POST', `evaluation/${batch[2]}/feedback`, { score: 3 })).status).toBe(200);
    // a new batch is written the new way, beside the old logs
    const evaluated = await call(
      'POST',
      'agent/A1',
      Array.from({ length: 70 }, (_, i) => ({ x: i / 10 })),
    );
    expect(evaluated.status).toBe(200);
    fresh = evaluated.headers.get('X-Evaluation-ID')!.split(',');
    expect(await get(`evaluation/${fresh[69]}`)).toMatchObject({ reqID: fresh[69], input: { x: 6.9 } });
    expect((await get('storage')).counts).toMatchObject({ evaluations: 73, feedback: 1 });
  } finally {
    await service.close();
  }
  const upgraded = new FuzzboxDatabase('fuzzbox', { indexedDB, IDBKeyRange });
  await upgraded.open();
  try {
    expect(upgraded.verno).toBe(11);
    // an old group has an entry per log (each id its own prefix); a new chunk has one
    const groups = await upgraded.logGroups.toArray();
    expect(groups.map((group) => group.idPrefixes)).toEqual([
      [batch[0]!, batch[2]!].map((reqID) => ['U1', reqID.slice(0, -2)]),
      [['U1', alone.slice(0, -2)]],
      [['U1', fresh[0]!.slice(0, -2)]],
      [['U1', fresh[64]!.slice(0, -2)]],
    ]);
    expect(groups.slice(2).map((group) => group.keys.length)).toEqual([64, 6]);
  } finally {
    upgraded.close();
  }
});

test('new evaluation ids are UUID v4s, each 64 in a row sharing all but a last two-digit position', () => {
  const ids = newEvaluationIDs(130);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(130);
  const prefixes = ids.map((id) => id.slice(0, -2));
  expect(new Set(prefixes.slice(0, 64)).size).toBe(1);
  expect(new Set(prefixes.slice(64, 128)).size).toBe(1);
  expect(new Set(prefixes).size).toBe(3);
  expect(ids.map((id) => id.slice(-2))).toEqual(Array.from({ length: 130 }, (_, i) => (i % 64).toString(16).padStart(2, '0')));
});

test("version 11: feedback of a version-10 database names its log's group; listings give each log its own feedback, newest first", async () => {
  const indexedDB = new IDBFactory();
  const earlier = new Dexie('fuzzbox', { indexedDB, IDBKeyRange });
  // version 10 declared whole
  earlier.version(10).stores({
    accounts: 'userID, &keyHash',
    agents: 'id, userID',
    versions: 'id, [versionOf+seq], userID, [userID+seq]',
    retiredVersions: 'id, userID',
    deletedAgents: 'id, userID',
    logGroups: '++seq, *idPrefixes, [userID+agentID+seq]',
    feedback: '++seq, &id, evaluationLog, [userID+seq]',
    tallies: 'userID',
    autopilot: 'agentID, userID',
    heads: 'agentID',
    syncStates: 'key',
  });
  const apiKey = 'fzb_written-by-version-10';
  const createdAt = '2026-09-10T11:12:13.140Z';
  await writeAgentA1(earlier, { apiKey, createdAt, accountName: 'ten', withHead: true });
  const id = (i: number) => `90000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const group = (userID: string, agentID: string, ids: number[]) => {
    const keys = ids.map((i): [string, string] => [userID, id(i)]);
    return { userID, agentID, versionID: 'V1', createdAt, keys, idPrefixes: idPrefixesOf(keys), logs: ids.map((i) => ({ input: { x: i }, crisp: { y: 1 } })) };
  };
  // a batch of three, a single, and (another account's, same evaluation id) a group elsewhere
  await earlier.table('logGroups').bulkAdd([group('U1', 'A1', [0, 1, 2]), group('U1', 'A1', [3]), group('U2', 'A2', [1])]);
  const feedback = (n: number, userID: string, log: number) => ({ id: `F${n}`, userID, evaluationLog: id(log), data: { score: n }, createdAt });
  await earlier.table('feedback').bulkAdd([feedback(1, 'U1', 1), feedback(2, 'U1', 3), feedback(3, 'U2', 1), feedback(4, 'U1', 1)]);
  await earlier.table('tallies').add({ userID: 'U1', evaluations: 4, feedback: 3 });
  earlier.close();

  const upgraded = new FuzzboxDatabase('fuzzbox', { indexedDB, IDBKeyRange });
  await upgraded.open();
  try {
    expect((await upgraded.feedback.toArray()).map(({ id, logGroup }) => [id, logGroup])).toEqual([
      ['F1', 1],
      ['F2', 2],
      ['F3', 3],
      ['F4', 1],
    ]);
  } finally {
    upgraded.close();
  }
  const service = createFuzzyService({ indexedDB, IDBKeyRange });
  try {
    const response = await service.handle(new Request('http://local/agent/A1/evaluation', { headers: { Authorization: `Bearer ${apiKey}` } }));
    const page = (await response.json()) as { evaluations: Array<{ reqID: string; feedback: Array<{ data: unknown }> }> };
    expect(page.evaluations.map((entry) => [entry.reqID, entry.feedback.map((f) => f.data)])).toEqual([
      [id(3), [{ score: 2 }]],
      [id(2), []],
      [id(1), [{ score: 1 }, { score: 4 }]],
      [id(0), []],
    ]);
  } finally {
    await service.close();
  }
});
