import { ApiError } from '../../schema/errors.js';
import type { FuzzboxDatabase } from './database.js';
import type { EvaluationRecord, LogGroupRecord } from '../records.js';
import type { StoredEvaluation } from '../store.js';
import { idPrefix, LOG_CHUNK } from '../ids.js';

const notFound = (id: string) => new ApiError('NotFound', `no evaluation with id "${id}"`);

/** The fields a log shares with its group, the key they are grouped by. */
const groupKey = ({ userID, agentID, versionID, createdAt }: EvaluationRecord) => JSON.stringify([userID, agentID, versionID, createdAt]);

/** The `idPrefixes` of a group whose logs are `keys`: each distinct prefix once. */
export function idPrefixesOf(keys: LogGroupRecord['keys']): LogGroupRecord['idPrefixes'] {
  const seen = new Map<string, [string, string]>();
  for (const [userID, reqID] of keys) {
    const prefix = idPrefix(reqID);
    if (!seen.has(prefix)) seen.set(prefix, [userID, prefix]);
  }
  return [...seen.values()];
}

/**
 * Logs as few group records as possible: one per owner, agent, version and time and LOG_CHUNK
 * logs, so the logs of one request (and of concurrent ones that match) are a few records, stored
 * in `logs`' order.
 */
export function groupLogs(logs: readonly EvaluationRecord[]): LogGroupRecord[] {
  const groups: LogGroupRecord[] = [];
  const open = new Map<string, LogGroupRecord>();
  for (const log of logs) {
    const { reqID, userID, agentID, versionID, createdAt, input, crisp, returned, density, trace } = log;
    const key = groupKey(log);
    let group = open.get(key);
    if (!group || group.logs.length === LOG_CHUNK) {
      group = { userID, agentID, versionID, createdAt, keys: [], idPrefixes: [], logs: [] };
      groups.push(group);
      open.set(key, group);
    }
    group.keys.push([userID, reqID]);
    // absent rather than `undefined`: IndexedDB would store the property
    group.logs.push({ input, crisp, ...(returned ? { returned } : {}), ...(density === undefined ? {} : { density }), ...(trace ? { trace } : {}) });
  }
  for (const group of groups) group.idPrefixes = idPrefixesOf(group.keys);
  return groups;
}

/** `group` with only the logs `keep` says yes to, its index entries to match (a rewrite after erasing some). */
export function keepLogs(group: LogGroupRecord, keep: (index: number) => boolean): LogGroupRecord {
  const keys = group.keys.filter((_, i) => keep(i));
  return { ...group, keys, idPrefixes: idPrefixesOf(keys), logs: group.logs.filter((_, i) => keep(i)) };
}

/** The log at `index` of `group`, as one record. */
function logAt(group: LogGroupRecord, index: number): EvaluationRecord {
  const { userID, agentID, versionID, createdAt } = group;
  return { reqID: group.keys[index]![1], userID, agentID, versionID, createdAt, ...group.logs[index]! };
}

/** Every log of `group`, in the order they were stored. */
export function logsOf(group: LogGroupRecord): EvaluationRecord[] {
  return group.keys.map((_, index) => logAt(group, index));
}

/**
 * The group holding the caller's evaluation `reqID`, if any: the groups indexed under its prefix
 * (one, but for an import that split a chunk, or ids that were not made by newEvaluationIDs),
 * then the one that holds the id itself.
 */
export async function findGroup(db: FuzzboxDatabase, userID: string, reqID: string): Promise<LogGroupRecord | undefined> {
  const groups = await db.logGroups.where('idPrefixes').equals([userID, idPrefix(reqID)]).toArray();
  return groups.find((group) => group.keys.some((key) => key[1] === reqID));
}

/** The caller's evaluation, or NotFound (never existed, or someone else's). */
export async function requireEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<EvaluationRecord> {
  const group = await findGroup(db, userID, reqID);
  if (!group) throw notFound(reqID);
  return logAt(group, group.keys.findIndex((key) => key[1] === reqID));
}

/** The `seq` of the group holding the caller's evaluation `reqID`, if any. */
export async function groupOf(db: FuzzboxDatabase, userID: string, reqID: string): Promise<number | undefined> {
  return (await findGroup(db, userID, reqID))?.seq;
}

/** The group holding the caller's evaluation `reqID`, or NotFound. */
export async function requireGroup(db: FuzzboxDatabase, userID: string, reqID: string): Promise<LogGroupRecord> {
  const group = await findGroup(db, userID, reqID);
  if (!group) throw notFound(reqID);
  return group;
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
