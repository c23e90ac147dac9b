// A page's handle on the worker's sync (docs/SYNC.md): settings given to the worker (which keeps
// them), a round on demand, the status; each a message the worker answers on its own port.
import type { SyncEvent } from '../core/replicator.js';
import type { SyncStatus } from '../schema/sync.js';
import { SYNC_CONFIGURE, SYNC_EVENTS, SYNC_NOW, SYNC_STATUS, type SyncReply, type WorkerSyncSettings } from '../sw/messages.js';

export interface WorkerSync {
  /**
   * Gives the worker sync settings (`null` turns sync off): kept across restarts, in force from
   * the next request on. Resolves to the status once they are.
   */
  configure(settings: WorkerSyncSettings | null): Promise<SyncStatus | null>;
  /** Runs a round now; resolves to the status after it, null while sync is off. */
  now(): Promise<SyncStatus | null>;
  /** When the worker last synced, what waits, the last error; null while sync is off. */
  status(): Promise<SyncStatus | null>;
}

export class WorkerSyncError extends Error {
  override readonly name = 'WorkerSyncError';
}

/** Asks `worker()` (looked up at each call); a round takes as long as its data, so `now` has no time limit. */
export function workerSync(worker: () => ServiceWorker | null, timeout: number): WorkerSync {
  const ask = (message: { type: string; sync?: WorkerSyncSettings | null }, limit?: number) =>
    new Promise<SyncStatus | null>((resolve, reject) => {
      const target = worker();
      if (!target) return reject(new WorkerSyncError('fuzzbox: no active worker to ask about sync'));
      const channel = new MessageChannel();
      const timer =
        limit === undefined
          ? undefined
          : setTimeout(() => {
              channel.port1.close();
              reject(new WorkerSyncError(`fuzzbox: the worker did not answer about sync within ${limit} ms`));
            }, limit);
      channel.port1.onmessage = ({ data }: MessageEvent<SyncReply>) => {
        clearTimeout(timer);
        channel.port1.close();
        if ('error' in data) reject(new WorkerSyncError(`fuzzbox: sync: ${data.error}`));
        else resolve(data.status);
      };
      target.postMessage(message, [channel.port2]);
    });
  return {
    configure: (sync) => ask({ type: SYNC_CONFIGURE, sync }, timeout),
    now: () => ask({ type: SYNC_NOW }),
    status: () => ask({ type: SYNC_STATUS }, timeout),
  };
}

/** Calls `listener` with each round the worker reports on the BroadcastChannel `fuzzbox-sync`. */
export function onWorkerSync(listener: (event: SyncEvent) => void): void {
  new BroadcastChannel(SYNC_EVENTS).onmessage = ({ data }: MessageEvent<SyncEvent>) => listener(data);
}
