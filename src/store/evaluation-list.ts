import { Dexie } from 'dexie';
import { ApiError } from '../schema/errors.js';
import { deletedOwners } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { findGroup, keepLogs, logsOf } from './evaluations.js';
import { isQuotaExceeded } from './quota.js';
import { applyTallies, count, dropTally } from './tallies.js';
import type { EvaluationRecord, FeedbackRecord, LogGroupRecord } from './records.js';
import type { EvaluationPage, EvaluationPosition, EvaluationQuery } from './store.js';

/**
 * Logs a listing examines at most per request: with a filter that skips most logs, a page can end
 * short of `limit`, with a cursor to go on from; no request holds the database for long.
 */
export const LIST_SCAN_LIMIT = 10_000;
/** Group records read per step of a listing, at first; later steps read what the page still needs. */
const GROUPS_PER_READ = 16;
/** At most this many group records per read: a page of singles takes few steps, one of batches decodes few logs. */
const MAX_GROUPS_PER_READ = 128;

/**
 * The caller's feedback on `reqID`, oldest first: one getAll on the index (a filter would make it
 * a cursor, a round trip per step). Evaluation ids are unique per account only (an import keeps a
 * backup's ids), so another account's may come too.
 */
async function feedbackOf(db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> {
  return (await db.feedback.where('evaluationLog').equals(reqID).toArray()).filter((feedback) => feedback.userID === userID);
}

/** The caller's agent, live or deleted (its logs stay listable by its owner, SPEC 2), or NotFound. */
async function requireOwnAgentID(db: FuzzboxDatabase, userID: string, agentID: string): Promise<void> {
  const agent = await db.agents.get(agentID);
  const owner = agent ? agent.userID : (await deletedOwners(db, [agentID])).get(agentID)?.userID;
  if (owner !== userID) throw new ApiError('NotFound', `no agent with id "${agentID}"`);
}

/** Where in `group` a listing that stopped after `position` goes on: the index of the next older log. */
function resumeIndex(group: LogGroupRecord, position: EvaluationPosition): number {
  // a log erased from the chunk since shifts the ones after it: find the last one listed by its id
  const found = group.keys.findIndex((key) => key[1] === position.reqID);
  return (found >= 0 ? found : Math.min(position.index, group.keys.length)) - 1;
}

/** A log a listing examines, where it stands, and whether the version filter keeps it. */
interface Examined {
  evaluation: EvaluationRecord;
  position: EvaluationPosition;
  wanted: boolean;
}

/**
 * A page of the caller's evaluations of one agent, newest first (groups by `seq` descending, each
 * group's logs last first), each with its feedback; `after` is where the previous page stopped.
 * The feedback of the logs a step may return is asked for all at once, one indexed read each in
 * flight together: awaiting each in turn made a page of 100 cost 100 round trips.
 */
export function listEvaluations(db: FuzzboxDatabase, userID: string, agentID: string, query: EvaluationQuery): Promise<EvaluationPage> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.logGroups, db.feedback], async () => {
    await requireOwnAgentID(db, userID, agentID);
    const entries: EvaluationPage['entries'] = [];
    let scanned = 0;
    let upper: number | undefined = query.after?.seq;
    let includeUpper = query.after !== undefined;
    for (let reads = GROUPS_PER_READ; ; reads = Math.min(MAX_GROUPS_PER_READ, Math.max(GROUPS_PER_READ, query.limit - entries.length))) {
      const groups: LogGroupRecord[] = await db.logGroups
        .where('[userID+agentID+seq]')
        .between([userID, agentID, Dexie.minKey], [userID, agentID, upper ?? Dexie.maxKey], true, includeUpper)
        .reverse()
        .limit(reads)
        .toArray();
      const more = groups.length === reads;
      const examined: Examined[] = [];
      for (const group of groups) {
        const start = query.after && group.seq === query.after.seq ? resumeIndex(group, query.after) : group.keys.length - 1;
        const wanted = query.versionID === undefined || group.versionID === query.versionID;
        const logs = logsOf(group);
        for (let index = start; index >= 0; index--) {
          examined.push({ evaluation: logs[index]!, position: { seq: group.seq!, index, reqID: logs[index]!.reqID }, wanted });
        }
      }
      // in slices of what the page still needs: no feedback is read for a log the page stops before
      for (let from = 0; from < examined.length; ) {
        const slice: Examined[] = [];
        for (let kept = 0; from < examined.length && kept < query.limit - entries.length && scanned + slice.length < LIST_SCAN_LIMIT; from++) {
          slice.push(examined[from]!);
          if (examined[from]!.wanted) kept++;
        }
        const feedback = await Promise.all(slice.map(({ evaluation, wanted }) => (wanted ? feedbackOf(db, userID, evaluation.reqID) : [])));
        for (const [i, { evaluation, position, wanted }] of slice.entries()) {
          scanned++;
          if (wanted && (query.feedback === undefined || query.feedback === feedback[i]!.length > 0)) {
            entries.push({ evaluation, feedback: feedback[i]! });
            if (entries.length === query.limit) {
              const exhausted = from - slice.length + i === examined.length - 1 && !more;
              return { entries, next: exhausted ? null : position };
            }
          }
          if (scanned >= LIST_SCAN_LIMIT) return { entries, next: position };
        }
      }
      if (!more) return { entries, next: null };
      upper = groups.at(-1)!.seq;
      includeUpper = false;
    }
  });
}

/**
 * Erases the caller's evaluation and its feedback, in one transaction: the log's record goes when
 * it was the last log in it, else the record is rewritten without it (at most LOG_CHUNK logs),
 * and the account's tally goes down. On a full disk, where even that refuses, the erasure is
 * tried again as a transaction that only deletes (which commits on a full disk): the record
 * goes, or when others share it the log is left (a 507 says so), and the tally is dropped, to be
 * recounted.
 */
export async function deleteEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<void> {
  const erase = (full: boolean) =>
    db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
      const group = await findGroup(db, userID, reqID);
      if (!group) throw new ApiError('NotFound', `no evaluation with id "${reqID}"`);
      const feedback = await db.feedback.where('evaluationLog').equals(reqID).filter((item) => item.userID === userID).delete();
      if (full) await dropTally(db, userID);
      else await applyTallies(db, count(new Map(), userID, -1, -feedback));
      if (group.keys.length === 1) {
        await db.logGroups.delete(group.seq!);
        return;
      }
      const index = group.keys.findIndex((key) => key[1] === reqID);
      await db.logGroups.put(keepLogs(group, (i) => i !== index));
    });
  try {
    await erase(false);
  } catch (error) {
    if (!isQuotaExceeded(error)) throw error;
    await erase(true);
  }
}
