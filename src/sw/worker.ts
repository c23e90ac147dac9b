/// <reference lib="webworker" />
// The prebuilt classic-script worker, dist/fuzzbox-sw.js. An app serves it from its root and
// configures it through the query of the URL it registers:
//   /fuzzbox-sw.js?basePath=/api/&dbName=mine&signup=off&keepDays=90&keepPerAgent=10000&keepWithFeedback=on&logDurability=strict
// Its offline files are Workbox's injection point, `self.__WB_MANIFEST`: `fuzzbox/vite` (or
// workbox-build's injectManifest, for other build tools) writes the app's file list there.
import type { RetentionPolicy } from '../schema/retention.js';
import { installFuzzyService, type OfflineFile } from './index.js';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST?: OfflineFile[] };

const query = new URL(self.location.href).searchParams;
const basePath = query.get('basePath');
const dbName = query.get('dbName');
const offlineFiles = self.__WB_MANIFEST;

/** `keepDays`, `keepPerAgent`, `keepWithFeedback=on`: the retention policy, none without the first two. */
function retention(): RetentionPolicy | undefined {
  const days = query.get('keepDays');
  const perAgent = query.get('keepPerAgent');
  if (days === null && perAgent === null) return undefined;
  return {
    ...(days === null ? {} : { days: Number(days) }),
    ...(perAgent === null ? {} : { perAgent: Number(perAgent) }),
    keepWithFeedback: query.get('keepWithFeedback') === 'on',
  };
}
const keep = retention();

installFuzzyService(self, {
  ...(basePath === null ? {} : { basePath }),
  ...(dbName === null ? {} : { dbName }),
  ...(offlineFiles === undefined ? {} : { offlineFiles }),
  signup: query.get('signup') !== 'off',
  ...(keep === undefined ? {} : { retention: keep }),
  ...(query.get('logDurability') === 'strict' ? { logDurability: 'strict' } : {}),
});
