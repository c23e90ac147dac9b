// Log groups: evaluation logs of one agent version, kept as one record (docs/REST.md, "Log
// groups"). Pure: what a group holds, not how it is stored.
import type { EvaluationRecord, LogGroupRecord } from '../records.js';
import { LOG_CHUNK, idPrefix } from '../ids.js';

/** The fields a log shares with its group, the key they are grouped by. */
const groupKey = ({ userID, agentID, versionID }: EvaluationRecord) => JSON.stringify([userID, agentID, versionID]);

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
 * Logs as few group records as possible: one per owner, agent, version and LOG_CHUNK logs, so the
 * logs of one request (and of concurrent ones stored with it) are a few records, stored in
 * `logs`' order. A group's `createdAt` is the latest of its logs' (a group older than a time holds
 * no log younger than it), and a log of another time carries its own.
 */
export function groupLogs(logs: readonly EvaluationRecord[]): LogGroupRecord[] {
  const groups: Array<{ group: LogGroupRecord; times: string[] }> = [];
  const open = new Map<string, (typeof groups)[number]>();
  for (const log of logs) {
    const { reqID, userID, agentID, versionID, createdAt, input, crisp, returned, density, trace } = log;
    const key = groupKey(log);
    let grouping = open.get(key);
    if (!grouping || grouping.group.logs.length === LOG_CHUNK) {
      grouping = { group: { userID, agentID, versionID, createdAt, keys: [], idPrefixes: [], logs: [] }, times: [] };
      groups.push(grouping);
      open.set(key, grouping);
    }
    grouping.group.keys.push([userID, reqID]);
    // absent rather than `undefined`: IndexedDB would store the property
    grouping.group.logs.push({ input, crisp, ...(returned ? { returned } : {}), ...(density === undefined ? {} : { density }), ...(trace ? { trace } : {}) });
    grouping.times.push(createdAt);
  }
  return groups.map(({ group, times }) => {
    group.createdAt = times.reduce((latest, time) => (time > latest ? time : latest));
    times.forEach((time, index) => {
      if (time !== group.createdAt) group.logs[index]!.createdAt = time;
    });
    group.idPrefixes = idPrefixesOf(group.keys);
    return group;
  });
}

/** `group` with only the logs `keep` says yes to, its index entries to match (a rewrite after erasing some). */
export function keepLogs(group: LogGroupRecord, keep: (index: number) => boolean): LogGroupRecord {
  const keys = group.keys.filter((_, i) => keep(i));
  return { ...group, keys, idPrefixes: idPrefixesOf(keys), logs: group.logs.filter((_, i) => keep(i)) };
}

/** When the log at `index` of `group` was made: its own time, else its group's. */
export const createdAtOf = (group: LogGroupRecord, index: number): string => group.logs[index]!.createdAt ?? group.createdAt;

/** The log at `index` of `group`, as one record. */
export function logAt(group: LogGroupRecord, index: number): EvaluationRecord {
  const { userID, agentID, versionID } = group;
  return { reqID: group.keys[index]![1], userID, agentID, versionID, ...group.logs[index]!, createdAt: createdAtOf(group, index) };
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
