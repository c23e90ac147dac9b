import { Dexie, type DBCore, type Middleware } from 'dexie';
import { ApiError, docsURL } from '../../schema/errors.js';
import type { DatabaseOptions, FuzzboxDatabase } from './database.js';

function findCause(error: unknown, name: string, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const candidate = error as { name?: unknown; inner?: unknown; cause?: unknown; failures?: unknown };
  if (candidate.name === name) return true;
  const failures = Array.isArray(candidate.failures) ? candidate.failures : [];
  return [candidate.inner, candidate.cause, ...failures].some((inner) => findCause(inner, name, depth + 1));
}

/** Whether `error` (or what Dexie wrapped in it) is IndexedDB's full disk: the transaction was aborted. */
export function isQuotaExceeded(error: unknown): boolean {
  return findCause(error, 'QuotaExceededError');
}

/**
 * `error` in the error vocabulary when it is a full disk (IndexedDB aborted the transaction, so
 * nothing is half-written): what the store raises, worded for a browser.
 */
export function asStorageFull(error: unknown): unknown {
  if (!isQuotaExceeded(error)) return error;
  return new ApiError(
    'QuotaExceeded',
    'the storage quota for this site is full, so nothing was written. Free space, then retry: erase evaluation logs you no longer need ' +
      '(GET /agent/:id/evaluation lists them, DELETE /evaluation/:id erases one with its feedback; a log alone in its record (evaluated while no other request on its agent was being stored) frees ' +
      'its space even on a full disk) or delete agents (DELETE /agent/:id works on a full disk); a retention policy keeps logs from filling it again. ' +
      'The browser counts erased space once it compacts its storage: at once for recently written logs (the service asks it to on a full disk), ' +
      `for older ones later, on its own schedule (${docsURL('REST.md#a-full-disk')})`,
  );
}

/**
 * Makes Chromium write out the log of its IndexedDB store, so that what was erased stops counting
 * against the quota: an origin's databases are one LevelDB, whose latest writes (a few MB) sit in
 * a log file until it is written out as a table, and an erasure only adds to that log; records
 * put and erased within it vanish once it is written out. Chromium compacts when a database is
 * deleted, writing the log out first; so this creates a scratch database of the origin and
 * deletes it (docs/REST.md, "A full disk"). Best effort: any failure is ignored.
 */
export async function flushStorageLog(name: string, options: DatabaseOptions): Promise<void> {
  const scratch = new Dexie(`${name}-flush`, {
    ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
    ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
  });
  scratch.version(1).stores({});
  try {
    await scratch.open();
    await scratch.delete();
  } catch {
    scratch.close();
  }
}

/**
 * Whether `transaction` is Firefox's answer to a full disk: the first read-write transaction a
 * connection starts after one was refused for the quota comes in its own `cleanup` mode, which
 * only deletes (an add or put throws InvalidStateError) and reclaims free space as it commits.
 */
export const isFullDiskCleanup = (transaction: IDBTransaction) => (transaction.mode as string) === 'cleanup';

/** The error a write refused in Firefox's cleanup transaction stands for. */
export const cleanupRefusal = () => new DOMException('the previous write exceeded the storage quota; this transaction may only delete', 'QuotaExceededError');

/**
 * Dexie's adds and puts in Firefox's cleanup transaction (see isFullDiskCleanup) fail as the full
 * disk they stand for, as the evaluation writer's do, where Firefox throws InvalidStateError, which
 * no caller could tell from a bug (a 500): the store then retries once or answers 507, and an
 * erasure carries on with deletes alone, which the cleanup transaction allows.
 */
export const refuseWritesInCleanup: Middleware<DBCore> = {
  stack: 'dbcore',
  name: 'refuseWritesInCleanup',
  create: (down) => ({
    ...down,
    table(name) {
      const table = down.table(name);
      return {
        ...table,
        mutate(request) {
          const writes = request.type === 'add' || request.type === 'put';
          if (writes && isFullDiskCleanup(request.trans as unknown as IDBTransaction)) return Promise.reject(cleanupRefusal());
          return table.mutate(request);
        },
      };
    },
  }),
};

/**
 * Has Firefox's cleanup transaction (see isFullDiskCleanup), if one is due, commit with nothing in
 * it, reclaiming space, so that the next write gets a plain read-write transaction again; elsewhere
 * an empty transaction that commits. Best effort: any failure is ignored.
 */
export async function settleFullDiskCleanup(db: FuzzboxDatabase): Promise<void> {
  if (!db.isOpen()) return;
  try {
    const transaction = db.backendDB().transaction('tallies', 'readwrite');
    await new Promise((settled) => {
      transaction.oncomplete = transaction.onabort = settled;
    });
  } catch {
    // the connection is closing: nothing to settle
  }
}
