// An app's own service worker (lib WebWorker), type-checked like uses-page.ts.
import { installFuzzyService, type FuzzyWorkerOptions } from 'fuzzbox/sw';

declare const self: ServiceWorkerGlobalScope;

const files = ['/', '/app.js', '/app.css'] as const;
const options: FuzzyWorkerOptions = { basePath: '/api/', offlineFiles: files };
installFuzzyService(self, options);
// @ts-expect-error it takes the worker's global scope
installFuzzyService({}, options);
// @ts-expect-error basePath is a string
installFuzzyService(self, { basePath: 1 });
