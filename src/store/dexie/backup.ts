import { Dexie } from 'dexie';
import type { BackupRecord } from '../../schema/backup.js';
import { laterThan } from '../../schema/dates.js';
import { agentLine, deletionLine, evaluationLine, feedbackLine, versionLine, type ImportRecord } from '../backup-records.js';
import { importLines as importBy, type ImportMode, type ImportTarget, type Stored } from '../import-rules.js';
import { feedbackOfGroup } from './feedback.js';
import { putAgent, versionsOf } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { idPrefix } from '../ids.js';
import { groupLogs, logsOf } from './log-groups.js';
import { applyTallies, count } from './tallies.js';
import type { EvaluationRecord, FeedbackRecord, LogGroupRecord } from '../records.js';

/** Records read per transaction while exporting: memory stays flat, and no read holds the database long. */
const EXPORT_PAGE = 256;
/** Log groups per export page: up to 64 logs each. */
const GROUP_PAGE = 16;

/** Pages of an account's records in one table's index order, `EXPORT_PAGE` per read transaction. */
async function* byOffset<T>(db: FuzzboxDatabase, read: (offset: number) => Promise<T[]>): AsyncGenerator<T> {
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const page = await db.transaction('r', db.tables, () => read(offset));
    yield* page;
    if (page.length < EXPORT_PAGE) return;
  }
}

/**
 * The caller's account as backup records, in the order an import needs (each refers only to
 * records before it), read a page per short transaction. Agents, versions and tombstones are
 * counted in the hundreds and paged by offset; logs and feedback, the bulk, are paged by key.
 */
export async function* exportRecords(db: FuzzboxDatabase, userID: string): AsyncGenerator<BackupRecord> {
  const agents = byOffset(db, (offset) => db.agents.where('userID').equals(userID).offset(offset).limit(EXPORT_PAGE).toArray());
  for await (const agent of agents) {
    for (let seq = 0; ; ) {
      const versions = await db.versions.where('[versionOf+seq]').between([agent.id, seq], [agent.id, Dexie.maxKey]).limit(EXPORT_PAGE).toArray();
      for (const version of versions) yield versionLine(version, false);
      if (versions.length < EXPORT_PAGE) break;
      seq = versions.at(-1)!.seq + 1;
    }
    yield agentLine(agent);
  }
  const retired = byOffset(db, (offset) => db.retiredVersions.where('userID').equals(userID).offset(offset).limit(EXPORT_PAGE).toArray());
  for await (const version of retired) yield versionLine(version, true);
  const tombstones = byOffset(db, (offset) => db.deletedAgents.where('userID').equals(userID).offset(offset).limit(EXPORT_PAGE).toArray());
  for await (const tombstone of tombstones) yield deletionLine(tombstone);
  // Agents deleted on a full disk (deleteAgent) left their versions in place and no tombstone:
  // they go out as retired versions and a deletion, timed at their latest version (it came no later).
  const kept = byOffset(db, (offset) => db.versions.where('userID').equals(userID).offset(offset).limit(EXPORT_PAGE).toArray());
  const deletedAt = new Map<string, string>();
  for await (const version of kept) {
    if (await db.agents.get(version.versionOf)) continue;
    yield versionLine(version, true);
    const latest = deletedAt.get(version.versionOf);
    if (latest === undefined || laterThan(version.createdAt, latest)) deletedAt.set(version.versionOf, version.createdAt);
  }
  for (const [id, at] of deletedAt) yield deletionLine({ id, userID, deletedAt: at });

  // every group of the caller's, by agent then in the order stored
  for (let after: [string, string, number] | undefined; ; ) {
    const lower = after ?? [userID, Dexie.minKey, Dexie.minKey];
    const groups: LogGroupRecord[] = await db.logGroups
      .where('[userID+agentID+seq]')
      // [userID, maxKey] sorts after every [userID, agentID, seq]; one key never holds the one
      // Dexie.maxKey object twice (IndexedDB refuses a key that repeats an object: DataError)
      .between(lower, [userID, Dexie.maxKey], after === undefined, true)
      .limit(GROUP_PAGE)
      .toArray();
    for (const group of groups) yield* logsOf(group).map(evaluationLine);
    if (groups.length < GROUP_PAGE) break;
    const last = groups.at(-1)!;
    after = [userID, last.agentID, last.seq!];
  }
  for (let seq = 0; ; ) {
    const page = await db.feedback.where('[userID+seq]').between([userID, seq], [userID, Dexie.maxKey]).limit(EXPORT_PAGE).toArray();
    yield* page.map(feedbackLine);
    if (page.length < EXPORT_PAGE) break;
    seq = page.at(-1)!.seq! + 1;
  }
}

/** What an import or a merge writes: its transaction's scope. */
export const importTables = (db: FuzzboxDatabase) => [
  db.agents,
  db.heads,
  db.versions,
  db.retiredVersions,
  db.deletedAgents,
  db.logGroups,
  db.feedback,
  db.tallies,
];

export function importRecords(db: FuzzboxDatabase, userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>): Promise<Stored> {
  // an async scope: Dexie follows native awaits (in importLines too) only from one
  return db.transaction('rw', importTables(db), async () => importLines(db, userID, lines, 'restore'));
}

/**
 * Stores `lines` by `mode`'s rules (src/store/import-rules.ts); call inside a read-write
 * transaction over `importTables`. Logs and feedback merged from another replica are marked
 * `merged`: sync never sends them back.
 */
export function importLines(
  db: FuzzboxDatabase,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  mode: ImportMode,
): Promise<Stored> {
  return importBy(importTarget(db, userID, mode === 'merge'), userID, lines, mode);
}

/** The import's reads and writes in IndexedDB. */
function importTarget(db: FuzzboxDatabase, userID: string, merging: boolean): ImportTarget {
  // feedback names the group its log is stored in (schema version 11)
  const groupOfLog = new Map<string, number>();
  return {
    readAgent: async (id) => (await db.agents.get(id)) ?? (await db.deletedAgents.get(id)),
    async readAgents(ids) {
      const [live, deleted] = [await db.agents.bulkGet([...ids]), await db.deletedAgents.bulkGet([...ids])];
      const agents = ids.flatMap((_, i) => ((live[i] ?? deleted[i]) ? [live[i] ?? deleted[i]!] : []));
      const versionOwners = new Map<string, string>();
      for (const [i, id] of ids.entries()) {
        if (live[i] || deleted[i]) continue;
        const owner = (await versionsOf(db, id).first())?.userID;
        if (owner !== undefined) versionOwners.set(id, owner);
      }
      return { agents, versionOwners };
    },
    async readVersion(id) {
      const live = await db.versions.get(id);
      if (live) return { version: live, retired: false };
      const retired = await db.retiredVersions.get(id);
      return retired && { version: retired, retired: true };
    },
    // an agent deleted on a full disk (deleteAgent) left its versions and no tombstone
    versionOwner: async (agentID) => (await versionsOf(db, agentID).first())?.userID,
    versionFrom: (agentID, seq) => db.versions.where('[versionOf+seq]').between([agentID, seq], [agentID, Dexie.maxKey]).first(),
    // retired versions are kept apart, unnumbered among their agent's
    numberTaken: async (agentID, seq, retired) => !retired && (await db.versions.where('[versionOf+seq]').equals([agentID, seq]).count()) > 0,
    numberHere: async (agentID, seq, retired) => (retired ? seq : ((await versionsOf(db, agentID).last())?.seq ?? -1) + 1),
    async readStored(reqIDs, feedbackIDs) {
      const logs: EvaluationRecord[] = [];
      if (reqIDs.length > 0) {
        const wanted = new Set(reqIDs);
        const prefixes = [...new Set(reqIDs.map(idPrefix))].map((prefix) => [userID, prefix]);
        for (const group of await db.logGroups.where('idPrefixes').anyOf(prefixes).toArray()) {
          for (const log of logsOf(group)) {
            if (!wanted.has(log.reqID)) continue;
            logs.push(log);
            groupOfLog.set(log.reqID, group.seq!);
          }
        }
      }
      const feedback =
        feedbackIDs.length > 0
          ? await db.feedback
              .where('id')
              .anyOf([...feedbackIDs])
              .toArray()
          : [];
      // an evaluation's feedback is among its group's: each group read once
      const feedbackHeld = new Map<string, number>();
      for (const seq of new Set(groupOfLog.values())) {
        for (const record of await feedbackOfGroup(db, userID, seq)) feedbackHeld.set(record.evaluationLog, (feedbackHeld.get(record.evaluationLog) ?? 0) + 1);
      }
      return { logs, feedback, feedbackHeld };
    },
    addVersion: async (version, retired) => void (await (retired ? db.retiredVersions : db.versions).add(version)),
    putAgent: (agent, added) => putAgent(db, agent, { add: added }),
    async removeAgent(id) {
      await db.agents.delete(id);
      await db.heads.delete(id);
    },
    async retireVersionsOf(agentID) {
      const versions = await versionsOf(db, agentID).toArray();
      await db.retiredVersions.bulkAdd(versions);
      await db.versions.bulkDelete(versions.map((version) => version.id));
    },
    putTombstone: async (tombstone, added) => void (await (added ? db.deletedAgents.add(tombstone) : db.deletedAgents.put(tombstone))),
    async addLogsAndFeedback(logs, feedback) {
      if (logs.length > 0) {
        const groups = groupLogs(logs);
        const seqs = await db.logGroups.bulkAdd(merging ? groups.map((group) => ({ ...group, merged: true as const })) : groups, { allKeys: true });
        groups.forEach((group, i) => group.keys.forEach(([, reqID]) => groupOfLog.set(reqID, seqs[i]!)));
      }
      if (feedback.length > 0) {
        await db.feedback.bulkAdd(
          feedback.map(
            (record): FeedbackRecord => ({ ...record, ...(merging ? { merged: true as const } : {}), logGroup: groupOfLog.get(record.evaluationLog)! }),
          ),
        );
      }
      await applyTallies(db, count(new Map(), userID, logs.length, feedback.length));
    },
  };
}
