// What the browser sync tests share (sync.test.ts, sync-volume.test.ts): persistent Chromium
// profiles syncing through the service worker (dist/fuzzbox-sw.js, `registerFuzzyWorker(url,
// {sync})`) or through a service in the page (`createFuzzyService({sync})`), and a `fuzzbox
// serve` child process on PGlite files (project `pglite`) or the run's PostgreSQL (project
// `postgres`). The pages are on http://localhost:A, the server on http://127.0.0.1:B (`--cors`),
// as an app and its server would be; each profile reaches the server through a relay
// (sync-network.ts) that breaks the requests a test names.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SyncEvent } from '../../src/core/replicator.js';
import type { SyncStatus } from '../../src/schema/sync.js';
import { freePort } from '../support/postgres-server.js';
import { newDatabase } from '../support/databases.js';
import { startServe, type Child } from '../server/child.js';
import { exportRecords, serverBackend } from '../sync/support.js';
import { bundleForPage, chromiumArgs, chromiumPath, requireBuild, root, startStaticServer, type StaticServer } from './harness.js';
import { startRelay, type Relay } from './sync-network.js';

export const tipping = (name: string, high = 30) => ({
  name,
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, high] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
});

export interface Reply {
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
    /** the worker profile's `FuzzyWorker.sync.configure` */
    syncConfigure(settings: { url: string; apiKey: string; interval?: number; batchSize?: number } | null): Promise<SyncStatus | null>;
    syncEvents: SyncEvent[];
    /** the bundle of src/index.ts, on the in-page profile */
    inPage: typeof import('../../src/index.js');
  }
}

/** A Chromium profile on disk with the page that syncs, through its worker or in the page. */
export interface Profile {
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
export const profiles: Profile[] = [];
const relays: Relay[] = [];

/** The running `fuzzbox serve`. */
export const currentServer = () => server;

/** Starts `fuzzbox serve` again on the same port and data (after the test stopped it). */
export async function restartServer(): Promise<void> {
  server = await startServer();
}

function startServer(): Promise<Child> {
  return startServe(['--port', String(port), '--cors', pageOrigin(), '--quiet', ...storage.args]);
}
const pageOrigin = () => pages.origin.replace('127.0.0.1', 'localhost');

/** Starts the pages' server and `fuzzbox serve` before the file's tests, and stops everything after. */
export function useSyncRig(): void {
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
}

export async function launch(dir: string): Promise<{ context: BrowserContext; page: Page }> {
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
export async function preparePage(page: Page, kind: Profile['kind'], sync: { url: string; apiKey: string; batchSize?: number } | undefined): Promise<void> {
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
          headers: {
            Authorization: `Bearer ${sync?.apiKey ?? localStorage.getItem('apiKey')}`,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      if (sync) localStorage.setItem('apiKey', sync.apiKey);
      if (kind === 'worker') {
        const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', {
          ...(settings ? { sync: settings } : {}),
          onSync: (event: SyncEvent) => window.syncEvents.push(event),
        });
        window.call = async (method, path, body) => reply(await fetch(request(method, path, body)));
        window.syncNow = () => worker.sync.now();
        window.syncStatus = () => worker.sync.status();
        window.syncConfigure = (settings) => worker.sync.configure(settings);
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

export async function openProfile(kind: Profile['kind'], batchSize?: number): Promise<Profile> {
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
export async function define(at: Profile, agent: object, id?: string): Promise<{ id: string; latestVersion: string }> {
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
export async function use(at: Profile, agentID: string, n: number, feedbackEvery = 40): Promise<string[]> {
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
export async function rounds(...order: Profile[]): Promise<SyncStatus[]> {
  const statuses: SyncStatus[] = [];
  for (const at of order) {
    const status = await at.now();
    expect(status.lastError, `${at.kind}'s round`).toBeNull();
    statuses.push(status);
  }
  return statuses;
}

/** An export's records (sorted, each store's own numbering left out), its header checked. */
function records(text: string): string[] {
  expect(JSON.parse(text.slice(0, text.indexOf('\n'))).format).toBe('fuzzbox-backup');
  return exportRecords(text);
}

export async function serverExport(): Promise<string[]> {
  const response = await fetch(`${server.url}export`, { headers: { Authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return records(await response.text());
}

/** All three hold the same records, and each holds everything any of them answered. */
export async function expectConverged(...at: Profile[]): Promise<string[]> {
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
export async function offline(at: Profile, yes: boolean): Promise<void> {
  at.relay.online = !yes;
  await at.context.setOffline(yes);
}
