import { Dexie } from 'dexie';
import { ApiError } from '../../schema/errors.js';
import { deletedOwners } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { findGroup } from './evaluations.js';
import { keepLogs, logsOf } from './log-groups.js';
import { feedbackOfLog } from './feedback.js';
import { eraseCounted } from './tallies.js';
import type { FeedbackRecord, LogGroupRecord } from '../records.js';
import { LIST_SCAN_LIMIT, type EvaluationPage, type EvaluationPosition, type EvaluationQuery } from '../store.js';

/**
 * Group records a listing reads first (4 chunks of a batch fill a page of 100); each later read
 * takes twice as many, never more than MAX_GROUPS_PER_READ nor, unfiltered, than the page still
 * needs (a group holds one log or more). A group's size is known only once it is read: doubling keeps both the
 * reads of a page of singles and the logs decoded and discarded where singles give way to a
 * batch's chunks few.
 */
const FIRST_READ = 4;
const MAX_GROUPS_PER_READ = 64;
/**
 * The feedback of a read's groups comes in one range of `[userID+logGroup]` when their seqs are
 * this dense or denser (other agents' groups between them bring their feedback along); else one
 * read per group, all in flight together.
 */
const DENSE_ENOUGH = 4;

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

/** The caller's feedback on the logs of `groups` (newest group first), by evaluation id, each oldest first. */
async function feedbackOfGroups(db: FuzzboxDatabase, userID: string, groups: LogGroupRecord[]): Promise<Map<string, FeedbackRecord[]>> {
  const index = db.feedback.where('[userID+logGroup]');
  const newest = groups[0]!.seq!;
  const oldest = groups.at(-1)!.seq!;
  const records =
    newest - oldest < DENSE_ENOUGH * groups.length
      ? await index.between([userID, oldest], [userID, newest], true, true).toArray()
      : (await Promise.all(groups.map((group) => index.equals([userID, group.seq!]).toArray()))).flat();
  const byLog = new Map<string, FeedbackRecord[]>();
  // by `seq`, so each evaluation's feedback is oldest first whichever way it was read
  for (const feedback of records.sort((a, b) => a.seq! - b.seq!)) {
    byLog.set(feedback.evaluationLog, [...(byLog.get(feedback.evaluationLog) ?? []), feedback]);
  }
  return byLog;
}

/**
 * A page of the caller's evaluations of one agent, newest first (groups by `seq` descending, each
 * group's logs last first), each with its feedback; `after` is where the previous page stopped.
 * Each read of groups reads their feedback in one more: feedback names its log's group (schema
 * version 10), where a lookup per log made a page of 100 cost 100 requests.
 */
export function listEvaluations(db: FuzzboxDatabase, userID: string, agentID: string, query: EvaluationQuery): Promise<EvaluationPage> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.logGroups, db.feedback], async () => {
    await requireOwnAgentID(db, userID, agentID);
    const entries: EvaluationPage['entries'] = [];
    let scanned = 0;
    let reads = 0;
    let upper: number | undefined = query.after?.seq;
    let includeUpper = query.after !== undefined;
    for (;;) {
      // unfiltered, every log is an entry: no more groups than entries still to come
      const needed = query.versionID === undefined && query.feedback === undefined ? query.limit - entries.length : MAX_GROUPS_PER_READ;
      reads = Math.min(reads === 0 ? FIRST_READ : 2 * reads, needed, MAX_GROUPS_PER_READ);
      const groups: LogGroupRecord[] = await db.logGroups
        .where('[userID+agentID+seq]')
        .between([userID, agentID, Dexie.minKey], [userID, agentID, upper ?? Dexie.maxKey], true, includeUpper)
        .reverse()
        .limit(reads)
        .toArray();
      if (groups.length === 0) return { entries, next: null };
      const feedback = await feedbackOfGroups(db, userID, groups);
      const more = groups.length === reads;
      for (const [g, group] of groups.entries()) {
        const start = query.after && group.seq === query.after.seq ? resumeIndex(group, query.after) : group.keys.length - 1;
        const wanted = query.versionID === undefined || group.versionID === query.versionID;
        const logs = logsOf(group);
        for (let index = start; index >= 0; index--) {
          const evaluation = logs[index]!;
          const position = { seq: group.seq!, index, reqID: evaluation.reqID };
          scanned++;
          const own = feedback.get(evaluation.reqID) ?? [];
          if (wanted && (query.feedback === undefined || query.feedback === own.length > 0)) {
            entries.push({ evaluation, feedback: own });
            if (entries.length === query.limit) return { entries, next: index > 0 || g < groups.length - 1 || more ? position : null };
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
  await eraseCounted(db, (countDown) =>
    db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
      const group = await findGroup(db, userID, reqID);
      if (!group) throw new ApiError('NotFound', `no evaluation with id "${reqID}"`);
      const feedback = await feedbackOfLog(db, userID, group.seq!, reqID);
      await db.feedback.bulkDelete(feedback.map((item) => item.seq!));
      await countDown(userID, 1, feedback.length);
      if (group.keys.length === 1) {
        await db.logGroups.delete(group.seq!);
        return;
      }
      const index = group.keys.findIndex((key) => key[1] === reqID);
      await db.logGroups.put(keepLogs(group, (i) => i !== index));
    }),
  );
}
