export { createFuzzyService, type FuzzyService, type ServiceOptions, type SyncControl } from './service.js';
export type { FetchLike, SyncEvent, SyncOptions } from '../core/replicator.js';
export { routes } from './routes.js';
export type { Route, Handler } from './router.js';
export type { Context, OptimizeProgress, ServiceState, StorageManagerLike } from './context.js';
export { errorResponse, spelledHeaderName } from './http.js';
export { normaliseBasePath } from './base-path.js';
