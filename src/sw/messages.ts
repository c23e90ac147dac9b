// The messages a page sends the worker: shared by both sides so the names cannot drift apart.
import type { SyncStatus } from '../schema/sync.js';

/** Lets a waiting (updated) worker become active now; workbox-window sends exactly this. */
export const SKIP_WAITING = 'SKIP_WAITING';
/** Asks the active worker to control the pages it does not yet control (after a hard reload). */
export const CLAIM = 'CLAIM';
/** The BroadcastChannel on which the worker reports `POST /agent/:id/optimize` progress: `{agentID, done, total}`. */
export const OPTIMIZE_PROGRESS = 'fuzzbox-optimize-progress';
/**
 * Gives the worker its sync settings: `{type, sync: {url, apiKey, interval?, batchSize?} | null}`
 * (null: sync off). The worker keeps them, so a restarted worker syncs without the page.
 */
export const SYNC_CONFIGURE = 'fuzzbox-sync-configure';
/** Asks the worker for a sync round now (the page went online). */
export const SYNC_NOW = 'fuzzbox-sync-now';
/** Asks the worker for its sync status. */
export const SYNC_STATUS = 'fuzzbox-sync-status';
/**
 * What the worker answers a sync message on the port sent with it, if any: the status once the
 * settings are in force or the round is done (null while sync is off), or why it failed.
 */
export type SyncReply = { status: SyncStatus | null } | { error: string };

/** What a page may set of the worker's sync: everything but `fetch`, which is the worker's. */
export interface WorkerSyncSettings {
  url: string;
  apiKey: string;
  interval?: number;
  batchSize?: number;
}

/** The BroadcastChannel on which the worker reports each sync round: a `SyncEvent` `{status, newVersions}` (docs/SYNC.md). */
export const SYNC_EVENTS = 'fuzzbox-sync';
/** The BroadcastChannel on which a worker whose install failed says why: an {@link InstallFailure}. */
export const INSTALL_FAILED = 'fuzzbox-install-failed';

export interface InstallFailure {
  /** The failed worker's URL, as registered. */
  scriptURL: string;
  reason: string;
}
