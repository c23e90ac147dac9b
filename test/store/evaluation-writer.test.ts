// The write of a request's logs locks only what it must (docs/REST.md, "Cost of a request"):
// other requests read agents meanwhile, and a single evaluation waits for at most one batch.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { DexieStore } from '../../src/store/dexie-store.js';
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

const logs = (count: number): EvaluationRecord[] =>
  Array.from({ length: count }, () => ({
    reqID: crypto.randomUUID(),
    userID: 'U1',
    agentID: agent.id,
    versionID: agent.latestVersion,
    input: { service: 2 },
    crisp: { tip: 5 },
    createdAt: new Date().toISOString(),
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

test("a single evaluation's write goes before a waiting batch's, not with it", async () => {
  const order = await settlingOrder({
    first: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096)),
    second: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(4096)),
    single: store.addEvaluations('U1', agent.id, agent.latestVersion, logs(1)),
  });
  expect(order).toEqual(['first', 'single', 'second']);
  expect((await store.countRecords('U1')).evaluations).toBe(2 * 4096 + 1);
});

test('logs computed on a version that a PUT replaced meanwhile are not stored; a deleted agent stores none', async () => {
  const stale = logs(3);
  await store.updateAgent('U1', agent.id, body, []);
  expect(await store.addEvaluations('U1', agent.id, agent.latestVersion, stale)).toBe(false);
  const current = await store.readAgent('U1', agent.id);
  expect(await store.addEvaluations('U1', agent.id, current.latestVersion, logs(2).map((log) => ({ ...log, versionID: current.latestVersion })))).toBe(true);
  await store.deleteAgent('U1', agent.id);
  expect(await store.addEvaluations('U1', agent.id, current.latestVersion, logs(1))).toBe(false);
  expect((await store.countRecords('U1')).evaluations).toBe(2);
});
