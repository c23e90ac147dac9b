/// <reference lib="webworker" />
// The service-worker adapter: the browser's fetch events in, the shared request handler's
// responses out. Everything worth keeping lives in IndexedDB (through the handler) or Cache
// Storage, so a worker the browser stops and restarts at any time loses nothing.
import { createFuzzyService, routes } from '../api';
import { CLAIM, OPTIMIZE_PROGRESS, SKIP_WAITING } from './messages';

export { CLAIM, OPTIMIZE_PROGRESS, SKIP_WAITING };

export interface FuzzyWorkerOptions {
  /** Where the REST interface lives, e.g. `/api/`; default `/` (so `/agent`, `/evaluation`, …). */
  basePath?: string;
  /** IndexedDB database name; default `"fuzzbox"`. */
  dbName?: string;
  /** Whether `POST /account` creates accounts; default true. */
  signup?: boolean;
  /**
   * Same-origin files the app needs to start offline (its page, scripts, styles): a list of URLs,
   * or the URL of a JSON file holding that list. They are cached when the worker installs and
   * served from that cache whenever the network fails.
   */
  offlineFiles?: readonly string[] | string;
}

/** The first path segment (after basePath) of every endpoint: `agent`, `version`, … */
const serviceRoots = new Set(routes.map((route) => route.path.split('/')[1]));
const offlineCachePrefix = 'fuzzbox-offline-';

export function installFuzzyService(worker: ServiceWorkerGlobalScope, options: FuzzyWorkerOptions = {}): void {
  const basePath = withSlashes(options.basePath ?? '/');
  let service: ReturnType<typeof createFuzzyService> | undefined;
  let progress: BroadcastChannel | undefined;
  // Created on first use: a restarted worker simply opens the same database again.
  const handler = () =>
    (service ??= createFuzzyService({
      indexedDB: worker.indexedDB,
      // A worker global the DOM typings leave off ServiceWorkerGlobalScope.
      IDBKeyRange: (worker as unknown as { IDBKeyRange: typeof IDBKeyRange }).IDBKeyRange,
      basePath,
      // to every page of the origin, so any of them can show a progress bar
      onOptimizeProgress: (report) => (progress ??= new BroadcastChannel(OPTIMIZE_PROGRESS)).postMessage(report),
      ...(options.dbName === undefined ? {} : { dbName: options.dbName }),
      ...(options.signup === undefined ? {} : { signup: options.signup }),
    }));

  const isServiceRequest = (url: URL) => {
    if (url.origin !== worker.location.origin || !url.pathname.startsWith(basePath)) return false;
    return serviceRoots.has(url.pathname.slice(basePath.length).split('/')[0]!);
  };

  worker.addEventListener('install', (event) => {
    if (options.offlineFiles !== undefined) event.waitUntil(cacheOfflineFiles(worker, options.offlineFiles));
  });

  worker.addEventListener('activate', (event) => {
    event.waitUntil(Promise.all([worker.clients.claim(), dropOutdatedCaches(worker)]));
  });

  worker.addEventListener('message', (event) => {
    const type = (event.data as { type?: unknown } | null)?.type;
    if (type === SKIP_WAITING) event.waitUntil(worker.skipWaiting());
    if (type === CLAIM) event.waitUntil(worker.clients.claim());
  });

  worker.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    // An API is never navigated to: a page at a service path (an app's own /account) is the app's.
    if (isServiceRequest(url) && event.request.mode !== 'navigate') {
      event.respondWith(handler().handle(event.request).catch(internalError));
    } else if (options.offlineFiles !== undefined && event.request.method === 'GET' && url.origin === worker.location.origin) {
      event.respondWith(networkThenCache(worker, event.request));
    }
  });
}

function withSlashes(path: string): string {
  return `${path.startsWith('/') ? '' : '/'}${path}${path.endsWith('/') ? '' : '/'}`;
}

/** The handler answers every request itself; this only runs if it has a bug. */
function internalError(error: unknown): Response {
  const message = `fuzzbox worker: unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  return new Response(JSON.stringify({ status: 'error', message }), {
    status: 500,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
}

/**
 * One cache per distinct file list, named by the list's hash: an update with new files installs
 * beside the old cache, and the old one is dropped only once the new worker is active.
 */
async function cacheOfflineFiles(worker: ServiceWorkerGlobalScope, files: readonly string[] | string): Promise<void> {
  const list = typeof files === 'string' ? await fetchFileList(worker, files) : files;
  const urls = [...new Set(list.map((file) => new URL(file, worker.location.href).href))].sort();
  const digest = await worker.crypto.subtle.digest('SHA-256', new TextEncoder().encode(urls.join('\n')));
  const name = offlineCachePrefix + [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('');
  await worker.caches.delete(name);
  const cache = await worker.caches.open(name);
  await cache.addAll(urls.map((url) => new Request(url, { cache: 'reload' })));
}

async function fetchFileList(worker: ServiceWorkerGlobalScope, listURL: string): Promise<string[]> {
  const url = new URL(listURL, worker.location.href);
  const response = await worker.fetch(url, { cache: 'reload' });
  if (!response.ok) throw new Error(`fuzzbox worker: the offline file list ${url.href} answered ${response.status}`);
  const list: unknown = await response.json();
  if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string')) {
    throw new Error(`fuzzbox worker: ${url.href} must hold a JSON array of URLs`);
  }
  // Relative entries in the list are relative to the list itself.
  return list.map((entry: string) => new URL(entry, url).href);
}

/** Cache Storage keeps caches in creation order: the newest offline cache is the current one. */
async function dropOutdatedCaches(worker: ServiceWorkerGlobalScope): Promise<void> {
  const offline = (await worker.caches.keys()).filter((name) => name.startsWith(offlineCachePrefix));
  await Promise.all(offline.slice(0, -1).map((name) => worker.caches.delete(name)));
}

async function networkThenCache(worker: ServiceWorkerGlobalScope, request: Request): Promise<Response> {
  try {
    return await worker.fetch(request);
  } catch (networkFailure) {
    const cached = await worker.caches.match(request, { ignoreSearch: request.mode === 'navigate' });
    if (cached) return cached;
    throw networkFailure;
  }
}
