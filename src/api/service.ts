import { ApiError, errorStatus } from '../schema/errors.js';
import type { Account } from '../schema/account.js';
import type { FuzzboxStore } from '../store/store.js';
import { authenticate } from './auth.js';
import { normaliseBasePath } from './base-path.js';
import { readJsonBody } from './body.js';
import { Autopilot } from '../core/autopilot.js';
import { Traffic } from '../core/traffic.js';
import { Replicator, type FetchLike, type SyncEvent, type SyncOptions } from '../core/replicator.js';
import type { SyncStatus } from '../schema/sync.js';
import { isSyncReplica, type SyncReplica } from '../store/sync-replica.js';
import { CompiledAgents } from '../core/compiled-agents.js';
import { KnownAgents } from '../core/known-agents.js';
import type { OptimizeProgress, ServiceState, StorageManagerLike } from './context.js';
import { errorResponse } from './http.js';
import { openAccount } from './resources/account.js';
import { createRouter, type Route } from './router.js';
import { routes } from './routes.js';
import { checkRetention, RetentionSweeper } from '../core/retention.js';
import type { RetentionPolicy } from '../schema/retention.js';

/** How the REST service is set up over a store it is given (it imports no store itself). */
export interface ServiceOptions {
  /** Where everything is kept: IndexedDB through Dexie in a browser, PostgreSQL or PGlite on a server. */
  store: FuzzboxStore;
  /** Whether `POST /account` creates accounts; default true. */
  signup?: boolean;
  /** Where the interface lives, e.g. `/api/`; default `/` (so `/agent`, `/evaluation`, …). */
  basePath?: string;
  /** Uniform numbers in [0, 1) for `?explore=` noise; default Math.random. Pass a seeded one in tests. */
  random?: () => number;
  /** Called while `POST /agent/:id/optimize` runs, e.g. to drive a progress bar. */
  onOptimizeProgress?: (progress: OptimizeProgress) => void;
  /**
   * Where `GET /storage` reads usage, quota and persistence: pass `navigator.storage` (the worker
   * adapter does); without it those fields are `null`.
   */
  storageManager?: StorageManagerLike;
  /**
   * Asked by `GET /ready` (for load balancers and process managers): why the service cannot take
   * requests now, e.g. "shutting down", or undefined when it can. Default: ready while open.
   */
  unreadiness?: () => Promise<string | undefined>;
  /**
   * Which evaluation logs to keep, e.g. `{days: 90, perAgent: 10_000, keepWithFeedback: true}`;
   * default all. Applied in the background at most once an hour (docs/REST.md, "Retention").
   */
  retention?: RetentionPolicy;
  /**
   * Keep this service's data in step with a fuzzbox server (docs/SYNC.md): `{url, apiKey}`, and
   * optionally `fetch`, `interval`, `batchSize`. Needs the IndexedDB store.
   */
  sync?: SyncOptions;
  /** Called after each sync round with the status and the versions that arrived, e.g. to show a badge. */
  onSync?: (event: SyncEvent) => void;
}

export interface FuzzyService {
  /** Answers one request of the REST interface; never rejects. */
  handle(request: Request): Promise<Response>;
  /**
   * Creates an account without going through `POST /account`, for apps that switch sign-up off
   * and hand out keys themselves. The key is returned once; only its SHA-256 is stored.
   */
  createAccount(name?: string): Promise<Account>;
  /**
   * Applies the `retention` policy now rather than in the background (or joins the sweep under
   * way); resolves to how many evaluation logs were dropped, 0 without a policy.
   */
  applyRetention(): Promise<number>;
  /** Resolves once autopilot's background work (docs/LEARNING.md) has nothing queued or running. */
  idle(): Promise<void>;
  /** Sync with the server given as `sync`; undefined without it. */
  sync: SyncControl | undefined;
  /** Closes the store; requests after this fail with a 500. */
  close(): Promise<void>;
}

/** What an app can do with a service's sync. */
export interface SyncControl {
  /** Runs a round now (after the one under way) and resolves to the status after it; call it when the app goes online. */
  now(): Promise<SyncStatus>;
  /** When it last synced, how many records wait, the last error. */
  status(): Promise<SyncStatus>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function createFuzzyService(options: ServiceOptions): FuzzyService {
  const { store } = options;
  // autopilot's background work yields to the requests in flight
  const traffic = new Traffic();
  const replicator =
    options.sync &&
    new Replicator(replicaOf(store), { ...options.sync, fetch: options.sync.fetch ?? platformFetch() }, options.onSync, (agentIDs) => {
      for (const agentID of agentIDs) service.autopilot.forget(agentID);
    });
  const service: ServiceState = {
    store,
    compiledAgents: new CompiledAgents(),
    knownAgents: new KnownAgents(store),
    signup: options.signup ?? true,
    basePath: normaliseBasePath(options.basePath ?? '/'),
    keyCache: new Map(),
    random: options.random ?? Math.random,
    onOptimizeProgress: options.onOptimizeProgress,
    storageManager: options.storageManager,
    unreadiness: options.unreadiness,
    closing: false,
    autopilot: new Autopilot(store, async (userID) => replicator !== undefined && (await replicator.userID()) === userID, traffic.quiet),
    replicator,
  };
  const match = createRouter(routes);
  const retention = options.retention && new RetentionSweeper(store, checkRetention(options.retention));

  async function dispatch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const path = url.pathname.startsWith(service.basePath) ? url.pathname.slice(service.basePath.length - 1) : undefined;
    const found = path === undefined ? ({ kind: 'no-route' } as const) : match(method, path);
    if (found.kind === 'no-route') {
      throw new ApiError('NotFound', `no endpoint at ${url.pathname}; GET ${service.basePath}openapi.json lists every endpoint`);
    }
    if (found.kind === 'method-not-allowed') {
      const allow = found.allow.join(', ');
      throw new ApiError('MethodNotAllowed', `${method} is not allowed on ${url.pathname}; use ${allow}`, {
        headers: { Allow: allow },
      });
    }
    const route: Route = found.route;
    // the synced account exists locally from the first request on, online or not
    if (replicator && route.access !== 'public') await replicator.userID();
    const userID = route.access === 'public' ? '' : await authenticate(service, request, url);
    try {
      // GET and DELETE ignore any body: one known client sends `[]` with them.
      const readsJson = BODY_METHODS.has(method) && route.body !== 'stream';
      const body = readsJson ? await readJsonBody(request, route.body === 'optional', route.modelFiles) : undefined;
      const response = await route.handler({ request, url, params: found.params, userID, body, service });
      // what the synced account wrote goes out soon; other local accounts are not synced
      if (replicator && response.ok && WRITE_METHODS.has(method) && userID === (await replicator.userID())) replicator.afterWrite();
      return response;
    } catch (error) {
      const agentID = route.path.startsWith('/agent/:id') ? found.params.id : undefined;
      throw agentID === undefined ? error : await refusalOnAgent(error, userID, agentID);
    }
  }

  /**
   * After DELETE any request on the agent id answers 410 to its owner (404 to anyone
   * else, as for an id that never existed), a request with a bad body or query too. Bodies and
   * queries are checked before the agent is read, so only a refused request pays for the lookup.
   */
  async function refusalOnAgent(error: unknown, userID: string, agentID: string): Promise<unknown> {
    if (!(error instanceof ApiError) || error.status !== errorStatus.ValidationError) return error;
    try {
      await store.readAgent(userID, agentID);
    } catch (lookup) {
      if (lookup instanceof ApiError && (lookup.name === 'Gone' || lookup.name === 'NotFound')) return lookup;
    }
    return error;
  }

  return {
    async handle(request) {
      retention?.poke();
      replicator?.afterRequest();
      try {
        return await traffic.during(() => dispatch(request));
      } catch (error) {
        // the client went away while its body was read: nobody gets this answer, and it is no bug
        if (request.signal.aborted && !(error instanceof ApiError))
          return errorResponse(new ApiError('InvalidRequest', 'the client closed the request before it was answered'));
        return errorResponse(error);
      }
    },
    sync: replicator && { now: () => replicator.syncNow(), status: () => replicator.status() },
    createAccount: (name) => openAccount(store, name ?? null),
    applyRetention: async () => (retention ? retention.sweep() : 0),
    idle: () => service.autopilot.idle(),
    async close() {
      service.closing = true;
      await replicator?.close();
      await retention?.idle();
      await service.autopilot.idle();
      await store.close();
    },
  };
}

/** A replica keeps its checkpoints beside its records: only the IndexedDB store does. */
function replicaOf(store: FuzzboxStore): FuzzboxStore & SyncReplica {
  if (!isSyncReplica(store)) throw new TypeError('sync needs the IndexedDB store: leave `store` out (a server is what replicas sync with)');
  return store;
}

/** The platform's fetch, the default way to reach a sync server (the service itself never calls it otherwise). */
function platformFetch(): FetchLike {
  return (input, init) => globalThis.fetch(input, init);
}
