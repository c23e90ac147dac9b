/// <reference lib="webworker" />
// The app's own files, kept for an offline start. Network first, so an online user always gets
// the newest files, and every successful answer refreshes the offline copy (a redeploy under the
// same names included). Only the listed files and the app's pages (navigations) are answered:
// everything else is left to the network or to the app's own fetch listeners.

const cachePrefix = 'fuzzbox-offline-';

export interface OfflineFiles {
  /** Fills a new cache; the one the active worker serves from stays untouched. */
  install(): Promise<void>;
  /** Drops the caches of earlier installs, once this worker's own is in use. */
  activate(): Promise<void>;
  /** Whether this request is one of the offline files' to answer. */
  owns(request: Request): boolean;
  /** Answers from the network, refreshing the offline copy, or from the cache when the network fails. */
  answer(event: FetchEvent): void;
}

export function offlineFiles(worker: ServiceWorkerGlobalScope, files: readonly string[] | string): OfflineFiles {
  // The listed URLs are the keys of the offline caches: read again when the worker restarts.
  let listed = new Set<string>();
  let loaded = readListed();

  async function readListed(): Promise<void> {
    const urls = new Set<string>();
    for (const cache of await offlineCaches(worker)) {
      for (const request of await cache.keys()) urls.add(request.url);
    }
    listed = urls;
  }

  async function fromNetwork(event: FetchEvent): Promise<Response> {
    const { request } = event;
    const navigation = request.mode === 'navigate';
    try {
      const response = await worker.fetch(request);
      if (response.ok && response.type === 'basic' && !response.redirected) event.waitUntil(refresh(worker, request, response.clone()));
      return response;
    } catch (networkFailure) {
      const cached = await worker.caches.match(request, { ignoreSearch: navigation });
      if (cached) return cached;
      throw networkFailure;
    } finally {
      // The page's own files are asked for only after its navigation is answered: by then a
      // restarted worker knows which files are listed.
      if (navigation) await loaded;
    }
  }

  return {
    async install() {
      const list = typeof files === 'string' ? await fetchFileList(worker, files) : files;
      const urls = [...new Set(list.map((file) => new URL(file, worker.location.href).href))];
      // Caches are kept in creation order, so the newest complete one belongs to the newest install.
      const name = cachePrefix + worker.crypto.randomUUID();
      const cache = await worker.caches.open(name);
      try {
        await cache.addAll(urls.map((url) => new Request(url, { cache: 'reload' })));
      } catch (error) {
        await worker.caches.delete(name);
        throw error;
      }
      loaded = readListed();
      await loaded;
    },
    async activate() {
      const names = (await worker.caches.keys()).filter((name) => name.startsWith(cachePrefix));
      await Promise.all(names.slice(0, -1).map((name) => worker.caches.delete(name)));
      loaded = readListed();
      await loaded;
    },
    owns(request) {
      return request.method === 'GET' && (request.mode === 'navigate' || listed.has(request.url));
    },
    answer(event) {
      event.respondWith(fromNetwork(event));
    },
  };
}

async function offlineCaches(worker: ServiceWorkerGlobalScope): Promise<Cache[]> {
  const names = (await worker.caches.keys()).filter((name) => name.startsWith(cachePrefix));
  return Promise.all(names.map((name) => worker.caches.open(name)));
}

/** Puts the fresh answer into every offline cache that holds this file. */
async function refresh(worker: ServiceWorkerGlobalScope, request: Request, response: Response): Promise<void> {
  const holding = [];
  for (const cache of await offlineCaches(worker)) if (await cache.match(request)) holding.push(cache);
  await Promise.all(holding.map((cache, index) => cache.put(request.url, index === holding.length - 1 ? response : response.clone())));
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
