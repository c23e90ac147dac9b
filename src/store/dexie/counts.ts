import { Dexie } from 'dexie';
import type { RecordCounts } from '../../schema/storage.js';
import type { FuzzboxDatabase } from './database.js';
import { readTally } from './tallies.js';

/**
 * The caller's records of each kind in one read transaction: agents, versions and tombstones
 * (hundreds) counted on per-account indexes, logs and feedback (millions) from the account's tally.
 */
export async function countRecords(db: FuzzboxDatabase, userID: string): Promise<RecordCounts> {
  const tables = [db.agents, db.versions, db.retiredVersions, db.deletedAgents, db.tallies];
  const counts = await db.transaction('r', tables, async () => {
    const live = await db.agents.where('userID').equals(userID).primaryKeys();
    const [kept, created, retired, tombstones, tally, ...liveVersions] = await Promise.all([
      db.versions.where('userID').equals(userID).count(),
      db.versions.where('[userID+seq]').equals([userID, 0]).count(),
      db.retiredVersions.where('userID').equals(userID).count(),
      db.deletedAgents.where('userID').equals(userID).count(),
      db.tallies.get(userID),
      ...live.map((id) => db.versions.where('[versionOf+seq]').between([id, Dexie.minKey], [id, Dexie.maxKey]).count()),
    ]);
    // A delete leaves the agent's versions in `versions` (before schema version 5 it moved them to
    // retiredVersions and left a tombstone): what is not a live agent's there is a deleted one's.
    const versions = liveVersions.reduce((sum, count) => sum + count, 0);
    return {
      agents: live.length,
      versions,
      retiredVersions: retired + kept - versions,
      deletions: tombstones + created - live.length,
      evaluations: tally?.evaluations,
      feedback: tally?.feedback,
    };
  });
  if (counts.evaluations !== undefined && counts.feedback !== undefined) return { ...counts, evaluations: counts.evaluations, feedback: counts.feedback };
  // dropped by a delete on a full disk: recounted, in a transaction of its own
  return { ...counts, ...(await readTally(db, userID)) };
}
