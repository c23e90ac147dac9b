import type { FuzzboxStore } from '../store/store.js';
import type { Autopilot } from '../core/autopilot.js';
import type { Replicator } from '../core/replicator.js';
import type { CompiledAgents } from '../core/compiled-agents.js';
import type { KnownAgents } from '../core/known-agents.js';

/** How far an optimization of `agentID` is: `done` of at most `total` candidate agents estimated. */
export interface OptimizeProgress {
  agentID: string;
  done: number;
  total: number;
}

/**
 * What GET /storage asks of the platform: `navigator.storage` in a page or worker (the adapters
 * pass it in; the core touches no browser global). `persisted()` exists in workers too; only
 * `persist()` is page-only (FuzzyClient's `requestPersistence()`).
 */
export interface StorageManagerLike {
  /** absent in Safari's workers before 17 */
  estimate?(): Promise<{ usage?: number; quota?: number }>;
  persisted?(): Promise<boolean>;
}

/** What lives as long as one service: nothing here is state a restart would lose. */
export interface ServiceState {
  store: FuzzboxStore;
  compiledAgents: CompiledAgents;
  /** agents' records as last read, for answering evaluations: checked again as their logs are stored */
  knownAgents: KnownAgents;
  signup: boolean;
  /** always starts and ends with `/` */
  basePath: string;
  /** API key → userID; accounts are never deleted, so an entry never goes stale */
  keyCache: Map<string, string>;
  /** uniform numbers in [0, 1) for exploration noise */
  random: () => number;
  onOptimizeProgress: ((progress: OptimizeProgress) => void) | undefined;
  /** learning on autopilot: its state per agent and its background work */
  autopilot: Autopilot;
  /** sync with a server (docs/SYNC.md), when the service was given `sync` */
  replicator: Replicator | undefined;
  /** the platform's storage manager for GET /storage; on a server, the database's */
  storageManager: StorageManagerLike | undefined;
  /** GET /ready asks it: why the service cannot take requests now, or undefined when it can */
  unreadiness: (() => Promise<string | undefined>) | undefined;
  /** set when close() begins */
  closing: boolean;
}

export interface Context {
  request: Request;
  url: URL;
  /** the `:name` segments of the route, decoded */
  params: Record<string, string>;
  /** the caller's account; empty on public routes */
  userID: string;
  /** the parsed JSON body on routes that read one, else undefined */
  body: unknown;
  service: ServiceState;
}

/** The route parameter `name`; the router guarantees it exists for the matched route. */
export function param(context: Context, name: string): string {
  return context.params[name] ?? '';
}
