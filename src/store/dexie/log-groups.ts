// Log groups: the evaluation logs of one request, one agent version and one time, kept as one
// record (docs/REST.md, "Log groups"). Pure: what a group holds, not how it is stored.
import type { EvaluationRecord, LogGroupRecord } from '../records.js';
import { LOG_CHUNK, idPrefix } from '../ids.js';

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
export function logAt(group: LogGroupRecord, index: number): EvaluationRecord {
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
