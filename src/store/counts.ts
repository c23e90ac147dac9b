import { Dexie } from 'dexie';
import type { RecordCounts } from '../schema/storage.js';
import type { FuzzboxDatabase } from './database.js';

/**
 * The caller's records of each kind, counted on per-account indexes in one read transaction
 * without reading a record (logs through their `[userID, reqID]` entries).
 */
export function countRecords(db: FuzzboxDatabase, userID: string): Promise<RecordCounts> {
  const tables = [db.agents, db.versions, db.retiredVersions, db.deletedAgents, db.logGroups, db.feedback];
  return db.transaction('r', tables, async () => {
    const [agents, versions, retiredVersions, deletions, evaluations, feedback] = await Promise.all([
      db.agents.where('userID').equals(userID).count(),
      db.versions.where('userID').equals(userID).count(),
      db.retiredVersions.where('userID').equals(userID).count(),
      db.deletedAgents.where('userID').equals(userID).count(),
      db.logGroups.where('keys').between([userID, Dexie.minKey], [userID, Dexie.maxKey]).count(),
      db.feedback.where('[userID+seq]').between([userID, Dexie.minKey], [userID, Dexie.maxKey]).count(),
    ]);
    return { agents, versions, retiredVersions, deletions, evaluations, feedback };
  });
}
