/// <reference lib="webworker" />
// The service-worker adapter: the browser's fetch events in, the shared request handler's
// responses out. Everything worth keeping lives in IndexedDB (through the handler) or Cache
// Storage, so a worker the browser stops and restarts at any time loses nothing.
import { errorResponse, normaliseBasePath, routes, type FuzzyService } from '../api/index.js';
import { createFuzzyService } from '../service.js';
import { ApiError } from '../schema/errors.js';
import type { RetentionPolicy } from '../schema/retention.js';
import type { FetchLike, SyncOptions } from '../api/index.js';
import type { SyncStatus } from '../schema/sync.js';
import {
  CLAIM,
  INSTALL_FAILED,
  OPTIMIZE_PROGRESS,
  SKIP_WAITING,
  SYNC_CONFIGURE,
  SYNC_EVENTS,
  SYNC_NOW,
  SYNC_STATUS,
  type InstallFailure,
  type SyncReply,
  type WorkerSyncSettings,
} from './messages.js';
import { offlineFiles, type OfflineFile } from './offline.js';

export { CLAIM, INSTALL_FAILED, OPTIMIZE_PROGRESS, SKIP_WAITING, SYNC_CONFIGURE, SYNC_EVENTS, SYNC_NOW, SYNC_STATUS };
export type { InstallFailure, OfflineFile, SyncReply, WorkerSyncSettings };
export type { RetentionPolicy, SyncOptions, FetchLike, SyncStatus };

export interface FuzzyWorkerOptions {
  /** Where the REST interface lives, e.g. `/api/`; default `/` (so `/agent`, `/evaluation`, …). */
  basePath?: string;
  /** IndexedDB database name; default `"fuzzbox"`. */
  dbName?: string;
  /** Whether `POST /account` creates accounts; default true. */
  signup?: boolean;
  /** Which evaluation logs to keep (createFuzzyService's `retention`); default all. */
  retention?: RetentionPolicy;
  /** When a write of logs is done (createFuzzyService's `logDurability`): `'relaxed'` (default) or `'strict'`. */
  logDurability?: 'relaxed' | 'strict';
  /**
   * The app's own files, to start offline: Workbox's precache manifest (`self.__WB_MANIFEST`),
   * which `fuzzbox/vite` writes at build time. They are cached when the worker installs (the
   * install fails if one cannot be fetched) and served from that cache; the worker answers only
   * these files and the pages among them (`/` for `/index.html`, whatever the page's query).
   */
  offlineFiles?: readonly OfflineFile[];
  /**
   * Sync with a fuzzbox server (docs/SYNC.md): `{url, apiKey}`, optionally `interval`,
   * `batchSize`, `fetch` (default the worker's). Each round is posted on the BroadcastChannel
   * `fuzzbox-sync`. Without it, a page can set sync by message (`registerFuzzyWorker`'s `sync`).
   */
  sync?: SyncOptions;
}

/** Where the worker keeps the sync settings a page gave it: Cache Storage, readable before IndexedDB opens. */
const SYNC_SETTINGS_CACHE = 'fuzzbox-sync';
const SYNC_SETTINGS_URL = '/fuzzbox-sync-settings';

/** A service and the requests it is answering: one replaced by new settings closes once they are done. */
interface LiveService {
  service: FuzzyService;
  requests: number;
  retired: boolean;
}

/** The first path segment (after basePath) of every endpoint: `agent`, `version`, … */
const serviceRoots = new Set(routes.map((route) => route.path.split('/')[1]));

export function installFuzzyService(worker: ServiceWorkerGlobalScope, options: FuzzyWorkerOptions = {}): void {
  const basePath = normaliseBasePath(options.basePath ?? '/');
  let service: Promise<LiveService> | undefined;
  let progress: BroadcastChannel | undefined;
  let syncEvents: BroadcastChannel | undefined;
  const create = (sync: SyncOptions | undefined): LiveService => ({
    requests: 0,
    retired: false,
    service: createFuzzyService({
      indexedDB: worker.indexedDB,
      // A worker global the DOM typings leave off ServiceWorkerGlobalScope.
      IDBKeyRange: (worker as unknown as { IDBKeyRange: typeof IDBKeyRange }).IDBKeyRange,
      basePath,
      // to every page of the origin, so any of them can show a progress bar
      onOptimizeProgress: (report) => (progress ??= new BroadcastChannel(OPTIMIZE_PROGRESS)).postMessage(report),
      // GET /storage: estimate() and persisted() work in workers (persist() does not)
      ...(worker.navigator.storage ? { storageManager: worker.navigator.storage } : {}),
      ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
      ...(options.signup === undefined ? {} : { signup: options.signup }),
      ...(options.retention === undefined ? {} : { retention: options.retention }),
      ...(options.logDurability === undefined ? {} : { logDurability: options.logDurability }),
      ...(sync === undefined
        ? {}
        : {
            sync: { fetch: (input, init) => worker.fetch(input, init), ...sync },
            onSync: (event) => (syncEvents ??= new BroadcastChannel(SYNC_EVENTS)).postMessage(event),
          }),
    }),
  });
  const syncSettings = new SyncSettings(worker);
  // Created on first use: a restarted worker simply opens the same database again, and reads the settings a page gave.
  const handler = () => (service ??= (async () => create(options.sync ?? (await syncSettings.read())))());
  /** Runs `work` on the current service; a service replaced meanwhile closes once its last request is answered. */
  async function using<T>(work: (service: FuzzyService) => Promise<T>): Promise<T> {
    let live = await handler();
    while (live.retired) live = await handler(); // replaced while this request waited for it
    live.requests++;
    try {
      return await work(live.service);
    } finally {
      if (--live.requests === 0 && live.retired) void live.service.close();
    }
  }
  /** A page changed the sync settings: the next request gets a service with them, and the old one closes after the requests it is answering. */
  const resync = async (settings: WorkerSyncSettings | null) => {
    if (options.sync || !(await syncSettings.write(settings))) return;
    const old = service;
    service = undefined;
    const live = await old?.catch(() => undefined);
    if (!live) return;
    live.retired = true;
    if (live.requests === 0) await live.service.close();
  };
  /** A page's sync message: done, then answered on its port (if it sent one) with the status. */
  const syncMessage = async (data: { type: unknown; sync?: WorkerSyncSettings | null }, port: MessagePort | undefined) => {
    let reply: SyncReply;
    try {
      if (data.type === SYNC_CONFIGURE) await resync(data.sync ?? null);
      const status = await using(async ({ sync }): Promise<SyncStatus | null> => (sync ? (data.type === SYNC_NOW ? sync.now() : sync.status()) : null));
      reply = { status };
    } catch (error) {
      reply = { error: error instanceof Error ? error.message : String(error) };
    }
    port?.postMessage(reply);
  };

  const isServiceRequest = (url: URL) => {
    if (url.origin !== worker.location.origin || !url.pathname.startsWith(basePath)) return false;
    return serviceRoots.has(url.pathname.slice(basePath.length).split('/')[0]!);
  };

  const offline = options.offlineFiles?.length ? offlineFiles(worker, options.offlineFiles) : undefined;

  worker.addEventListener('install', (event) => {
    if (offline) event.waitUntil(offline.install(event).catch((error: Error) => reportInstallFailure(worker, error)));
  });

  worker.addEventListener('activate', (event) => {
    event.waitUntil(Promise.all([worker.clients.claim(), offline?.activate(event)]));
  });

  worker.addEventListener('message', (event) => {
    const type = (event.data as { type?: unknown } | null)?.type;
    if (type === SKIP_WAITING) event.waitUntil(worker.skipWaiting());
    if (type === CLAIM) event.waitUntil(worker.clients.claim());
    if (type === SYNC_CONFIGURE || type === SYNC_NOW || type === SYNC_STATUS) event.waitUntil(syncMessage(event.data, event.ports[0]));
  });

  worker.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    // An API is never navigated to: a page at a service path (an app's own /account) is the app's.
    if (isServiceRequest(url) && event.request.mode !== 'navigate') {
      // then(): a service that cannot even be created (say, a bad retention option) answers a 500 too
      event.respondWith(
        Promise.resolve()
          .then(() => using((service) => service.handle(event.request)))
          .catch(internalError),
      );
    } else if (url.origin === worker.location.origin) {
      offline?.answer(event);
    }
  });
}

/** The pages see only that the worker became redundant: tell them why, then fail the install. */
function reportInstallFailure(worker: ServiceWorkerGlobalScope, error: Error): never {
  const failure: InstallFailure = { scriptURL: worker.location.href, reason: error.message };
  const channel = new BroadcastChannel(INSTALL_FAILED);
  channel.postMessage(failure);
  channel.close();
  throw error;
}

/**
 * The handler answers every request itself; this runs only if the service could not be created
 * or has a bug, and answers as every other error does.
 */
function internalError(error: unknown): Response {
  console.error('fuzzbox worker: unexpected failure', error);
  const detail = error instanceof Error ? error.message : String(error);
  return errorResponse(new ApiError('InternalError', `fuzzbox worker: unexpected failure (a bug, or an invalid worker option): ${detail}`));
}

/** The sync settings a page gave the worker, kept in Cache Storage. */
class SyncSettings {
  constructor(private readonly worker: ServiceWorkerGlobalScope) {}

  async read(): Promise<WorkerSyncSettings | undefined> {
    const stored = await (await this.worker.caches.open(SYNC_SETTINGS_CACHE)).match(SYNC_SETTINGS_URL);
    return stored ? ((await stored.json()) as WorkerSyncSettings) : undefined;
  }

  /** Stores `settings` (null: none); whether they differ from what was stored. */
  async write(settings: WorkerSyncSettings | null): Promise<boolean> {
    const cache = await this.worker.caches.open(SYNC_SETTINGS_CACHE);
    const before = await this.read();
    if (JSON.stringify(before ?? null) === JSON.stringify(settings)) return false;
    if (settings) await cache.put(SYNC_SETTINGS_URL, new Response(JSON.stringify(settings), { headers: { 'Content-Type': 'application/json' } }));
    else await cache.delete(SYNC_SETTINGS_URL);
    return true;
  }
}
