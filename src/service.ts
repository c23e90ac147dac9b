// The REST service with its browser default: IndexedDB through Dexie when no store is given.
// The `fuzzbox` and `fuzzbox/sw` entries compose it here; `fuzzbox/node` composes PostgreSQL
// (src/node) and never loads Dexie.
import { createFuzzyService as createServiceOver, type FuzzyService, type ServiceOptions } from './api/service.js';
import { DexieStore } from './store/dexie/dexie-store.js';
import type { DatabaseOptions } from './store/dexie/database.js';
import type { FuzzboxStore } from './store/store.js';

export interface FuzzyServiceOptions extends Omit<ServiceOptions, 'store'>, DatabaseOptions {
  /**
   * Where everything is kept; default IndexedDB through Dexie (`dbName`, `indexedDB`). On a
   * server, `fuzzbox/node` passes PostgreSQL or PGlite here.
   */
  store?: FuzzboxStore;
  /** IndexedDB database name when no `store` is given; default `"fuzzbox"`. */
  dbName?: string;
}

/** The REST service as one request handler, over `options.store` or else IndexedDB. */
export function createFuzzyService(options: FuzzyServiceOptions = {}): FuzzyService {
  return createServiceOver({ ...options, store: options.store ?? new DexieStore(options.dbName ?? 'fuzzbox', options) });
}
