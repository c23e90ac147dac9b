import type { BackupRecord } from '../schema/backup.js';
import type { AutopilotLine } from '../schema/sync.js';
import type { ImportRecord } from './backup-records.js';
import type { PushCursor, SyncStateRecord } from './records.js';
import type { FuzzboxStore } from './store.js';

/** What a merge of pulled records stored: counts, the versions new here, the agents whose autopilot state changed. */
export interface Merged {
  imported: number;
  unchanged: number;
  newVersions: Array<{ id: string; agentID: string }>;
  autopilot: string[];
}

export interface Pushable {
  /** in an order where each refers only to records before it or already on the server */
  records: BackupRecord[];
  /** the cursor once the server has stored `records` */
  next: PushCursor;
  /** whether more is waiting beyond `limit` */
  more: boolean;
}

/** A push cursor before anything was sent: everything the replica holds waits. */
export const pushFromStart = (): PushCursor => ({ groups: 0, feedback: 0, agents: {} });

/** What a replicator needs of the store it keeps in step with a server: IndexedDB's, through Dexie (a server is what replicas sync with). */
export interface SyncReplica {
  readSyncState(userID: string, url: string): Promise<SyncStateRecord>;
  updateSyncState(userID: string, url: string, change: (state: SyncStateRecord) => Partial<SyncStateRecord>): Promise<SyncStateRecord>;
  mergePulled(
    userID: string,
    url: string,
    lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
    checkpoint: string | null | undefined,
    autopilot?: readonly AutopilotLine[],
  ): Promise<Merged>;
  readPushable(userID: string, cursor: PushCursor, limit: number): Promise<Pushable>;
  countPending(userID: string, cursor: PushCursor): Promise<number>;
}

/** Whether `store` keeps a replica's checkpoints beside its records (the IndexedDB store does). */
export function isSyncReplica(store: FuzzboxStore): store is FuzzboxStore & SyncReplica {
  const replica = store as Partial<SyncReplica>;
  return typeof replica.readSyncState === 'function' && typeof replica.mergePulled === 'function' && typeof replica.readPushable === 'function';
}
