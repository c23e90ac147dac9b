// The replica's side of sync in IndexedDB (docs/SYNC.md): what is not yet pushed, and the
// server's records merged with the checkpoint that covers them, in one transaction.
import { Dexie } from 'dexie';
import type { BackupRecord } from '../../schema/backup.js';
import type { AutopilotLine } from '../../schema/sync.js';
import { agentLine, deletionLine, evaluationLine, feedbackLine, versionLine, type ImportRecord } from '../backup-records.js';
import { pushFromStart, type Merged, type Pushable } from '../sync-replica.js';
import { importLines, importTables } from './backup.js';
import type { FuzzboxDatabase } from './database.js';
import { logsOf } from './log-groups.js';
import { newId } from '../ids.js';
import type { AgentRecord, DeletedAgentRecord, PushCursor, SyncStateRecord } from '../records.js';

/** Log groups read per step while collecting what to push. */
const GROUP_STEP = 32;

/** An agent's state as the server may have it: when a push is acknowledged, what it sent. */
export const agentMark = (agent: AgentRecord) => `${agent.updatedAt} ${agent.latestVersion} ${agent.versionCount}`;
const deletionMark = (tombstone: DeletedAgentRecord) => `deleted ${tombstone.deletedAt}`;
/** How many of the agent's versions (numbered here 0, 1, …) the server has from this replica. */
const versionsSent = (mark: string | undefined) => (mark === undefined || mark.startsWith('deleted') ? 0 : Number(mark.split(' ')[2]));

const stateKey = (userID: string, url: string) => `${userID} ${url}`;

export function emptySyncState(userID: string, url: string): SyncStateRecord {
  return {
    key: stateKey(userID, url),
    userID,
    url,
    replica: newId(),
    pull: null,
    push: pushFromStart(),
    lastSync: null,
    lastError: null,
  };
}

export async function readSyncState(db: FuzzboxDatabase, userID: string, url: string): Promise<SyncStateRecord> {
  return (await db.syncStates.get(stateKey(userID, url))) ?? emptySyncState(userID, url);
}

/** Changes the parts of the state `change` names, as they are when this runs (another step may have moved the rest). */
export async function updateSyncState(
  db: FuzzboxDatabase,
  userID: string,
  url: string,
  change: (state: SyncStateRecord) => Partial<SyncStateRecord>,
): Promise<SyncStateRecord> {
  return db.transaction('rw', db.syncStates, async () => {
    const state = await readSyncState(db, userID, url);
    const next = { ...state, ...change(state) };
    await db.syncStates.put(next);
    return next;
  });
}

/** The state of each agent `lines` name, as marks, read in the current transaction. */
async function marksOf(db: FuzzboxDatabase, ids: readonly string[]): Promise<Map<string, string | undefined>> {
  const agents = await db.agents.bulkGet([...ids]);
  const tombstones = await db.deletedAgents.bulkGet([...ids]);
  return new Map(ids.map((id, i) => [id, agents[i] ? agentMark(agents[i]) : tombstones[i] ? deletionMark(tombstones[i]) : undefined]));
}

const agentOf = (record: ImportRecord) =>
  record.kind === 'version' ? record.versionOf : record.kind === 'agent' || record.kind === 'deletion' ? record.id : undefined;

/**
 * A page the server sent, merged by sync's rules, and `checkpoint` stored with it in the same
 * transaction: an interrupted pull starts again where the stored records end. Agents the server
 * already had as they were here (nothing of them is waiting to be pushed) are marked as the
 * server has them now, so the merged state is not pushed back.
 */
export function mergePulled(
  db: FuzzboxDatabase,
  userID: string,
  url: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  checkpoint: string | null | undefined,
  autopilot: readonly AutopilotLine[] = [],
): Promise<Merged> {
  return db.transaction('rw', [...importTables(db), db.syncStates, db.autopilot], async () => {
    const state = await readSyncState(db, userID, url);
    const ids = [...new Set(lines.flatMap(({ record }) => agentOf(record) ?? []))];
    const before = await marksOf(db, ids);
    const versions = lines.flatMap(({ record }) => (record.kind === 'version' ? [record] : []));
    const known = [...(await db.versions.bulkGet(versions.map(({ id }) => id))), ...(await db.retiredVersions.bulkGet(versions.map(({ id }) => id)))];
    const outcome = await importLines(db, userID, lines, 'merge');
    const after = await marksOf(db, ids);
    const agents = { ...state.push.agents };
    for (const id of ids) {
      if (agents[id] !== before.get(id)) continue; // changed here since the last push: it goes out as it is
      const mark = after.get(id);
      if (mark === undefined) delete agents[id];
      else agents[id] = mark;
    }
    await db.syncStates.put({ ...state, push: { ...state.push, agents }, ...(checkpoint === undefined ? {} : { pull: checkpoint }) });
    for (const line of autopilot) await followAutopilot(db, userID, line);
    const stored = new Set(known.flatMap((version) => (version ? [version.id] : [])));
    return {
      ...outcome,
      newVersions: versions.filter(({ id }) => !stored.has(id)).map(({ id, versionOf }) => ({ id, agentID: versionOf })),
      autopilot: autopilot.map(({ agentID }) => agentID),
    };
  });
}

/**
 * Takes the server's autopilot state of an agent of the account (docs/SYNC.md, "Learning"):
 * on or off, each output's spread, and the candidate to serve to its share of traffic, defined as its version is (a
 * candidate whose version is not here yet waits for the next state). What this replica decided
 * itself (trials, feedback used) it never had while synced, and keeps.
 */
async function followAutopilot(db: FuzzboxDatabase, userID: string, line: AutopilotLine): Promise<void> {
  const agent = (await db.agents.get(line.agentID)) ?? (await db.deletedAgents.get(line.agentID));
  if (agent?.userID !== userID) return;
  const existing = await db.autopilot.get(line.agentID);
  const version = line.candidate && (await db.versions.get(line.candidate.versionID));
  const candidate =
    line.candidate && version?.versionOf === line.agentID
      ? {
          ...line.candidate,
          definition: {
            inputs: version.inputs,
            outputs: version.outputs,
            rules: version.rules,
            ...(version.operators ? { operators: version.operators } : {}),
          },
        }
      : undefined;
  await db.autopilot.put({
    agentID: line.agentID,
    userID,
    enabled: line.enabled,
    revision: (existing?.revision ?? 0) + 1,
    usedFeedback: existing?.usedFeedback ?? 0,
    trials: existing?.trials ?? [],
    ...(candidate ? { candidate } : {}),
    ...(line.spread ? { spread: line.spread } : {}),
  });
}

/** The log groups keyed above `from` and, when a batch is unfinished, below its `floor`. */
const groupsBetween = (db: FuzzboxDatabase, from: number, floor: number | undefined) =>
  floor === undefined ? db.logGroups.where(':id').above(from) : db.logGroups.where(':id').between(from, floor, false, false);

/**
 * What this replica wrote and has not pushed, about `limit` logs and feedback at most, read in
 * one transaction: each agent changed since its mark with the versions it has gained (or, once
 * deleted, its versions and the deletion), then logs, then feedback; feedback only once every log
 * is taken, since it names its log. Logs and feedback merged from the server are skipped.
 *
 * Logs are read only below `unfinished()`, the lowest key of a batch still being written in
 * pieces (EvaluationWriter.unfinished), which may yet be taken back: the cursor stops before it,
 * so nothing above it is skipped, and feedback waits with them (it may name one of them). It is
 * asked once a request of this transaction has run: every write of `logGroups` that began before
 * has then committed, and noted its batch's keys.
 */
export function readPushable(db: FuzzboxDatabase, userID: string, cursor: PushCursor, limit: number, unfinished: () => number | undefined): Promise<Pushable> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.retiredVersions, db.logGroups, db.feedback], async () => {
    const records: BackupRecord[] = [];
    const agents = { ...cursor.agents };
    for (const agent of await db.agents.where('userID').equals(userID).toArray()) {
      const mark = agentMark(agent);
      if (cursor.agents[agent.id] === mark) continue;
      const versions = await db.versions
        .where('[versionOf+seq]')
        .between([agent.id, versionsSent(cursor.agents[agent.id])], [agent.id, Dexie.maxKey])
        .toArray();
      records.push(...versions.map((version) => versionLine(version, false)), agentLine(agent));
      agents[agent.id] = mark;
    }
    const tombstones = (await db.deletedAgents.where('userID').equals(userID).toArray()).filter(
      (tombstone) => cursor.agents[tombstone.id] !== deletionMark(tombstone),
    );
    if (tombstones.length > 0) {
      const deleted = new Set(tombstones.map((tombstone) => tombstone.id));
      const retired = await db.retiredVersions
        .where('userID')
        .equals(userID)
        .filter((version) => deleted.has(version.versionOf))
        .toArray();
      records.push(...retired.map((version) => versionLine(version, true)));
      for (const tombstone of tombstones) {
        records.push(deletionLine(tombstone));
        agents[tombstone.id] = deletionMark(tombstone);
      }
    }
    let groups = cursor.groups;
    let taken = 0;
    let more = false;
    const floor = unfinished();
    while (!more) {
      const page = await groupsBetween(db, groups, floor).limit(GROUP_STEP).toArray();
      for (const group of page) {
        if (taken >= limit) {
          more = true;
          break;
        }
        groups = group.seq!;
        if (group.userID !== userID || group.merged) continue;
        records.push(...logsOf(group).map(evaluationLine));
        taken += group.keys.length;
      }
      if (page.length < GROUP_STEP) break;
    }
    let feedback = cursor.feedback;
    if (!more && floor === undefined) {
      const budget = Math.max(1, limit - taken);
      const page = await db.feedback
        .where(':id')
        .above(feedback)
        .limit(budget + 1)
        .toArray();
      more = page.length > budget;
      for (const record of page.slice(0, budget)) {
        feedback = record.seq!;
        if (record.userID === userID && !record.merged) records.push(feedbackLine(record));
      }
    }
    return { records, next: { groups, feedback, agents }, more };
  });
}

/** How many records wait to be pushed: agents changed or deleted, logs and feedback. Reads only what waits. */
export async function countPending(db: FuzzboxDatabase, userID: string, cursor: PushCursor, unfinished: () => number | undefined): Promise<number> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.logGroups, db.feedback], async () => {
    let pending = 0;
    await db.agents
      .where('userID')
      .equals(userID)
      .each((agent) => void (cursor.agents[agent.id] !== agentMark(agent) && pending++));
    await db.deletedAgents
      .where('userID')
      .equals(userID)
      .each((tombstone) => void (cursor.agents[tombstone.id] !== deletionMark(tombstone) && pending++));
    // logs of a batch still being written are not pending: it may yet be taken back (readPushable)
    await groupsBetween(db, cursor.groups, unfinished()).each((group) => void (group.userID === userID && !group.merged && (pending += group.keys.length)));
    await db.feedback
      .where(':id')
      .above(cursor.feedback)
      .each((record) => void (record.userID === userID && !record.merged && pending++));
    return pending;
  });
}
