// Sync end to end (docs/SYNC.md): a `fuzzbox/node` server (PGlite files in the `pglite` project,
// the real PostgreSQL server in `postgres`) and two browser-side services over fake-indexeddb,
// over real HTTP, offline and online in the orders the test sets.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { FuzzboxServer } from '../../src/node/index.js';
import { compileOrReject } from '../../src/core/compiled-agents.js';
import { sha256Hex } from '../../src/core/keys.js';
import { pgliteDatabase, postgresDatabase } from '../../src/node/databases.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { browser, browserStore, exported, request, serverStorage, startServer, tipping, type Replica } from './support.js';
import { brokenStore } from '../support/faults.js';

let storage: Awaited<ReturnType<typeof serverStorage>>;
let server: FuzzboxServer;
/** each test's own account on the server */
let apiKey: string;
const opened: Replica[] = [];

beforeAll(async () => {
  storage = await serverStorage();
  server = await startServer(storage);
});
beforeEach(async () => {
  apiKey = (await server.createAccount('sync')).apiKey;
});
afterAll(async () => {
  for (const replica of opened) await replica.close();
  await server?.close();
  storage?.remove();
});

const onServer = (method: string, path: string, body?: unknown) => request(server.handle, server.url, apiKey, method, path, body);

function replica(options: { batchSize?: number; timeout?: number } = {}, store = browserStore()): Replica {
  const made = browser(server.url, apiKey, options, store);
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
  test.each([
    ['B', 'A'],
    ['A', 'B'],
  ])('offline edits on both sides converge (%s reconnects first): same records everywhere, the later PUT latest, a delete wins', async (first) => {
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
    expect(
      b.events
        .at(-1)!
        .newVersions.map((version) => version.id)
        .sort(),
    ).toEqual([fan.latestVersion, doomed.latestVersion].sort());

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

    // one reconnects, then the other, then the first again to take what the other brought
    const [one, two] = first === 'B' ? [b, a] : [a, b];
    one.network.online = true;
    await syncAll(one);
    two.network.online = true;
    await syncAll(two, one);

    const everywhere = [(path: string) => a.call('GET', path), (path: string) => b.call('GET', path), (path: string) => onServer('GET', path)];
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
    expect((await sameEverywhere(a, b)).length).toBeGreaterThan(80);
  });
});

/** The three stores hold the same records (GET /export, less what each numbers itself); nothing waits to be pushed. */
async function sameEverywhere(...replicas: Replica[]): Promise<string[]> {
  const onTheServer = await exported(server.handle, server.url, apiKey);
  for (const at of replicas) {
    expect(await exported(at.service.handle, 'http://browser.test/', apiKey)).toEqual(onTheServer);
    expect((await at.service.sync!.status()).pending).toBe(0);
  }
  return onTheServer;
}

describe('learning', () => {
  test("the server's autopilot state reaches the browser: switched off there, off here; its candidate served to a share of the browser's answers, whose logs go back", async () => {
    const a = replica();
    const agent = (await a.call('POST', 'agent', { ...tipping('learning'), performance: { comfort: 'maximize' } })).body;
    a.network.online = true;
    await syncAll(a);
    expect((await onServer('PUT', `agent/${agent.id}/autopilot`, { enabled: false })).status).toBe(200);
    await syncAll(a);
    expect((await a.call('GET', `agent/${agent.id}/autopilot`)).body).toMatchObject({ enabled: false, active: false });
    expect((await onServer('PUT', `agent/${agent.id}/autopilot`, { enabled: true })).status).toBe(200);

    // the server's autopilot proposes a candidate (written here as it writes one, with the server stopped)
    const port = server.port;
    await server.close();
    const sql = storage.dataDir ? await pgliteDatabase(storage.dataDir) : postgresDatabase(storage.database!, { max: 1 });
    const store = await PostgresStore.open(sql);
    const { userID } = (await store.findAccountByKeyHash(await sha256Hex(apiKey)))!;
    const body = { ...tipping('learning', 34), performance: { comfort: 'maximize' as const } };
    const definition = { inputs: body.inputs, outputs: body.outputs, rules: body.rules };
    const { version: candidate } = (await store.addCandidateVersion(
      userID,
      agent.id,
      agent.latestVersion,
      body,
      [...compileOrReject(body).parsedRules],
      { origin: 'autopilot' },
      (stored, version) => {
        const trial = { versionID: version.id, basedOn: agent.latestVersion, since: version.createdAt, definition };
        return {
          agentID: agent.id,
          userID,
          enabled: true,
          usedFeedback: 150,
          trials: [],
          candidate: trial,
          spread: { tip: 0.05 },
          revision: (stored?.revision ?? 0) + 1,
        };
      },
    ))!;
    await store.close();
    server = await startServer(storage, port);

    await syncAll(a);
    expect((await a.call('GET', `agent/${agent.id}/autopilot`)).body).toMatchObject({
      enabled: true,
      active: true,
      candidate: { versionID: candidate.id, basedOn: agent.latestVersion, since: candidate.createdAt },
      spread: { tip: 0.05 },
    });
    const ids = await evaluate(a, agent.id, 40);
    const versions = await Promise.all(ids.map(async (reqID) => (await a.call('GET', `evaluation/${reqID}`)).body.versionID as string));
    expect(versions).toContain(candidate.id);
    expect(versions).toContain(agent.latestVersion);
    // the browser decides nothing: the trial is the server's
    expect((await a.call('GET', `agent/${agent.id}`)).body.latestVersion).toBe(agent.latestVersion);
    await syncAll(a);
    const onTheServer = versions.filter((id) => id === candidate.id).length;
    expect((await onServer('GET', `agent/${agent.id}/evaluation?version=${candidate.id}&limit=100`)).body.evaluations).toHaveLength(onTheServer);
    await sameEverywhere(a);
  });
});

describe('status', () => {
  test('GET /sync/status answers the synced account what waits and what went wrong; any other account 404', async () => {
    const a = replica();
    const agent = (await a.call('POST', 'agent', tipping())).body;
    await evaluate(a, agent.id, 4);
    const offline = await a.service.sync!.now();
    expect(offline).toMatchObject({ url: server.url, lastSync: null, pending: 1 + 4 + 2, syncing: false });
    expect(offline.lastError).toContain('network is down');
    const status = await a.call('GET', 'sync/status');
    expect(status.status).toBe(200);
    expect(status.body).toEqual(offline);
    a.network.online = true;
    const online = await a.service.sync!.now();
    expect(online).toMatchObject({ pending: 0, lastError: null });
    expect((await a.call('GET', 'sync/status')).body).toMatchObject({ pending: 0, lastError: null, lastSync: online.lastSync });
    // every round was reported: the failed ones (a round also follows the writes by itself), then this one
    expect(a.events.at(-1)!.status).toEqual(online);
    expect(a.events.slice(0, -1).every((event) => event.status.lastError !== null)).toBe(true);
    const other = (await request(a.service.handle, 'http://browser.test/', apiKey, 'POST', 'account')).body.apiKey as string;
    const refused = await request(a.service.handle, 'http://browser.test/', other, 'GET', 'sync/status');
    expect(refused.status).toBe(404);
    expect(refused.body.message).toContain('sync.apiKey');
  });
});

describe('faults', () => {
  test('the network drops after the server stored a push: the next round sends it again, which changes nothing', async () => {
    const a = replica();
    const agent = (await a.call('POST', 'agent', tipping())).body;
    await evaluate(a, agent.id, 30);
    a.network.online = true;
    a.network.failAfterServer = { path: 'sync/push' };
    const failed = await a.service.sync!.now();
    expect(failed.lastError).toContain('connection dropped');
    expect(failed.pending).toBe(1 + 30 + 15);
    // the server has it all already
    expect((await onServer('GET', `agent/${agent.id}`)).status).toBe(200);
    const pushes = a.network.requests.filter((line) => line.includes('sync/push')).length;
    const retried = await a.service.sync!.now();
    expect(retried).toMatchObject({ lastError: null, pending: 0 });
    expect(a.network.requests.filter((line) => line.includes('sync/push')).length).toBe(pushes + 1);
    await sameEverywhere(a);
  });

  test('a round between the pieces of a batch pushes none of it: when a later piece fails, the server holds none of its logs; a batch that succeeds goes whole', async () => {
    // the batch's second piece waits, until the test lets it go, for the round to run, then fails as a broken store would:
    // the order is the test's, not a race, and the fault lives in this replica's store alone. The evaluation writer
    // opens each piece's transaction on IndexedDB itself, on the connection it awaits from backendDB(): that is where
    // the second piece is held and fails.
    const store = browserStore();
    let armed = false;
    let pieces = 0;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const backendDB = store.db.backendDB.bind(store.db);
    store.db.backendDB = (() => {
      if (!armed || ++pieces !== 2) return backendDB();
      holding();
      return released.then(() => {
        throw brokenStore();
      });
    }) as typeof store.db.backendDB;
    const a = replica({}, store);
    const agent = (await a.call('POST', 'agent', tipping())).body;
    const [single] = await evaluate(a, agent.id, 1);
    a.network.online = true;
    const batch = Array.from({ length: 4096 }, (_, i) => ({ service: (i % 101) / 10 }));
    armed = true;
    const failing = a.call('POST', `agent/${agent.id}`, batch);
    const logsOnServer = async () => (await exported(server.handle, server.url, apiKey)).filter((line) => line.includes('"kind":"evaluation"'));
    try {
      await held;
      // the first piece is stored (a listing shows it) and the batch unfinished: the round pushes what came before it only
      expect((await a.call('GET', `agent/${agent.id}/evaluation?limit=2`)).body.evaluations).toHaveLength(2);
      expect((await a.service.sync!.now()).lastError).toBeNull();
      expect((await logsOnServer()).map((line) => JSON.parse(line).reqID)).toEqual([single]);
    } finally {
      release();
    }
    expect((await failing).status).toBeGreaterThanOrEqual(500);
    await syncAll(a);
    expect((await logsOnServer()).map((line) => JSON.parse(line).reqID)).toEqual([single]);
    const stored = await a.call('POST', `agent/${agent.id}`, batch);
    expect(stored.status).toBe(200);
    await syncAll(a);
    expect(await logsOnServer()).toHaveLength(1 + 4096);
    await sameEverywhere(a);
  });

  test('the network drops mid-pull: what was stored stays, the next round goes on from its checkpoint', async () => {
    const a = replica();
    const agent = (await a.call('POST', 'agent', tipping())).body;
    await evaluate(a, agent.id, 60);
    a.network.online = true;
    await syncAll(a);
    const b = replica({ batchSize: 20 });
    b.network.online = true;
    // the third page breaks off after 300 bytes
    let pulls = 0;
    b.network.beforeRequest = async (url) => {
      if (url.pathname.endsWith('sync/pull') && ++pulls === 3) b.network.cutAnswer = { path: 'sync/pull', after: 300 };
    };
    const failed = await b.service.sync!.now();
    expect(failed.lastError).toContain('dropped mid-answer');
    const resumedFrom = new URL(
      b.network.requests
        .filter((line) => line.includes('sync/pull'))
        .at(-1)!
        .split(' ')[1]!,
    ).searchParams.get('checkpoint');
    expect(resumedFrom).not.toBeNull();
    b.network.beforeRequest = undefined;
    await syncAll(b);
    // the round after the break asked from the checkpoint the break left, not from the start
    const next = b.network.requests.filter((line) => line.includes('sync/pull'))[3]!;
    expect(new URL(next.split(' ')[1]!).searchParams.get('checkpoint')).toBe(resumedFrom);
    await sameEverywhere(a, b);
  });

  test('a connection that never answers fails the round after the timeout; the next round completes', async () => {
    const a = replica({ timeout: 300 });
    const agent = (await a.call('POST', 'agent', tipping())).body;
    await evaluate(a, agent.id, 6);
    a.network.online = true;
    a.network.hang = { path: 'sync/push' };
    const started = Date.now();
    const failed = await a.service.sync!.now();
    expect(failed.lastError).toMatch(/timeout|aborted/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    await syncAll(a);
    await sameEverywhere(a);
  });

  test('the server restarts mid-sync: the round fails, the next one completes from where it stopped', async () => {
    const a = replica({ batchSize: 25 });
    const agent = (await a.call('POST', 'agent', tipping())).body;
    await evaluate(a, agent.id, 80);
    a.network.online = true;
    // the second push finds the server stopped; it is back for the next round
    let pushes = 0;
    a.network.beforeRequest = async (url) => {
      if (url.pathname.endsWith('sync/push') && ++pushes === 2) {
        const port = server.port;
        await server.close();
        a.network.beforeRequest = undefined;
        restart = startServer(storage, port).then((started) => void (server = started));
      }
    };
    let restart: Promise<void> | undefined;
    const failed = await a.service.sync!.now();
    expect(failed.lastError).toMatch(/fetch failed|ECONNREFUSED|other side closed/);
    expect(failed.pending).toBeGreaterThan(0);
    expect(failed.pending).toBeLessThan(1 + 80 + 40);
    await restart;
    await syncAll(a);
    await sameEverywhere(a);
  });
});
