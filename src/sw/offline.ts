/// <reference lib="webworker" />
// The app's own files, kept for an offline start by Workbox's precaching: a revisioned list
// (normally written into the worker by `fuzzbox/vite` at build time) is fetched into the cache
// when the worker installs, served from there, and the entries no longer listed are dropped when
// a newer worker activates. A redeploy changes the list, so the worker's bytes, so the browser
// installs the new worker beside the running one (registerFuzzyWorker's `onUpdate`).
import { PrecacheController, PrecacheRoute, type PrecacheEntry } from 'workbox-precaching';

/** A file to keep: its URL (relative to the worker), with a revision unless the name itself changes with the content. */
export type OfflineFile = string | { url: string; revision: string | null; integrity?: string };

export interface OfflineFiles {
  /** Fetches every listed file the cache does not hold at its revision; fails if any cannot be fetched. */
  install(event: ExtendableEvent): Promise<unknown>;
  /** Drops what earlier workers cached and this one no longer lists, and the caches of fuzzbox before Workbox. */
  activate(event: ExtendableEvent): Promise<unknown>;
  /** Answers the request from the cache if it is a listed file or page; leaves any other alone. */
  answer(event: FetchEvent): void;
}

const CACHE_NAME = 'fuzzbox-offline';

export function offlineFiles(worker: ServiceWorkerGlobalScope, files: readonly OfflineFile[]): OfflineFiles {
  const controller = new PrecacheController({ cacheName: CACHE_NAME });
  controller.addToCacheList(files as PrecacheEntry[]);
  // A page is the same page whatever its query (`/?agent=3`); a file's query may mean something.
  const pages = new PrecacheRoute(controller, { ignoreURLParametersMatching: [/./] });
  const assets = new PrecacheRoute(controller, {});

  return {
    install: (event) => controller.install(event).catch((error: unknown) => Promise.reject(new Error(installFailure(error)))),
    activate: async (event) => {
      await controller.activate(event);
      // fuzzbox before Workbox kept one cache per install, named `fuzzbox-offline-<n>`: nothing reads them now.
      const earlier = (await worker.caches.keys()).filter((name) => name.startsWith(`${CACHE_NAME}-`));
      await Promise.all(earlier.map((name) => worker.caches.delete(name)));
    },
    answer(event) {
      const { request } = event;
      if (request.method !== 'GET') return;
      const route = request.mode === 'navigate' ? pages : assets;
      const url = new URL(request.url);
      const params = route.match({ url, request, event, sameOrigin: url.origin === worker.location.origin });
      if (params) event.respondWith(route.handler.handle({ url, request, event, params }));
    },
  };
}

/** Workbox's production errors are codes with JSON details; say the same in words. */
function installFailure(error: unknown): string {
  const { name, details } = error as { name?: string; details?: { url?: string; status?: number } };
  if (name === 'bad-precaching-response' && details) {
    return `could not keep ${details.url} for an offline start: the server answered ${details.status}`;
  }
  return `could not keep the app's files for an offline start: ${error instanceof Error ? error.message : String(error)}`;
}
