// Sync end to end (docs/SYNC.md): a `fuzzbox/node` server (PGlite files in the `pglite` project,
// the real PostgreSQL server in `postgres`) and two browser-side services over fake-indexeddb,
// over real HTTP, offline and online in the orders the test sets.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FuzzboxServer } from '../../src/node/index.js';
import { browser, exported, request, serverStorage, startServer, type Replica } from './support.js';

const tipping = (name = 'tipping', high = 30) => ({
  name,
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, high] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
});

let storage: Awaited<ReturnType<typeof serverStorage>>;
let server: FuzzboxServer;
let apiKey: string;
const opened: Replica[] = [];

beforeAll(async () => {
  storage = await serverStorage();
  server = await startServer(storage);
  apiKey = (await server.createAccount('sync')).apiKey;
});
afterAll(async () => {
  for (const replica of opened) await replica.close();
  await server?.close();
  storage?.remove();
});

const onServer = (method: string, path: string, body?: unknown) => request(server.handle, server.url, apiKey, method, path, body);

function replica(): Replica {
  const made = browser(server.url, apiKey);
  opened.push(made);
  return made;
}

/** Evaluates `agentID` `n` times on `at`, posts feedback on every other answer; the logs' ids. */
async function evaluate(at: Replica, agentID: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const answer = await at.call('POST', `agent/${agentID}`, { service: (i * 7) % 11 });
    expect(answer.status).toBe(200);
    const reqID = answer.headers.get('x-evaluation-id')!;
    ids.push(reqID);
    if (i % 2 === 0) expect((await at.call('POST', `evaluation/${reqID}/feedback`, { comfort: i })).status).toBe(200);
  }
  return ids;
}

async function syncAll(...replicas: Replica[]): Promise<void> {
  for (const at of replicas) {
    const status = await at.service.sync!.now();
    expect(status.lastError).toBeNull();
  }
}

describe(`sync between two browsers and a server on ${process.env.FUZZBOX_TEST_STORE ?? 'pglite'}`, () => {
  test('offline edits on both sides converge: same records everywhere, the later PUT latest, a delete wins', async () => {
    const a = replica();
    const b = replica();
    // offline, A creates two agents and uses them; then it meets the server, and B meets it too
    const fan = (await a.call('POST', 'agent', tipping('fan'))).body;
    const doomed = (await a.call('POST', 'agent', tipping('doomed'))).body;
    const early = await evaluate(a, fan.id, 10);
    a.network.online = true;
    b.network.online = true;
    await syncAll(a, b);
    expect((await b.call('GET', `agent/${fan.id}`)).body.latestVersion).toBe(fan.latestVersion);
    expect(b.events.at(-1)!.newVersions.map((version) => version.id).sort()).toEqual([fan.latestVersion, doomed.latestVersion].sort());

    // both offline: each PUTs the same agent, evaluates and posts feedback; A edits what B deletes
    a.network.online = false;
    b.network.online = false;
    const byA = (await a.call('PUT', `agent/${fan.id}`, tipping('fan by A', 31))).body;
    const fromA = await evaluate(a, fan.id, 20);
    await a.call('PUT', `agent/${doomed.id}`, tipping('doomed, edited', 32));
    await evaluate(a, doomed.id, 4);
    await new Promise((resolve) => setTimeout(resolve, 5)); // B's PUT is the later one
    const byB = (await b.call('PUT', `agent/${fan.id}`, tipping('fan by B', 33))).body;
    const fromB = await evaluate(b, fan.id, 20);
    expect((await b.call('DELETE', `agent/${doomed.id}`)).status).toBe(200);
    const onlyB = (await b.call('POST', 'agent', tipping('only on B'))).body;
    // an answer of A's older version, logged offline, stays logged against that version
    expect(byA.latestVersion).not.toBe(byB.latestVersion);

    // B reconnects first, then A, then B again to take what A brought
    b.network.online = true;
    await syncAll(b);
    a.network.online = true;
    await syncAll(a, b);

    const everywhere = [
      (path: string) => a.call('GET', path),
      (path: string) => b.call('GET', path),
      (path: string) => onServer('GET', path),
    ];
    for (const get of everywhere) {
      const agent = (await get(`agent/${fan.id}`)).body;
      expect(agent.latestVersion).toBe(byB.latestVersion);
      expect(agent.name).toBe('fan by B');
      expect((await get(`agent/${doomed.id}`)).status).toBe(410);
      expect((await get(`agent/${onlyB.id}`)).status).toBe(200);
      const versions = (await get(`agent/${fan.id}/version`)).body as Array<{ id: string }>;
      expect(versions.map((version) => version.id).sort()).toEqual([fan.latestVersion, byA.latestVersion, byB.latestVersion].sort());
      for (const reqID of [...early, ...fromA, ...fromB]) {
        const log = await get(`evaluation/${reqID}`);
        expect(log.status).toBe(200);
      }
      expect((await get(`evaluation/${fromA[0]}`)).body.versionID).toBe(byA.latestVersion);
    }
    const [onA, onB, onTheServer] = await Promise.all([
      exported(a.service.handle, 'http://browser.test/', apiKey),
      exported(b.service.handle, 'http://browser.test/', apiKey),
      exported(server.handle, server.url, apiKey),
    ]);
    expect(onA.length).toBeGreaterThan(80);
    expect(onA).toEqual(onTheServer);
    expect(onB).toEqual(onTheServer);
    for (const at of [a, b]) expect((await at.service.sync!.status()).pending).toBe(0);
  });
});
