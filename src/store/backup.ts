import { Dexie } from 'dexie';
import { range } from '../engine/variables.js';
import { NARROWEST_SPREAD } from '../learn/policy.js';
import type { BackupRecord } from '../schema/backup.js';
import { laterThan } from '../schema/dates.js';
import { feedbackFull, MAX_FEEDBACK_PER_EVALUATION } from '../schema/feedback.js';
import { feedbackOfGroup } from './feedback.js';
import { ApiError } from '../schema/errors.js';
import { deletedOwners, putAgent, versionsOf } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { groupLogs, idPrefix, logsOf } from './evaluations.js';
import { applyTallies, count } from './tallies.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, LogGroupRecord, VersionRecord } from './records.js';

/** Records read per transaction while exporting: memory stays flat, and no read holds the database long. */
const EXPORT_PAGE = 256;
/** Log groups per export page: up to 64 logs each. */
const GROUP_PAGE = 16;

/** A version as a backup file holds it. */
export type VersionLine = Extract<BackupRecord, { kind: 'version' }>;
/** A backup record ready to store: a version's rules come parsed (the API compiles every definition). */
export type ImportRecord = Exclude<BackupRecord, VersionLine> | (VersionLine & { parsed_rules: unknown[] });

export function versionLine(version: VersionRecord, retired: boolean): VersionLine {
  const { id, versionOf, name, inputs, outputs, rules, performance, operators, createdAt, seq, origin, evidence } = version;
  return {
    kind: 'version', id, versionOf, name, inputs, outputs, rules, ...(performance ? { performance } : {}), ...(operators ? { operators } : {}), createdAt, seq, retired,
    ...(origin ? { origin } : {}),
    ...(evidence ? { evidence } : {}),
  };
}

export function agentLine(agent: AgentRecord): BackupRecord {
  const { id, name, inputs, outputs, rules, performance, operators, createdAt, updatedAt, latestVersion, versionCount } = agent;
  return { kind: 'agent', id, name, inputs, outputs, rules, ...(performance ? { performance } : {}), ...(operators ? { operators } : {}), createdAt, updatedAt, latestVersion, versionCount };
}

export const deletionLine = ({ id, deletedAt }: DeletedAgentRecord): BackupRecord => ({ kind: 'deletion', id, deletedAt });

export function evaluationLine(log: EvaluationRecord): BackupRecord {
  const { reqID, agentID, versionID, input, crisp, returned, density, createdAt, trace } = log;
  return {
    kind: 'evaluation', reqID, agentID, versionID, input, crisp, ...(returned ? { returned } : {}), ...(density === undefined ? {} : { density }),
    createdAt, ...(trace ? { trace } : {}),
  };
}

export const feedbackLine = ({ id, evaluationLog, data, createdAt }: FeedbackRecord): BackupRecord => ({ kind: 'feedback', id, evaluationLog, data, createdAt });

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

/** JSON with object keys sorted: two records are the same whatever order their fields were written in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

const withoutParsedRules = (record: ImportRecord | VersionLine) => {
  const { parsed_rules: _, ...line } = record as ImportRecord & { parsed_rules?: unknown };
  return line;
};

export const same = (stored: BackupRecord, record: ImportRecord) => canonical(stored) === canonical(withoutParsedRules(record));

/**
 * How records from elsewhere are stored. `restore` (POST /import): a backup of this account,
 * which must agree with what is stored. `merge` (sync, docs/SYNC.md): records of another replica
 * of the account, merged by sync's rules: versions are numbered here in the order they arrive,
 * the agent whose latest version was set last wins, a deletion wins over everything.
 */
export type ImportMode = 'restore' | 'merge';

/** A version from another replica is the stored one if all but its number here and retirement agree. */
export const sameVersion = (stored: VersionRecord, record: VersionLine) => canonical({ ...versionLine(stored, record.retired), seq: record.seq }) === canonical(withoutParsedRules(record));

/**
 * Sync's rule for an agent two replicas changed (docs/SYNC.md, "Conflicts"): the state whose
 * latest version was set last (`updatedAt`, then the version id) wins, everywhere alike.
 */
export const supersedes = (incoming: Pick<AgentRecord, 'updatedAt' | 'latestVersion'>, stored: Pick<AgentRecord, 'updatedAt' | 'latestVersion'>) =>
  laterThan(incoming.updatedAt, stored.updatedAt) || (Date.parse(incoming.updatedAt) === Date.parse(stored.updatedAt) && incoming.latestVersion > stored.latestVersion);

export const definitionOf = ({ name, inputs, outputs, rules, performance, operators }: Omit<VersionRecord, 'parsed_rules'> | ImportRecord & { kind: 'agent' }) =>
  ({ name, inputs, outputs, rules, performance, operators });

/** The highest density one output's draw can have: autopilot's narrowest spread, half its mass cut off at an end of the range. */
const MAX_DRAW_DENSITY = 1 / (NARROWEST_SPREAD * Math.sqrt(2 * Math.PI)) / 0.5;

/**
 * Why a log cannot be stored as a log of `version`, or undefined. Its names must be the version's
 * (GET /evaluation/:id recomputes its trace from that version); its answers must lie in each
 * output's range, as the engine's and autopilot's draws do; a density comes only with the answers
 * it was drawn for and no higher than autopilot's draws make it. Learning pools every replica's
 * logs: a forged crisp of 1e308 or a density of any size would skew every estimate.
 */
export function logRefusal(log: Pick<EvaluationRecord, 'input' | 'crisp' | 'returned' | 'density'>, version: Pick<VersionRecord, 'inputs' | 'outputs'>): string | undefined {
  const input = Object.keys(log.input).find((name) => !Object.hasOwn(version.inputs, name));
  if (input !== undefined) return `input "${input}" is not an input`;
  for (const [what, outputs] of [['crisp', log.crisp], ['returned', log.returned ?? {}]] as const) {
    for (const [name, value] of Object.entries(outputs)) {
      if (!Object.hasOwn(version.outputs, name)) return `output "${name}" is not an output`;
      const [min, max] = range(version.outputs[name]!);
      if (!(value >= min && value <= max)) return `${what} "${name}" is ${value}, outside the output's range [${min}, ${max}]`;
    }
  }
  if (log.density !== undefined) {
    const drawn = Object.keys(log.returned ?? {}).length;
    if (drawn === 0) return 'a density comes only with the "returned" answers it was drawn for';
    if (log.density > MAX_DRAW_DENSITY ** drawn) return `density ${log.density} is above what autopilot's draws of ${drawn} output${drawn === 1 ? '' : 's'} can have (${MAX_DRAW_DENSITY ** drawn})`;
  }
  return undefined;
}

/**
 * Why a version numbered `seq` cannot join agent `agentID`, which has `count` versions here: the
 * next PUT numbers its version `count` (versions are numbered 0, 1, … in commit order).
 */
export const numberedPast = (agentID: string, count: number, id: string, seq: number) =>
  `agent "${agentID}" has ${count} version${count === 1 ? '' : 's'} here, numbered below ${count}; version "${id}" numbered ${seq} is from a later state of it: import into an account without it, or delete it here first`;

/** Why an agent whose version `id` is numbered `seq` cannot have `count` versions. */
export const countNotAbove = (agentID: string, count: number, id: string, seq: number) =>
  `agent "${agentID}": versionCount ${count} must be above the number of each of its versions (version "${id}" is numbered ${seq})`;

export const elsewhere = (what: string, id: string) =>
  `${what} "${id}" belongs to another account here; a backup keeps its ids, so import it into the account it came from or into another database`;

/**
 * Stores backup records in the caller's account, in one transaction: all of them or, when one
 * is refused (a ValidationError naming its line), none. A record already stored as it is counts
 * as unchanged, so importing the same records twice changes nothing; one that contradicts what
 * is stored, or names another account's id, is refused.
 */
/**
 * Runs `importOne` on each line in order, counting what it imported and what was already stored;
 * `refuse` throws the ValidationError that names the line. Both stores import through this.
 */
export async function importEach(
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  importOne: (record: ImportRecord, refuse: (message: string) => never) => Outcome | Promise<Outcome>,
): Promise<{ imported: number; unchanged: number }> {
  let imported = 0;
  let unchanged = 0;
  for (const { line, record } of lines) {
    const refuse = (message: string): never => {
      throw new ApiError('ValidationError', `line ${line}: ${message}`, { issues: [{ path: `line ${line}`, message }] });
    };
    // awaited only when it is a promise (see importLines); not `instanceof Promise`, which Dexie
    // replaces inside its transactions
    const outcome = importOne(record, refuse);
    if ((typeof outcome === 'string' ? outcome : await outcome) === 'imported') imported++;
    else unchanged++;
  }
  return { imported, unchanged };
}

/** What became of one record: stored, or found stored as it is. */
export type Outcome = 'imported' | 'unchanged';

/** What an import or a merge stored: its counts, and the agents whose evaluations got new feedback (news for autopilot). */
export interface Stored {
  imported: number;
  unchanged: number;
  fedAgents: string[];
}

/**
 * Feedback past MAX_FEEDBACK_PER_EVALUATION on one log: a backup's is refused; a merge's is left
 * out (counted unchanged), since replicas that each kept to the bound may together pass it, and a
 * refusal would stop their sync for good.
 */
export function fullLog(reqID: string, merging: boolean, refuse: (message: string) => never): Outcome {
  if (!merging) refuse(feedbackFull(reqID));
  return 'unchanged';
}

/** What an import or a merge writes: its transaction's scope. */
export const importTables = (db: FuzzboxDatabase) => [db.agents, db.heads, db.versions, db.retiredVersions, db.deletedAgents, db.logGroups, db.feedback, db.tallies];

export function importRecords(
  db: FuzzboxDatabase,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
): Promise<Stored> {
  // an async scope: Dexie follows native awaits (in importLines too) only from one
  return db.transaction('rw', importTables(db), async () => importLines(db, userID, lines, 'restore'));
}

/**
 * Stores `lines` by `mode`'s rules; call inside a read-write transaction over `importTables`.
 * Logs and feedback merged from another replica are marked `merged`: sync never sends them back.
 */
export async function importLines(
  db: FuzzboxDatabase,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  mode: ImportMode,
): Promise<Stored> {
  const merging = mode === 'merge';
  {
    // logs and feedback are written together at the end, in groups; feedback later in the batch may name them
    const newLogs = new Map<string, EvaluationRecord>();
    // whose agent `id` is: its record's or tombstone's owner, else (deleted on a full disk) its
    // versions' owner; the caller's when nothing of it is stored
    const ownerOf = async (id: string, stored: { userID: string } | undefined) =>
      stored?.userID ?? (await deletedOwners(db, [id])).get(id)?.userID ?? userID;
    // Most lines are logs and feedback naming a few agents and versions: those are read once each
    // (only what was found is remembered: a later line may write what was missing, and nothing a
    // batch writes takes a record away from its owner), and the logs and feedback already stored
    // are read in one query each, not one per line.
    // A hit is not awaited at all: Dexie follows its transaction across only so many awaits in a
    // row that touch no IndexedDB, and a batch of logs of one version is all hits.
    const agents = new Map<string, AgentRecord | DeletedAgentRecord>();
    const versions = new Map<string, VersionRecord>();
    const readAgent = async (id: string) => {
      const agent = (await db.agents.get(id)) ?? (await db.deletedAgents.get(id));
      if (agent) agents.set(id, agent);
      return agent;
    };
    const readVersion = async (id: string) => {
      const version = (await db.versions.get(id)) ?? (await db.retiredVersions.get(id));
      if (version) versions.set(id, version);
      return version;
    };
    const logIDs = [...new Set(lines.flatMap(({ record }) => (record.kind === 'evaluation' ? [record.reqID] : record.kind === 'feedback' ? [record.evaluationLog] : [])))];
    const storedLogs = new Map<string, EvaluationRecord>();
    // feedback names the group its log is stored in (schema version 11)
    const groupOfLog = new Map<string, number>();
    if (logIDs.length > 0) {
      const wanted = new Set(logIDs);
      const prefixes = [...new Set(logIDs.map(idPrefix))].map((prefix) => [userID, prefix]);
      for (const group of await db.logGroups.where('idPrefixes').anyOf(prefixes).toArray()) {
        for (const log of logsOf(group)) {
          if (!wanted.has(log.reqID)) continue;
          storedLogs.set(log.reqID, log);
          groupOfLog.set(log.reqID, group.seq!);
        }
      }
    }
    const feedbackIDs = lines.flatMap(({ record }) => (record.kind === 'feedback' ? [record.id] : []));
    const storedFeedback = new Map((feedbackIDs.length > 0 ? await db.feedback.where('id').anyOf(feedbackIDs).toArray() : []).map((record) => [record.id, record]));
    const newFeedback: FeedbackRecord[] = [];
    const fedAgents = new Set<string>();
    // how much feedback each log the batch's feedback names holds: at most MAX_FEEDBACK_PER_EVALUATION
    const feedbackHeld = new Map<string, number>();
    const fedGroups = new Set(lines.flatMap(({ record }) => (record.kind === 'feedback' && groupOfLog.has(record.evaluationLog) ? [groupOfLog.get(record.evaluationLog)!] : [])));
    for (const seq of fedGroups) {
      for (const feedback of await feedbackOfGroup(db, userID, seq)) feedbackHeld.set(feedback.evaluationLog, (feedbackHeld.get(feedback.evaluationLog) ?? 0) + 1);
    }
    const outcomes = await importEach(lines, importOne);
    if (newLogs.size > 0) {
      const groups = groupLogs([...newLogs.values()]);
      const seqs = await db.logGroups.bulkAdd(merging ? groups.map((group) => ({ ...group, merged: true as const })) : groups, { allKeys: true });
      groups.forEach((group, i) => group.keys.forEach(([, reqID]) => groupOfLog.set(reqID, seqs[i]!)));
    }
    if (newFeedback.length > 0) await db.feedback.bulkAdd(newFeedback.map((feedback) => ({ ...feedback, logGroup: groupOfLog.get(feedback.evaluationLog)! })));
    await applyTallies(db, count(new Map(), userID, newLogs.size, newFeedback.length));
    return { ...outcomes, fedAgents: [...fedAgents] };

    /** An agent from another replica: stored if new here, taken if its latest version was set later (sync's rule). */
    async function mergeAgent(record: ImportRecord & { kind: 'agent' }, stored: AgentRecord | undefined, refuse: (message: string) => never) {
      if (stored && stored.userID !== userID) refuse(elsewhere('agent', record.id));
      if (stored && !supersedes(record, stored)) return 'unchanged' as const;
      const tombstone = stored ? undefined : await db.deletedAgents.get(record.id);
      if (tombstone) {
        if (tombstone.userID !== userID) refuse(elsewhere('agent', record.id));
        return 'unchanged' as const; // a deletion wins
      }
      const latest = await db.versions.get(record.latestVersion);
      if (latest?.versionOf !== record.id || latest.userID !== userID) {
        refuse(`agent "${record.id}": its latest version "${record.latestVersion}" must come on a line before it`);
      }
      if (canonical(definitionOf(latest)) !== canonical(definitionOf(record))) {
        refuse(`agent "${record.id}" differs from its latest version "${record.latestVersion}"; an agent is defined as its latest version is`);
      }
      const { kind: _, versionCount: _theirs, ...fields } = record;
      const versionCount = stored ? stored.versionCount : ((await versionsOf(db, record.id).last())?.seq ?? -1) + 1;
      await putAgent(db, { ...fields, userID, versionCount }, { add: !stored });
      return 'imported' as const;
    }

    /**
     * Logs and feedback, most of a batch, are decided without awaiting anything once their agent
     * and version were read: Dexie keeps its transaction across only so many awaits in a row that
     * touch no IndexedDB, and a batch of logs already stored would be nothing else.
     */
    function importOne(record: ImportRecord, refuse: (message: string) => never): Outcome | Promise<Outcome> {
      if (record.kind === 'evaluation') return importLog(record, refuse);
      if (record.kind === 'feedback') return importFeedback(record, refuse);
      return importDefinition(record, refuse);
    }

    function importLog(record: ImportRecord & { kind: 'evaluation' }, refuse: (message: string) => never): Outcome | Promise<Outcome> {
      const stored = newLogs.get(record.reqID) ?? storedLogs.get(record.reqID);
      if (stored) {
        if (same(evaluationLine(stored), record)) return 'unchanged';
        refuse(`evaluation "${record.reqID}" differs from the stored evaluation with that id`);
      }
      const agent = agents.get(record.agentID);
      const version = versions.get(record.versionID);
      if (agent && (record.trace || version)) return storeLog(record, agent, version, refuse);
      return (async () => {
        const read = agent ?? (await readAgent(record.agentID));
        return storeLog(record, read, record.trace ? undefined : (version ?? (await readVersion(record.versionID))), refuse);
      })();
    }

    function storeLog(
      record: ImportRecord & { kind: 'evaluation' },
      agent: AgentRecord | DeletedAgentRecord | undefined,
      version: VersionRecord | undefined,
      refuse: (message: string) => never,
    ): Outcome {
      // a change feed sends an agent where it last changed, after logs of its earlier versions
      const agentLater = merging && !record.trace && !agent;
      if (!agentLater && agent?.userID !== userID) refuse(`evaluation "${record.reqID}": its agent "${record.agentID}" must come on a line before it`);
      if (!record.trace) {
        if (version?.userID !== userID || version.versionOf !== record.agentID) {
          refuse(`evaluation "${record.reqID}": its version "${record.versionID}" of agent "${record.agentID}" must come on a line before it`);
        }
        const unknown = logRefusal(record, version);
        if (unknown) refuse(`evaluation "${record.reqID}": ${unknown} of its version "${record.versionID}"`);
      }
      const { kind: _, ...fields } = record;
      newLogs.set(record.reqID, { ...fields, userID });
      return 'imported';
    }

    function importFeedback(record: ImportRecord & { kind: 'feedback' }, refuse: (message: string) => never): Outcome {
      const stored = storedFeedback.get(record.id);
      if (stored) {
        if (stored.userID !== userID) refuse(elsewhere('feedback', record.id));
        if (same(feedbackLine(stored), record)) return 'unchanged';
        refuse(`feedback "${record.id}" differs from the stored feedback with that id`);
      }
      const log = newLogs.get(record.evaluationLog) ?? storedLogs.get(record.evaluationLog);
      if (!log) refuse(`feedback "${record.id}": its evaluation "${record.evaluationLog}" must come on a line before it`);
      const held = feedbackHeld.get(record.evaluationLog) ?? 0;
      if (held >= MAX_FEEDBACK_PER_EVALUATION) return fullLog(record.evaluationLog, merging, refuse);
      feedbackHeld.set(record.evaluationLog, held + 1);
      fedAgents.add(log.agentID);
      const { kind: _, ...fields } = record;
      const feedback: FeedbackRecord = { ...fields, userID, ...(merging ? { merged: true as const } : {}) };
      newFeedback.push(feedback);
      storedFeedback.set(record.id, feedback);
      return 'imported';
    }

    async function importDefinition(record: Exclude<ImportRecord, { kind: 'evaluation' | 'feedback' }>, refuse: (message: string) => never): Promise<Outcome> {
      switch (record.kind) {
        case 'version': {
          const live = await db.versions.get(record.id);
          const stored = live ?? (await db.retiredVersions.get(record.id));
          if (stored) {
            if (stored.userID !== userID) refuse(elsewhere('version', record.id));
            // a version stored retired whose agent the file still has live was deleted since: keep that
            if (merging ? sameVersion(stored, record) : same({ ...versionLine(stored, !live), retired: record.retired }, record)) return 'unchanged';
            refuse(`version "${record.id}" differs from the stored version with that id`);
          }
          const { kind: _, retired, ...fields } = record;
          const version: VersionRecord = { ...fields, userID };
          const agent = (await db.agents.get(record.versionOf)) ?? (await db.deletedAgents.get(record.versionOf));
          if ((await ownerOf(record.versionOf, agent)) !== userID) refuse(elsewhere('agent', record.versionOf));
          if (merging) {
            // numbered here in the order versions arrive: each replica numbers its own
            const live = agent && 'latestVersion' in agent ? agent : undefined;
            if (!live && (agent || retired)) {
              await db.retiredVersions.add(version);
            } else {
              const seq = live ? live.versionCount : ((await versionsOf(db, record.versionOf).last())?.seq ?? -1) + 1;
              await db.versions.add({ ...version, seq });
              if (live) await putAgent(db, { ...live, versionCount: seq + 1 });
            }
            return 'imported';
          }
          if (agent && 'latestVersion' in agent && record.seq >= agent.versionCount) refuse(numberedPast(agent.id, agent.versionCount, record.id, record.seq));
          if (retired || (agent && !('latestVersion' in agent))) {
            await db.retiredVersions.add(version);
          } else {
            if ((await db.versions.where('[versionOf+seq]').equals([record.versionOf, record.seq]).count()) > 0) {
              refuse(`agent "${record.versionOf}" already has a version numbered ${record.seq} here, not "${record.id}"`);
            }
            await db.versions.add(version);
          }
          return 'imported';
        }
        case 'agent': {
          const stored = await db.agents.get(record.id);
          if (merging) return mergeAgent(record, stored, refuse);
          if (stored) {
            if (stored.userID !== userID) refuse(elsewhere('agent', record.id));
            if (same(agentLine(stored), record)) return 'unchanged';
            // updated here since the backup was made: the file's latest version is an older one of it
            const filed = await db.versions.get(record.latestVersion);
            if (filed?.versionOf === record.id && filed.userID === userID && stored.versionCount >= record.versionCount) return 'unchanged';
            refuse(`agent "${record.id}" differs from the stored agent with that id`);
          }
          const tombstone = await db.deletedAgents.get(record.id);
          if (tombstone) {
            if (tombstone.userID !== userID) refuse(elsewhere('agent', record.id));
            return 'unchanged'; // deleted here since the backup was made
          }
          const latest = await db.versions.get(record.latestVersion);
          if (latest?.versionOf !== record.id || latest.userID !== userID) {
            refuse(`agent "${record.id}": its latest version "${record.latestVersion}" must come on a line before it`);
          }
          // the agent answers with its own definition and logs its latest version as the one that ran
          if (canonical(definitionOf(latest)) !== canonical(definitionOf(record))) {
            refuse(`agent "${record.id}" differs from its latest version "${record.latestVersion}"; an agent is defined as its latest version is`);
          }
          const past = await db.versions.where('[versionOf+seq]').between([record.id, record.versionCount], [record.id, Dexie.maxKey]).first();
          if (past) refuse(countNotAbove(record.id, record.versionCount, past.id, past.seq));
          const { kind: _, ...fields } = record;
          await putAgent(db, { ...fields, userID }, { add: true });
          return 'imported';
        }
        case 'deletion': {
          const live = await db.agents.get(record.id);
          if (live) {
            if (live.userID !== userID) refuse(elsewhere('agent', record.id));
            if (!merging) refuse(`agent "${record.id}" is deleted in the backup but not here; DELETE /agent/${record.id} first if it should go`);
            await db.agents.delete(record.id);
            await db.heads.delete(record.id);
          }
          const stored = await db.deletedAgents.get(record.id);
          if (stored) {
            if (stored.userID !== userID) refuse(elsewhere('agent', record.id));
            // two replicas deleted it: the earlier deletion stands everywhere
            if (!merging || !laterThan(stored.deletedAt, record.deletedAt)) return 'unchanged';
            await db.deletedAgents.put({ ...stored, deletedAt: record.deletedAt });
            return 'imported';
          }
          if ((await ownerOf(record.id, live)) !== userID) refuse(elsewhere('agent', record.id));
          if (merging) {
            const versions = await versionsOf(db, record.id).toArray();
            await db.retiredVersions.bulkAdd(versions);
            await db.versions.bulkDelete(versions.map((version) => version.id));
          }
          await db.deletedAgents.add({ id: record.id, userID, deletedAt: record.deletedAt });
          return 'imported';
        }
      }
    }
  }
}
