// The write of a request's logs locks only what it must (docs/REST.md, "Cost of a request"):
// other requests read agents meanwhile, and a single evaluation waits for at most one batch.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { DexieStore } from '../../src/store/dexie/dexie-store.js';
import { PIECE_GROUPS } from '../../src/store/dexie/evaluation-writer.js';
import { cleanupTransactions, failWrites, quotaExceeded } from '../support/faults.js';
import type { AgentRecord, EvaluationRecord } from '../../src/store/records.js';

const body = {
  name: 'tipper',
  inputs: { service: { poor: [0, 5] } },
  outputs: { tip: { low: [0, 5, 10] } },
  rules: ['IF service IS poor THEN tip IS low'],
};

let store: DexieStore;
let agent: AgentRecord;

beforeEach(async () => {
  store = new DexieStore('fuzzbox', { indexedDB: new IDBFactory(), IDBKeyRange });
  await store.addAccount({ userID: 'U1', name: 'one', keyHash: 'h1', createdAt: new Date().toISOString() });
  agent = await store.createAgent('U1', body, []);
});
afterEach(() => store.close());

/** `count` logs of one request: one time, as the service gives them. */
const logs = (count: number, createdAt = new Date().toISOString()): EvaluationRecord[] =>
  Array.from({ length: count }, () => ({
    reqID: crypto.randomUUID(),
    userID: 'U1',
    agentID: agent.id,
    versionID: agent.latestVersion,
    input: { service: 2 },
    crisp: { tip: 5 },
    createdAt,
  }));

/** Each promise's label, in the order they settle. */
async function settlingOrder(promises: Record<string, Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  await Promise.all(Object.entries(promises).map(([label, promise]) => promise.then(() => order.push(label))));
  return order;
}

test("reading the agent does not wait for a batch's write of its logs", async () => {
  const order = await settlingOrder({ batch: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096)), read: store.readAgent('U1', agent.id) });
  expect(order).toEqual(['read', 'batch']);
  expect((await store.countRecords('U1')).evaluations).toBe(4096);
});

test('requests on one agent version stored in one transaction share its records, each log keeping its own time', async () => {
  const start = Date.now();
  // the first starts a transaction at once; the others arrive during it and share the next
  const requests = [1, 1, 3, 1, 2].map((count, i) => logs(count, new Date(start + 10 * i).toISOString()));
  const stored = await Promise.all(requests.map((request) => store.addEvaluations('U1', agent.id, agent.latestVersion, request)));
  expect(stored).toEqual(requests.map(() => true));
  const groups = await store.db.logGroups.orderBy('seq').toArray();
  expect(groups.map((group) => group.keys.length)).toEqual([1, 7]);
  // a group's time is its latest log's, so one older than a cutoff holds no younger log
  expect(groups.map((group) => group.createdAt)).toEqual([requests[0]![0]!.createdAt, requests[4]![0]!.createdAt]);
  for (const log of requests.flat()) {
    const { evaluation } = await store.readEvaluation('U1', log.reqID);
    expect(evaluation).toEqual(log);
  }
  expect((await store.countRecords('U1')).evaluations).toBe(8);
});

test("a single evaluation's write waits for one piece of a batch's write, not the batch, and goes before a waiting batch", async () => {
  const order = await settlingOrder({
    first: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096)),
    second: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096)),
    single: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(1)),
  });
  expect(order).toEqual(['single', 'first', 'second']);
  expect((await store.countRecords('U1')).evaluations).toBe(2 * 4096 + 1);
  // in the order stored: the first batch's first piece, the single evaluation, the rest of the batches
  const sizes = (await store.db.logGroups.toArray()).map((group) => group.keys.length);
  expect(sizes).toEqual([...Array(PIECE_GROUPS).fill(64), 1, ...Array(128 - PIECE_GROUPS).fill(64)]);
});

test('a batch whose later piece fails on a full disk stores nothing: its stored pieces are deleted again, the tally as before', async () => {
  const before = await store.countRecords('U1');
  const restore = failWrites('logGroups', quotaExceeded, { after: PIECE_GROUPS * 2 });
  try {
    await expect(store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096))).rejects.toMatchObject({ name: expect.stringMatching(/Quota/) });
  } finally {
    restore();
  }
  expect(await store.db.logGroups.count()).toBe(0);
  expect(await store.countRecords('U1')).toEqual(before);
  expect(await store.db.tallies.get('U1')).toMatchObject({ evaluations: 0, feedback: 0 });
});

test('a PUT that lands between the pieces of a batch: the pieces stored are deleted again and the batch resolves false', async () => {
  const batch = store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096));
  // once a piece is stored (this read waits for the piece's transaction)
  while ((await store.db.logGroups.count()) === 0);
  await store.updateAgent('U1', agent.id, body, []);
  expect(await batch).toBe(false);
  expect(await store.db.logGroups.count()).toBe(0);
  expect((await store.countRecords('U1')).evaluations).toBe(0);
});

test('logs computed on a version that a PUT replaced meanwhile are not stored; a deleted agent stores none', async () => {
  const stale = logs(3);
  await store.updateAgent('U1', agent.id, body, []);
  expect(await store.addEvaluations('U1', agent.id, agent.latestVersion, stale)).toBe(false);
  const current = await store.readAgent('U1', agent.id);
  expect(
    await store.addEvaluations(
      'U1',
      agent.id,
      current.latestVersion,
      logs(2).map((log) => ({ ...log, versionID: current.latestVersion })),
    ),
  ).toBe(true);
  await store.deleteAgent('U1', agent.id);
  expect(await store.addEvaluations('U1', agent.id, current.latestVersion, logs(1))).toBe(false);
  expect((await store.countRecords('U1')).evaluations).toBe(2);
});

test('a write refused for the quota is tried again once, after the browser was asked to write out its storage log', async () => {
  const indexedDB = new IDBFactory();
  const full = new DexieStore('full', { indexedDB, IDBKeyRange });
  await full.addAccount({ userID: 'U1', name: 'one', keyHash: 'h1', createdAt: new Date().toISOString() });
  const fan = await full.createAgent('U1', body, []);
  const ownLogs = (count: number) => logs(count).map((log) => ({ ...log, agentID: fan.id, versionID: fan.latestVersion }));
  // a scratch database created and deleted: Chromium compacts then, writing out its log
  const deleted: string[] = [];
  const deleteDatabase = indexedDB.deleteDatabase.bind(indexedDB);
  let restore = failWrites('logGroups', quotaExceeded);
  indexedDB.deleteDatabase = (name: string) => {
    deleted.push(name);
    restore(); // what the erasures freed now counts
    return deleteDatabase(name);
  };
  try {
    expect(await full.addEvaluations('U1', fan.id, fan.latestVersion, ownLogs(3))).toBe(true);
    expect(deleted).toEqual(['full-flush']);
    expect((await full.countRecords('U1')).evaluations).toBe(3);
    // a disk that stays full: one flush, one retry, then the error
    restore = failWrites('logGroups', quotaExceeded);
    indexedDB.deleteDatabase = (name: string) => (deleted.push(name), deleteDatabase(name));
    await expect(full.addEvaluations('U1', fan.id, fan.latestVersion, ownLogs(3))).rejects.toMatchObject({ name: expect.stringMatching(/Quota/) });
    expect(deleted).toEqual(['full-flush', 'full-flush']);
  } finally {
    restore();
    await full.close();
  }
  const reopened = new DexieStore('full', { indexedDB, IDBKeyRange });
  expect((await reopened.countRecords('U1')).evaluations).toBe(3);
  await reopened.close();
});

test("Firefox's cleanup transaction after a full disk, where a write throws InvalidStateError, counts as the full disk: retried once, then QuotaExceeded", async () => {
  // one cleanup transaction due (an earlier write was refused for the quota): the retry stores the logs
  let firefox = cleanupTransactions(1);
  try {
    expect(await store.addEvaluations('U1', agent.id, agent.latestVersion, logs(2))).toBe(true);
    expect(firefox.cleanups()).toBe(1);
  } finally {
    firefox.restore();
  }
  expect((await store.countRecords('U1')).evaluations).toBe(2);
  // a disk that stays full: every read-write transaction is a cleanup one; the answer is the full disk, not a 500
  firefox = cleanupTransactions(Number.POSITIVE_INFINITY);
  try {
    await expect(store.addEvaluations('U1', agent.id, agent.latestVersion, logs(2))).rejects.toMatchObject({ name: 'QuotaExceeded', status: 507 });
  } finally {
    firefox.restore();
  }
  expect((await store.countRecords('U1')).evaluations).toBe(2);
});

test("a write through Dexie handed Firefox's cleanup transaction counts as the full disk: retried once, then QuotaExceeded, never InvalidStateError", async () => {
  const account = (userID: string) => ({ userID, name: null, keyHash: `hash-${userID}`, createdAt: new Date().toISOString() });
  // Dexie takes IDBDatabase's transaction() when it opens: each store opens with Firefox's behaviour in place
  const once = cleanupTransactions(1);
  const recovering = new DexieStore('cleanup-once', { indexedDB: new IDBFactory(), IDBKeyRange });
  try {
    await recovering.addAccount(account('U2'));
    expect(once.cleanups()).toBe(1);
    expect(await recovering.findAccountByKeyHash('hash-U2')).toMatchObject({ userID: 'U2' });
  } finally {
    once.restore();
    await recovering.close();
  }
  const always = cleanupTransactions(Number.POSITIVE_INFINITY);
  const full = new DexieStore('cleanup-always', { indexedDB: new IDBFactory(), IDBKeyRange });
  try {
    await expect(full.addAccount(account('U3'))).rejects.toMatchObject({ name: 'QuotaExceeded', status: 507 });
    expect(await full.findAccountByKeyHash('hash-U3')).toBeUndefined();
  } finally {
    always.restore();
    await full.close();
  }
});

test('feedback given on a stored piece of a batch (the listing shows it) goes with the piece when the batch is taken back', async () => {
  const batch = store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096));
  while ((await store.db.logGroups.count()) === 0);
  const [listed] = (await store.listEvaluations('U1', agent.id, { limit: 1 })).entries;
  await store.addFeedback('U1', { id: crypto.randomUUID(), evaluationLog: listed!.evaluation.reqID, data: { tip: 1 }, createdAt: new Date().toISOString() });
  await store.updateAgent('U1', agent.id, body, []);
  expect(await batch).toBe(false);
  expect(await store.db.logGroups.count()).toBe(0);
  expect(await store.db.feedback.count()).toBe(0);
  expect(await store.countRecords('U1')).toMatchObject({ evaluations: 0, feedback: 0 });
});

test("counting an agent's logs per version does not hold back a single evaluation's write until the whole log is read", async () => {
  await store.addEvaluations('U1', agent.id, agent.latestVersion, logs(64 * 256));
  const order = await settlingOrder({
    count: store.countEvaluationsByVersion('U1', agent.id),
    single: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(1)),
  });
  expect(order).toEqual(['single', 'count']);
  expect((await store.countEvaluationsByVersion('U1', agent.id)).get(agent.latestVersion)).toBe(64 * 256 + 1);
});

test("logs are written with relaxed durability unless the store is opened with logDurability: 'strict'", async () => {
  /** The durability of every read-write transaction over `logGroups` that one evaluation's write opens. */
  async function durabilities(logDurability?: 'relaxed' | 'strict') {
    const opened = new DexieStore('durability', { indexedDB: new IDBFactory(), IDBKeyRange, ...(logDurability ? { logDurability } : {}) });
    await opened.addAccount({ userID: 'U1', name: 'one', keyHash: 'h1', createdAt: new Date().toISOString() });
    const created = await opened.createAgent('U1', body, []);
    const database = opened.db.backendDB();
    const seen: Array<string | undefined> = [];
    const transaction = database.transaction.bind(database);
    database.transaction = ((stores: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) => {
      if (mode === 'readwrite' && [stores].flat().includes('logGroups')) seen.push(options?.durability);
      return transaction(stores, mode, options);
    }) as typeof database.transaction;
    try {
      const log = { ...logs(1)[0]!, agentID: created.id, versionID: created.latestVersion };
      expect(await opened.addEvaluations('U1', created.id, created.latestVersion, [log])).toBe(true);
      expect((await opened.countRecords('U1')).evaluations).toBe(1);
      return seen;
    } finally {
      opened.close();
    }
  }
  expect(await durabilities()).toEqual(['relaxed']);
  expect(await durabilities('strict')).toEqual(['strict']);
});
