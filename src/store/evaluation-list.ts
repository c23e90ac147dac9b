import { Dexie } from 'dexie';
import { ApiError } from '../schema/errors.js';
import { deletedOwners } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { findGroup, logsOf } from './evaluations.js';
import { isQuotaExceeded } from './quota.js';
import { applyTallies, count, dropTally } from './tallies.js';
import type { FeedbackRecord, LogGroupRecord } from './records.js';
import type { EvaluationPage, EvaluationPosition, EvaluationQuery } from './store.js';

/**
 * Logs a listing examines at most per request: with a filter that skips most logs, a page can end
 * short of `limit`, with a cursor to go on from; no request holds the database for long.
 */
export const LIST_SCAN_LIMIT = 10_000;
/** Group records read per step of a listing. */
const GROUPS_PER_READ = 16;

const feedbackOf = (db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> =>
  db.feedback.where('evaluationLog').equals(reqID).filter((feedback) => feedback.userID === userID).toArray();

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

/**
 * A page of the caller's evaluations of one agent, newest first (groups by `seq` descending, each
 * group's logs last first), each with its feedback; `after` is where the previous page stopped.
 */
export function listEvaluations(db: FuzzboxDatabase, userID: string, agentID: string, query: EvaluationQuery): Promise<EvaluationPage> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.logGroups, db.feedback], async () => {
    await requireOwnAgentID(db, userID, agentID);
    const entries: EvaluationPage['entries'] = [];
    let scanned = 0;
    let last: EvaluationPosition | undefined = query.after;
    let upper: number | undefined = query.after?.seq;
    let includeUpper = query.after !== undefined;
    for (;;) {
      const groups: LogGroupRecord[] = await db.logGroups
        .where('[userID+agentID+seq]')
        .between([userID, agentID, Dexie.minKey], [userID, agentID, upper ?? Dexie.maxKey], true, includeUpper)
        .reverse()
        .limit(GROUPS_PER_READ)
        .toArray();
      for (const [g, group] of groups.entries()) {
        const logs = logsOf(group);
        const start = query.after && group.seq === query.after.seq ? resumeIndex(group, query.after) : logs.length - 1;
        const wanted = query.versionID === undefined || group.versionID === query.versionID;
        for (let index = start; index >= 0; index--) {
          const evaluation = logs[index]!;
          last = { seq: group.seq!, index, reqID: evaluation.reqID };
          scanned++;
          if (wanted) {
            const feedback = await feedbackOf(db, userID, evaluation.reqID);
            if (query.feedback === undefined || query.feedback === feedback.length > 0) {
              entries.push({ evaluation, feedback });
              if (entries.length === query.limit) {
                const more = index > 0 || g < groups.length - 1 || groups.length === GROUPS_PER_READ;
                return { entries, next: more ? last : null };
              }
            }
          }
          if (scanned >= LIST_SCAN_LIMIT) return { entries, next: last };
        }
      }
      if (groups.length < GROUPS_PER_READ) return { entries, next: null };
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
      await db.logGroups.put({ ...group, keys: group.keys.filter((_, i) => i !== index), logs: group.logs.filter((_, i) => i !== index) });
    });
  try {
    await erase(false);
  } catch (error) {
    if (!isQuotaExceeded(error)) throw error;
    await erase(true);
  }
}
