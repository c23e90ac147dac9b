import { ApiError } from '../schema/errors.js';
import type { FuzzboxDatabase } from './database.js';
import type { EvaluationRecord, LogGroupRecord } from './records.js';
import type { StoredEvaluation } from './store.js';

const notFound = (id: string) => new ApiError('NotFound', `no evaluation with id "${id}"`);

/** The fields a log shares with its group, the key they are grouped by. */
const groupKey = ({ userID, agentID, versionID, createdAt }: EvaluationRecord) => JSON.stringify([userID, agentID, versionID, createdAt]);

/**
 * Logs as few group records as possible: one per owner, agent, version and time, so the logs of
 * one request (and of concurrent ones that match) are one record, stored in `logs`' order.
 */
export function groupLogs(logs: readonly EvaluationRecord[]): LogGroupRecord[] {
  const groups = new Map<string, LogGroupRecord>();
  for (const log of logs) {
    const { reqID, userID, agentID, versionID, createdAt, input, crisp, returned, trace } = log;
    const key = groupKey(log);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { userID, agentID, versionID, createdAt, reqIDs: [], logs: [] }));
    group.reqIDs.push(reqID);
    // absent rather than `undefined`: IndexedDB would store the property
    group.logs.push({ input, crisp, ...(returned ? { returned } : {}), ...(trace ? { trace } : {}) });
  }
  return [...groups.values()];
}

/** The log at `index` of `group`, as one record. */
function logAt(group: LogGroupRecord, index: number): EvaluationRecord {
  const { userID, agentID, versionID, createdAt } = group;
  return { reqID: group.reqIDs[index]!, userID, agentID, versionID, createdAt, ...group.logs[index]! };
}

/** Every log of `group`, in the order they were stored. */
export function logsOf(group: LogGroupRecord): EvaluationRecord[] {
  return group.reqIDs.map((_, index) => logAt(group, index));
}

/** The caller's evaluation, or NotFound (never existed, or someone else's). */
export async function requireEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<EvaluationRecord> {
  const group = await db.logGroups.where('reqIDs').equals(reqID).first();
  if (group?.userID !== userID) throw notFound(reqID);
  return logAt(group, group.reqIDs.indexOf(reqID));
}

/**
 * The caller's evaluation and, unless its trace is stored (logs of agents deleted under schema
 * version 1), the version to recompute it from: a live one, or one its agent's delete retired.
 */
export function readEvaluation(
  db: FuzzboxDatabase,
  userID: string,
  reqID: string,
): Promise<StoredEvaluation> {
  return db.transaction('r', db.logGroups, db.versions, db.retiredVersions, async () => {
    const evaluation = await requireEvaluation(db, userID, reqID);
    if (evaluation.trace) return { evaluation, version: undefined };
    const version = (await db.versions.get(evaluation.versionID)) ?? (await db.retiredVersions.get(evaluation.versionID));
    return { evaluation, version };
  });
}
