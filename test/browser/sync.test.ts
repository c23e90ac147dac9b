// Sync's proof in real Chromium (docs/SYNC.md, "What the tests show"): two persistent profiles,
// one syncing through the service worker (dist/fuzzbox-sw.js, `registerFuzzyWorker(url, {sync})`)
// and one through a service in the page (`createFuzzyService({sync})`), and a `fuzzbox serve`
// child process on PGlite files (project `pglite`) or the run's PostgreSQL (project `postgres`).
// The pages are on http://localhost:A, the server on http://127.0.0.1:B (`--cors`), as an app
// and its server would be; each profile reaches the server through a relay (sync-network.ts)
// that breaks the requests the test names.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SyncEvent } from '../../src/api/replicator.js';
import type { SyncStatus } from '../../src/schema/sync.js';
import { freePort } from '../support/postgres-server.js';
import { newDatabase, startServe, type Child } from '../server/child.js';
import { serverBackend } from '../sync/support.js';
import { bundleForPage, chromiumArgs, chromiumPath, requireBuild, root, startStaticServer, type StaticServer } from './harness.js';
import { startRelay, type Relay } from './sync-network.js';

const tipping = (name: string, high = 30) => ({
  name,
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, high] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
});

interface Reply {
  status: number;
  ids: string | null;
  body: any;
}

/** What a profile's page offers the test (set up by `openProfile`). */
declare global {
  interface Window {
    call(method: string, path: string, body?: unknown): Promise<Reply>;
    syncNow(): Promise<SyncStatus | null>;
    syncStatus(): Promise<SyncStatus | null>;
    syncEvents: SyncEvent[];
    /** the bundle of src/index.ts, on the in-page profile */
    inPage: typeof import('../../src/index.js');
  }
}

/** A Chromium profile on disk with the page that syncs, through its worker or in the page. */
interface Profile {
  kind: 'worker' | 'page';
  dir: string;
  context: BrowserContext;
  page: Page;
  relay: Relay;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  now(): Promise<SyncStatus>;
  /** every record this profile answered 200 (or 201) for: what must end up everywhere */
  answered: { agents: Set<string>; versions: Set<string>; evaluations: Set<string>; feedback: Set<string> };
}

let pages: StaticServer;
let bundleDir: string;
let storage: { args: string[]; remove(): void };
let port: number;
let server: Child;
let apiKey: string;
const profiles: Profile[] = [];
const relays: Relay[] = [];

async function startServer(): Promise<Child> {
  return startServe(['--port', String(port), '--cors', pageOrigin(), '--quiet', ...storage.args]);
}
const pageOrigin = () => pages.origin.replace('127.0.0.1', 'localhost');

beforeAll(async () => {
  requireBuild('dist/fuzzbox-sw.js', 'dist/client.js');
  bundleDir = await bundleForPage('src/index.ts', 'fuzzbox.js');
  pages = await startStaticServer({
    '/': 'test/browser/fixtures',
    '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js',
    '/dist/': 'dist',
    '/vendor/workbox-window.mjs': 'node_modules/workbox-window/build/workbox-window.prod.mjs',
    '/inpage/': relative(root, bundleDir),
  });
  if (serverBackend === 'postgres') {
    storage = { args: ['--database', await newDatabase()], remove: () => undefined };
  } else {
    const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-sync-serve-'));
    storage = { args: ['--data', dataDir], remove: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  port = await freePort();
  server = await startServer();
  const account = await fetch(`${server.url}account`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"sync proof"}' });
  apiKey = ((await account.json()) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  for (const profile of profiles) await profile.context.close().catch(() => undefined);
  for (const profile of profiles) rmSync(profile.dir, { recursive: true, force: true });
  for (const relay of relays) await relay.close();
  await server?.stop();
  storage?.remove();
  await pages?.close();
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

async function launch(dir: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(dir, { executablePath: chromiumPath(), headless: true, args: chromiumArgs });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await page.goto(`${pageOrigin()}/`);
  return { context, page };
}

/**
 * The page's side: `call` sends a request to the profile's own fuzzbox (the worker through
 * fetch, or the page's service directly), `syncNow`/`syncStatus` drive its sync. `sync` is
 * sent to the worker only when given (a restarted browser's worker must find its own).
 */
async function preparePage(page: Page, kind: Profile['kind'], sync: { url: string; apiKey: string; batchSize?: number } | undefined): Promise<void> {
  if (kind === 'page') await page.addScriptTag({ type: 'module', content: "window.inPage = await import('/inpage/fuzzbox.js');" });
  await page.waitForFunction((kind) => (kind === 'page' ? window.inPage : window.fuzzbox) !== undefined, kind);
  await page.evaluate(
    async ({ kind, sync }) => {
      window.syncEvents = [];
      const settings = sync && { ...sync, interval: 3_600_000 }; // rounds when the test asks, after writes, on `online`
      const reply = async (response: Response): Promise<Reply> => ({
        status: response.status,
        ids: response.headers.get('X-Evaluation-ID'),
        body: response.headers.get('Content-Type')?.startsWith('application/json') ? await response.json() : await response.text(),
      });
      const request = (method: string, path: string, body?: unknown) =>
        new Request(new URL(path, location.href), {
          method,
          headers: { Authorization: `Bearer ${sync?.apiKey ?? localStorage.getItem('apiKey')}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      if (sync) localStorage.setItem('apiKey', sync.apiKey);
      if (kind === 'worker') {
        const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { ...(settings ? { sync: settings } : {}), onSync: (event: SyncEvent) => window.syncEvents.push(event) });
        window.call = async (method, path, body) => reply(await fetch(request(method, path, body)));
        window.syncNow = () => worker.sync.now();
        window.syncStatus = () => worker.sync.status();
      } else {
        const service = window.inPage.createFuzzyService({ sync: settings, onSync: (event: SyncEvent) => window.syncEvents.push(event) });
        window.call = async (method, path, body) => reply(await service.handle(request(method, path, body)));
        window.syncNow = () => service.sync!.now();
        window.syncStatus = () => service.sync!.status();
        addEventListener('online', () => void service.sync!.now());
      }
    },
    { kind, sync },
  );
}

async function openProfile(kind: Profile['kind'], batchSize?: number): Promise<Profile> {
  const relay = await startRelay(() => server.url);
  relays.push(relay);
  const dir = mkdtempSync(join(tmpdir(), `fuzzbox-sync-${kind}-`));
  const { context, page } = await launch(dir);
  await preparePage(page, kind, { url: relay.url, apiKey, ...(batchSize ? { batchSize } : {}) });
  const profile: Profile = {
    kind,
    dir,
    context,
    page,
    relay,
    call: (method, path, body) => profile.page.evaluate(({ method, path, body }) => window.call(method, path, body), { method, path, body }),
    now: async () => (await profile.page.evaluate(() => window.syncNow()))!,
    answered: { agents: new Set(), versions: new Set(), evaluations: new Set(), feedback: new Set() },
  };
  profiles.push(profile);
  return profile;
}

/** Creates (no id) or replaces an agent on `at`; its answer, recorded. */
async function define(at: Profile, agent: object, id?: string): Promise<{ id: string; latestVersion: string }> {
  const reply = await at.call(id ? 'PUT' : 'POST', id ? `/agent/${id}` : '/agent', agent);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  at.answered.agents.add(reply.body.id);
  at.answered.versions.add(reply.body.latestVersion);
  return reply.body;
}

/**
 * Evaluates `agentID` `n` times on `at` (singles, then batches of up to 4096) and posts feedback
 * on every `feedbackEvery`-th answer, all in the page; records what was answered.
 */
async function use(at: Profile, agentID: string, n: number, feedbackEvery = 40): Promise<string[]> {
  const done = await at.page.evaluate(
    async ({ agentID, n, feedbackEvery }) => {
      const reqIDs: string[] = [];
      const feedback: string[] = [];
      const singles = Math.min(n, 50);
      for (let i = 0; i < singles; i++) {
        const reply = await window.call('POST', `/agent/${agentID}`, { service: i % 11 });
        if (reply.status !== 200) throw new Error(`evaluation answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        reqIDs.push(reply.ids!);
      }
      for (let left = n - singles; left > 0; left -= 4096) {
        const items = Array.from({ length: Math.min(left, 4096) }, (_, i) => ({ service: (i * 7) % 11 }));
        const reply = await window.call('POST', `/agent/${agentID}`, items);
        if (reply.status !== 200) throw new Error(`batch answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        reqIDs.push(...reply.ids!.split(','));
      }
      for (let i = 0; i < reqIDs.length; i += feedbackEvery) {
        const reply = await window.call('POST', `/evaluation/${reqIDs[i]}/feedback`, { comfort: i % 13 });
        if (reply.status !== 200) throw new Error(`feedback answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        feedback.push(reply.body.id);
      }
      return { reqIDs, feedback };
    },
    { agentID, n, feedbackEvery },
  );
  for (const id of done.reqIDs) at.answered.evaluations.add(id);
  for (const id of done.feedback) at.answered.feedback.add(id);
  return done.reqIDs;
}

/** Rounds in this order, each of which must succeed; the statuses after them. */
async function rounds(...order: Profile[]): Promise<SyncStatus[]> {
  const statuses: SyncStatus[] = [];
  for (const at of order) {
    const status = await at.now();
    expect(status.lastError, `${at.kind}'s round`).toBeNull();
    statuses.push(status);
  }
  return statuses;
}

/** An export's records as a sorted list: the header's timestamp and what each store numbers for itself (a version's `seq`, an agent's `versionCount`) left out. */
function records(text: string): string[] {
  const [header, ...lines] = text.split('\n').filter((line) => line !== '');
  expect(JSON.parse(header!).format).toBe('fuzzbox-backup');
  return lines
    .map((line) => {
      const { seq: _seq, versionCount: _count, ...record } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(record);
    })
    .sort();
}

async function serverExport(): Promise<string[]> {
  const response = await fetch(`${server.url}export`, { headers: { Authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return records(await response.text());
}

/** All three hold the same records, and each holds everything any of them answered. */
async function expectConverged(...at: Profile[]): Promise<string[]> {
  const onServer = await serverExport();
  for (const profile of at) {
    const exported = await profile.call('GET', '/export');
    expect(exported.status).toBe(200);
    const mine = records(exported.body as string);
    expect(mine.length, `${profile.kind}'s export`).toBe(onServer.length);
    expect(mine, `${profile.kind}'s export`).toEqual(onServer);
    expect((await profile.page.evaluate(() => window.syncStatus()))!.pending).toBe(0);
  }
  const held = { agents: new Set<string>(), versions: new Set<string>(), evaluations: new Set<string>(), feedback: new Set<string>() };
  for (const line of onServer) {
    const record = JSON.parse(line) as { kind: string; id?: string; reqID?: string };
    if (record.kind === 'agent' || record.kind === 'deletion') held.agents.add(record.id!);
    if (record.kind === 'version') held.versions.add(record.id!);
    if (record.kind === 'evaluation') held.evaluations.add(record.reqID!);
    if (record.kind === 'feedback') held.feedback.add(record.id!);
  }
  for (const profile of profiles) {
    for (const kind of ['agents', 'versions', 'evaluations', 'feedback'] as const) {
      const missing = [...profile.answered[kind]].filter((id) => !held[kind].has(id));
      expect(missing, `${kind} answered by the ${profile.kind} profile`).toEqual([]);
    }
  }
  return onServer;
}

/**
 * The profile's network goes down or comes back. Chromium's offline emulation stops the worker's
 * and the page's fetches, but lets CORS preflights through (the first test shows it), so the
 * line to the server is cut too.
 */
async function offline(at: Profile, yes: boolean): Promise<void> {
  at.relay.online = !yes;
  await at.context.setOffline(yes);
}

describe(`two Chromium profiles and fuzzbox serve on ${serverBackend}`, () => {
  let worker: Profile;
  let inPage: Profile;
  let shared: { id: string; latestVersion: string };
  let doomed: { id: string; latestVersion: string };

  test('the worker and the page sync through the server: what one creates online reaches the other, with an event', async () => {
    worker = await openProfile('worker', 500);
    inPage = await openProfile('page', 500);
    shared = await define(worker, tipping('shared'));
    doomed = await define(worker, tipping('doomed'));
    await use(worker, shared.id, 200);
    await rounds(worker, inPage);
    expect((await inPage.call('GET', `/agent/${shared.id}`)).body.latestVersion).toBe(shared.latestVersion);
    const arrived = (await inPage.page.evaluate(() => window.syncEvents)).flatMap((event) => event.newVersions.map((version) => version.id));
    expect(arrived.sort()).toEqual([shared.latestVersion, doomed.latestVersion].sort());
    // the worker's rounds reach the page on the BroadcastChannel too
    expect((await worker.page.evaluate(() => window.syncEvents)).length).toBeGreaterThan(0);
    // cross-origin: the server answered the pages' origin, preflights included
    expect(worker.relay.seen).toContain('OPTIONS /sync/push');
    await expectConverged(worker, inPage);
  });

  test('both offline: edits, thousands of evaluations and feedback on each; the page reconnects first, then the worker; all three end equal', async () => {
    // Chromium offline alone: the server hears no fetch from the worker or the page, only preflights
    const heard = { worker: worker.relay.seen.length, page: inPage.relay.seen.length };
    for (const at of [worker, inPage]) await at.context.setOffline(true);
    for (const at of [worker, inPage]) expect((await at.now()).lastError, `${at.kind} offline`).toMatch(/fetch/i);
    expect(worker.relay.seen.slice(heard.worker).filter((line) => !line.startsWith('OPTIONS '))).toEqual([]);
    expect(inPage.relay.seen.slice(heard.page).filter((line) => !line.startsWith('OPTIONS '))).toEqual([]);
    await offline(worker, true);
    await offline(inPage, true);
    const cutOff = worker.relay.seen.length + inPage.relay.seen.length;

    const byWorker = await define(worker, tipping('shared, by the worker', 31), shared.id);
    const onOld = await use(worker, shared.id, 2500);
    await define(worker, tipping('doomed, edited', 32), doomed.id);
    await use(worker, doomed.id, 300);
    const workerOnly = await define(worker, tipping('only in the worker'));
    await use(worker, workerOnly.id, 100);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the page's PUT is the later one
    const byPage = await define(inPage, tipping('shared, by the page', 33), shared.id);
    await use(inPage, shared.id, 2500);
    expect((await inPage.call('DELETE', `/agent/${doomed.id}`)).status).toBe(200);
    const pageOnly = await define(inPage, tipping('only in the page'));
    await use(inPage, pageOnly.id, 100);
    for (const at of [worker, inPage]) expect((await at.page.evaluate(() => window.syncStatus()))!.pending).toBeGreaterThan(2500);
    expect(worker.relay.seen.length + inPage.relay.seen.length).toBe(cutOff);

    await offline(inPage, false);
    await rounds(inPage);
    await offline(worker, false);
    await rounds(worker, inPage);

    for (const get of [(path: string) => worker.call('GET', path), (path: string) => inPage.call('GET', path)]) {
      const agent = (await get(`/agent/${shared.id}`)).body;
      expect(agent.latestVersion).toBe(byPage.latestVersion);
      expect(agent.name).toBe('shared, by the page');
      expect((await get(`/agent/${doomed.id}`)).status).toBe(410);
      expect((await get(`/agent/${workerOnly.id}`)).status).toBe(200);
      expect((await get(`/agent/${pageOnly.id}`)).status).toBe(200);
      // answered offline by the worker's version, logged against it everywhere
      expect((await get(`/evaluation/${onOld[100]}`)).body.versionID).toBe(byWorker.latestVersion);
    }
    const held = await expectConverged(worker, inPage);
    expect(held.length).toBeGreaterThan(5600);
  });

  test('faults: pushes cut mid-body, answers lost, a push delivered twice, a pull cut mid-answer, the server killed mid-round; the worker reconnects first; all three end equal', async () => {
    await offline(worker, true);
    await offline(inPage, true);
    const extra = await define(worker, tipping('made offline before the faults'));
    await use(worker, extra.id, 3000);
    await use(inPage, shared.id, 3000);

    // the worker's first three pushes break, one way each (coming online starts a round); the rounds after go on
    const broken = Promise.all([
      worker.relay.inject({ kind: 'cut-request', path: '/sync/push', after: 20_000 }),
      worker.relay.inject({ kind: 'lose-answer', path: '/sync/push' }),
      worker.relay.inject({ kind: 'duplicate', path: '/sync/push' }),
    ]);
    await offline(worker, false);
    while (!(await Promise.race([broken.then(() => true), new Promise((resolve) => setTimeout(resolve, 100, false))]))) await worker.now();
    await rounds(worker);

    // the server is killed between two of the page's pushes, and started again on the same data
    const pushes = inPage.relay.seen.filter((line) => line === 'POST /sync/push').length;
    const killed = inPage.relay.delivered('/sync/push', pushes + 2).then(async () => {
      server.process.kill('SIGKILL');
      await server.exited;
    });
    const reported = await inPage.page.evaluate(() => window.syncEvents.length);
    await offline(inPage, false);
    await killed;
    await inPage.page.waitForFunction((reported) => window.syncEvents.slice(reported).some((event) => event.status.lastError !== null), reported);
    server = await startServer();
    await rounds(inPage);

    // the worker's pull of what the page pushed breaks mid-answer, then goes on
    const cut = worker.relay.inject({ kind: 'cut-answer', path: '/sync/pull', after: 30_000 });
    await worker.now();
    await cut;
    await rounds(worker, inPage);
    await expectConverged(worker, inPage);
  });

  test('a restarted browser: the worker syncs with the settings it kept, no page telling it', async () => {
    await worker.context.close();
    const { context, page } = await launch(worker.dir);
    Object.assign(worker, { context, page });
    await preparePage(page, 'worker', undefined);
    const status = await worker.page.evaluate(() => window.syncStatus());
    expect(status?.url).toBe(worker.relay.url);
    const later = await define(worker, tipping('after the restart'));
    await use(worker, later.id, 100);
    await rounds(worker, inPage);
    await expectConverged(worker, inPage);
  });
});
