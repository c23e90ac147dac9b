/// <reference lib="webworker" />
// The prebuilt classic-script worker, dist/fuzzbox-sw.js. An app serves it from its root and
// configures it through the query of the URL it registers:
//   /fuzzbox-sw.js?basePath=/api/&dbName=mine&signup=off&offline=offline-files.json
import { installFuzzyService } from './index.js';

declare const self: ServiceWorkerGlobalScope;

const query = new URL(self.location.href).searchParams;
const offlineFiles = query.get('offline');
const basePath = query.get('basePath');
const dbName = query.get('dbName');

installFuzzyService(self, {
  ...(basePath === null ? {} : { basePath }),
  ...(dbName === null ? {} : { dbName }),
  ...(offlineFiles === null ? {} : { offlineFiles }),
  signup: query.get('signup') !== 'off',
});
