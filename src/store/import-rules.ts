// The one procedure by which a store takes backup records (POST /import) or another replica's
// records (sync): what is refused, what counts as already stored, what is written. Each store
// gives it its reads and writes (ImportTarget) inside one transaction; the decisions are here.
import { range } from '../engine/variables.js';
import { NARROWEST_SPREAD } from '../learn/policy.js';
import type { BackupRecord } from '../schema/backup.js';
import { laterThan } from '../schema/dates.js';
import { ApiError } from '../schema/errors.js';
import { feedbackFull, MAX_FEEDBACK_PER_EVALUATION } from '../schema/feedback.js';
import { agentLine, canonical, evaluationLine, feedbackLine, versionLine, type ImportRecord, type VersionLine } from './backup-records.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from './records.js';

/**
 * How records from elsewhere are stored. `restore` (POST /import): a backup of this account,
 * which must agree with what is stored. `merge` (sync, docs/SYNC.md): records of another replica
 * of the account, merged by sync's rules: versions are numbered here in the order they arrive,
 * the agent whose latest version was set last wins, a deletion wins over everything.
 */
export type ImportMode = 'restore' | 'merge';

/** What became of one record: stored, or found stored as it is. */
export type Outcome = 'imported' | 'unchanged';

/** What an import or a merge stored: its counts, and the agents whose evaluations got new feedback (news for autopilot). */
export interface Stored {
  imported: number;
  unchanged: number;
  fedAgents: string[];
}

/** A stored version and whether it is retired (its agent was deleted). */
export interface StoredVersion {
  version: VersionRecord;
  retired: boolean;
}

/**
 * A store's reads and writes for one import, inside its read-write transaction. Reads find
 * records whoever owns them (the procedure refuses another account's ids); writes store them.
 */
export interface ImportTarget {
  /** The agent `id`, live or deleted (its tombstone). */
  readAgent(id: string): Promise<AgentRecord | DeletedAgentRecord | undefined>;
  /**
   * The agents `ids` stored, live or deleted, and the owners of the versions of those neither is
   * stored for: deletions come by the thousand, and one read each held PGlite's one connection for
   * seconds.
   */
  readAgents(ids: readonly string[]): Promise<{ agents: Array<AgentRecord | DeletedAgentRecord>; versionOwners: Map<string, string> }>;
  readVersion(id: string): Promise<StoredVersion | undefined>;
  /** Who owns the versions of agent `id` when neither it nor its tombstone is stored (a delete on a full disk leaves that). */
  versionOwner(agentID: string): Promise<string | undefined>;
  /** A version of agent `agentID` numbered `seq` or above, which a next version of it would collide with. */
  versionFrom(agentID: string, seq: number): Promise<{ id: string; seq: number } | undefined>;
  /** Whether a new version of agent `agentID` numbered `seq` would take a number already stored. */
  numberTaken(agentID: string, seq: number, retired: boolean): Promise<boolean>;
  /**
   * The number a version of agent `agentID` from another replica takes here when its agent is not
   * live here (`seq` is its number there): one past those stored, as far as the store numbers them.
   */
  numberHere(agentID: string, seq: number, retired: boolean): Promise<number>;
  /**
   * The caller's stored logs among `reqIDs`, the stored feedback among `feedbackIDs` (anyone's),
   * and how many feedback records each of those logs holds.
   */
  readStored(
    reqIDs: readonly string[],
    feedbackIDs: readonly string[],
  ): Promise<{ logs: EvaluationRecord[]; feedback: FeedbackRecord[]; feedbackHeld: Map<string, number> }>;
  addVersion(version: VersionRecord, retired: boolean): Promise<void>;
  putAgent(agent: AgentRecord, added: boolean): Promise<void>;
  /** Takes the live agent `id` away (its tombstone is written next). */
  removeAgent(id: string): Promise<void>;
  retireVersionsOf(agentID: string): Promise<void>;
  putTombstone(tombstone: DeletedAgentRecord, added: boolean): Promise<void>;
  /**
   * Writes the new logs and feedback, at the end (feedback later in a batch may name those logs),
   * and whatever else the store put off to write a batch's lines in a few statements.
   */
  addLogsAndFeedback(logs: EvaluationRecord[], feedback: FeedbackRecord[]): Promise<void>;
}

const withoutParsedRules = (record: ImportRecord | VersionLine) => {
  const { parsed_rules: _, ...line } = record as ImportRecord & { parsed_rules?: unknown };
  return line;
};

/** Whether `record` is the stored record `stored`, as a backup line holds it. */
export const same = (stored: BackupRecord, record: ImportRecord) => canonical(stored) === canonical(withoutParsedRules(record));

/** A version from another replica is the stored one if all but its number here and retirement agree. */
export const sameVersion = (stored: VersionRecord, record: VersionLine) =>
  canonical({ ...versionLine(stored, record.retired), seq: record.seq }) === canonical(withoutParsedRules(record));

/**
 * Sync's rule for an agent two replicas changed (docs/SYNC.md, "Conflicts"): the state whose
 * latest version was set last (`updatedAt`, then the version id) wins, everywhere alike.
 */
export const supersedes = (incoming: Pick<AgentRecord, 'updatedAt' | 'latestVersion'>, stored: Pick<AgentRecord, 'updatedAt' | 'latestVersion'>) =>
  laterThan(incoming.updatedAt, stored.updatedAt) ||
  (Date.parse(incoming.updatedAt) === Date.parse(stored.updatedAt) && incoming.latestVersion > stored.latestVersion);

type Defined = Pick<VersionRecord, 'name' | 'inputs' | 'outputs' | 'rules' | 'performance' | 'operators'>;

/** Whether an agent and a version define the same agent: an agent is defined as its latest version is. */
const sameDefinition = (a: Defined, b: Defined) =>
  canonical({ name: a.name, inputs: a.inputs, outputs: a.outputs, rules: a.rules, performance: a.performance, operators: a.operators }) ===
  canonical({ name: b.name, inputs: b.inputs, outputs: b.outputs, rules: b.rules, performance: b.performance, operators: b.operators });

/** The highest density one output's draw can have: autopilot's narrowest spread, half its mass cut off at an end of the range. */
const MAX_DRAW_DENSITY = 1 / (NARROWEST_SPREAD * Math.sqrt(2 * Math.PI)) / 0.5;

/**
 * Why a log cannot be stored as a log of `version`, or undefined. Its names must be the version's
 * (GET /evaluation/:id recomputes its trace from that version); its answers must lie in each
 * output's range, as the engine's and autopilot's draws do; a density comes only with the answers
 * it was drawn for and no higher than autopilot's draws make it. Learning pools every replica's
 * logs: a forged crisp of 1e308 or a density of any size would skew every estimate.
 */
export function logRefusal(
  log: Pick<EvaluationRecord, 'input' | 'crisp' | 'returned' | 'density'>,
  version: Pick<VersionRecord, 'inputs' | 'outputs'>,
): string | undefined {
  const input = Object.keys(log.input).find((name) => !Object.hasOwn(version.inputs, name));
  if (input !== undefined) return `input "${input}" is not an input`;
  for (const [what, outputs] of [
    ['crisp', log.crisp],
    ['returned', log.returned ?? {}],
  ] as const) {
    for (const [name, value] of Object.entries(outputs)) {
      if (!Object.hasOwn(version.outputs, name)) return `output "${name}" is not an output`;
      const [min, max] = range(version.outputs[name]!);
      if (!(value >= min && value <= max)) return `${what} "${name}" is ${value}, outside the output's range [${min}, ${max}]`;
    }
  }
  if (log.density !== undefined) {
    const drawn = Object.keys(log.returned ?? {}).length;
    if (drawn === 0) return 'a density comes only with the "returned" answers it was drawn for';
    if (log.density > MAX_DRAW_DENSITY ** drawn)
      return `density ${log.density} is above what autopilot's draws of ${drawn} output${drawn === 1 ? '' : 's'} can have (${MAX_DRAW_DENSITY ** drawn})`;
  }
  return undefined;
}

/**
 * Why a version numbered `seq` cannot join agent `agentID`, which has `count` versions here: the
 * next PUT numbers its version `count` (versions are numbered 0, 1, … in commit order).
 */
const numberedPast = (agentID: string, count: number, id: string, seq: number) =>
  `agent "${agentID}" has ${count} version${count === 1 ? '' : 's'} here, numbered below ${count}; version "${id}" numbered ${seq} is from a later state of it: import into an account without it, or delete it here first`;

/** Why an agent whose version `id` is numbered `seq` cannot have `count` versions. */
const countNotAbove = (agentID: string, count: number, id: string, seq: number) =>
  `agent "${agentID}": versionCount ${count} must be above the number of each of its versions (version "${id}" is numbered ${seq})`;

const elsewhere = (what: string, id: string) =>
  `${what} "${id}" belongs to another account here; a backup keeps its ids, so import it into the account it came from or into another database`;

const latestFirst = (record: { id: string; latestVersion: string }) =>
  `agent "${record.id}": its latest version "${record.latestVersion}" must come on a line before it`;
const notItsLatest = (record: { id: string; latestVersion: string }) =>
  `agent "${record.id}" differs from its latest version "${record.latestVersion}"; an agent is defined as its latest version is`;
const differs = (what: string, id: string) => `${what} "${id}" differs from the stored ${what} with that id`;

const isLive = (agent: AgentRecord | DeletedAgentRecord | undefined): agent is AgentRecord => agent !== undefined && 'latestVersion' in agent;

/**
 * Stores `lines` in `userID`'s account by `mode`'s rules, through `target` (inside one read-write
 * transaction): all of them or, when one is refused (a ValidationError naming its line), none. A
 * record already stored as it is counts as unchanged, so importing the same records twice changes
 * nothing; one that contradicts what is stored, or names another account's id, is refused.
 *
 * Most lines are logs and feedback naming a few agents and versions: those are read once each and
 * remembered (with what this import writes), and the logs and feedback already stored are read in
 * one query each. A log or feedback whose agent and version are remembered is decided without
 * awaiting anything: IndexedDB (through Dexie) keeps its transaction across only so many awaits in
 * a row that touch no database, and a batch of logs already stored would be nothing else.
 */
export async function importLines(
  target: ImportTarget,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  mode: ImportMode,
): Promise<Stored> {
  const merging = mode === 'merge';
  const agents = new Map<string, AgentRecord | DeletedAgentRecord | undefined>();
  const versions = new Map<string, StoredVersion>();
  // only what was found is remembered: a later line may write what was missing
  const readAgent = async (id: string) => {
    if (agents.has(id)) return agents.get(id);
    const agent = await target.readAgent(id);
    if (agent) agents.set(id, agent);
    return agent;
  };
  const readVersion = async (id: string) => {
    const version = versions.get(id) ?? (await target.readVersion(id));
    if (version) versions.set(id, version);
    return version;
  };
  const logIDs = lines.flatMap(({ record }) => (record.kind === 'evaluation' ? [record.reqID] : record.kind === 'feedback' ? [record.evaluationLog] : []));
  const feedbackIDs = lines.flatMap(({ record }) => (record.kind === 'feedback' ? [record.id] : []));
  const stored = await target.readStored([...new Set(logIDs)], feedbackIDs);
  const logs = new Map(stored.logs.map((log) => [log.reqID, log]));
  const feedback = new Map(stored.feedback.map((record) => [record.id, record]));
  const { feedbackHeld } = stored;
  const newLogs: EvaluationRecord[] = [];
  const newFeedback: FeedbackRecord[] = [];
  const fedAgents = new Set<string>();
  // the agents the batch's deletions name, read at once: nothing stored is remembered as such
  const deletionIDs = [...new Set(lines.flatMap(({ record }) => (record.kind === 'deletion' ? [record.id] : [])))];
  const versionOwners = new Map<string, string | undefined>();
  if (deletionIDs.length > 0) {
    const read = await target.readAgents(deletionIDs);
    for (const id of deletionIDs) {
      agents.set(id, undefined);
      versionOwners.set(id, read.versionOwners.get(id));
    }
    for (const agent of read.agents) agents.set(agent.id, agent);
  }
  // whose agent `id` is: its record's or tombstone's owner, else its versions' owner; the caller's when nothing of it is stored
  const ownerOf = async (id: string, agent: { userID: string } | undefined) =>
    agent?.userID ?? (versionOwners.has(id) ? versionOwners.get(id) : await target.versionOwner(id)) ?? userID;

  const outcomes = await importEach(lines, importOne);
  await target.addLogsAndFeedback(newLogs, newFeedback);
  return { ...outcomes, fedAgents: [...fedAgents] };

  function importOne(record: ImportRecord, refuse: (message: string) => never): Outcome | Promise<Outcome> {
    switch (record.kind) {
      case 'evaluation':
        return importLog(record, refuse);
      case 'feedback':
        return importFeedback(record, refuse);
      case 'version':
        return importVersion(record, refuse);
      case 'agent':
        return merging ? mergeAgent(record, refuse) : restoreAgent(record, refuse);
      case 'deletion':
        return importDeletion(record, refuse);
    }
  }

  function importLog(record: ImportRecord & { kind: 'evaluation' }, refuse: (message: string) => never): Outcome | Promise<Outcome> {
    const storedLog = logs.get(record.reqID);
    if (storedLog) {
      if (same(evaluationLine(storedLog), record)) return 'unchanged';
      refuse(differs('evaluation', record.reqID));
    }
    const agent = agents.get(record.agentID);
    const version = versions.get(record.versionID);
    if (agent && (record.trace || version)) return storeLog(record, agent, version, refuse);
    return (async () =>
      storeLog(record, agent ?? (await readAgent(record.agentID)), record.trace ? undefined : (version ?? (await readVersion(record.versionID))), refuse))();
  }

  function storeLog(
    record: ImportRecord & { kind: 'evaluation' },
    agent: AgentRecord | DeletedAgentRecord | undefined,
    version: StoredVersion | undefined,
    refuse: (message: string) => never,
  ): Outcome {
    // a change feed sends an agent where it last changed, after logs of its earlier versions
    const agentLater = merging && !record.trace && !agent;
    if (!agentLater && agent?.userID !== userID) refuse(`evaluation "${record.reqID}": its agent "${record.agentID}" must come on a line before it`);
    if (!record.trace) {
      if (version?.version.userID !== userID || version.version.versionOf !== record.agentID) {
        refuse(`evaluation "${record.reqID}": its version "${record.versionID}" of agent "${record.agentID}" must come on a line before it`);
      }
      const unknown = logRefusal(record, version.version);
      if (unknown) refuse(`evaluation "${record.reqID}": ${unknown} of its version "${record.versionID}"`);
    }
    const { kind: _, ...fields } = record;
    const log: EvaluationRecord = { ...fields, userID };
    newLogs.push(log);
    logs.set(record.reqID, log);
    return 'imported';
  }

  function importFeedback(record: ImportRecord & { kind: 'feedback' }, refuse: (message: string) => never): Outcome {
    const storedFeedback = feedback.get(record.id);
    if (storedFeedback) {
      if (storedFeedback.userID !== userID) refuse(elsewhere('feedback', record.id));
      if (same(feedbackLine(storedFeedback), record)) return 'unchanged';
      refuse(differs('feedback', record.id));
    }
    const log = logs.get(record.evaluationLog);
    if (!log) refuse(`feedback "${record.id}": its evaluation "${record.evaluationLog}" must come on a line before it`);
    const held = feedbackHeld.get(record.evaluationLog) ?? 0;
    if (held >= MAX_FEEDBACK_PER_EVALUATION) {
      // a backup's is refused; a merge leaves it out, since replicas that each kept to the bound
      // may together pass it, and a refusal would stop their sync for good
      if (!merging) refuse(feedbackFull(record.evaluationLog));
      return 'unchanged';
    }
    feedbackHeld.set(record.evaluationLog, held + 1);
    fedAgents.add(log.agentID);
    const { kind: _, ...fields } = record;
    const added: FeedbackRecord = { ...fields, userID };
    newFeedback.push(added);
    feedback.set(record.id, added);
    return 'imported';
  }

  async function importVersion(record: ImportRecord & { kind: 'version' }, refuse: (message: string) => never): Promise<Outcome> {
    const storedVersion = await readVersion(record.id);
    if (storedVersion) {
      const { version, retired } = storedVersion;
      if (version.userID !== userID) refuse(elsewhere('version', record.id));
      // a version stored retired whose agent the file still has live was deleted since: keep that
      if (merging ? sameVersion(version, record) : same({ ...versionLine(version, retired), retired: record.retired }, record)) return 'unchanged';
      refuse(differs('version', record.id));
    }
    const agent = await readAgent(record.versionOf);
    if ((await ownerOf(record.versionOf, agent)) !== userID) refuse(elsewhere('agent', record.versionOf));
    const live = isLive(agent) ? agent : undefined;
    const { kind: _, retired: filedRetired, ...fields } = record;
    // a version of an agent deleted here is stored retired; a merged one joins its agent when live here
    const retired = merging ? !live && (agent !== undefined || filedRetired) : filedRetired || (agent !== undefined && !live);
    let seq = record.seq;
    if (merging) {
      // numbered here in the order versions arrive: each replica numbers its own
      seq = live ? live.versionCount : await target.numberHere(record.versionOf, record.seq, retired);
    } else {
      if (live && record.seq >= live.versionCount) refuse(numberedPast(live.id, live.versionCount, record.id, record.seq));
      if (await target.numberTaken(record.versionOf, record.seq, retired)) {
        refuse(`agent "${record.versionOf}" already has a version numbered ${record.seq} here, not "${record.id}"`);
      }
    }
    const version: VersionRecord = { ...fields, seq, userID };
    await target.addVersion(version, retired);
    versions.set(record.id, { version, retired });
    if (merging && live) await putAgent({ ...live, versionCount: seq + 1 }, false);
    return 'imported';
  }

  async function putAgent(agent: AgentRecord, added: boolean) {
    await target.putAgent(agent, added);
    agents.set(agent.id, agent);
  }

  /** The agent's latest version, which must be stored live, in this account, defining it as the agent does. */
  async function checkLatest(record: ImportRecord & { kind: 'agent' }, refuse: (message: string) => never) {
    const latest = await readVersion(record.latestVersion);
    if (!latest || latest.retired || latest.version.versionOf !== record.id || latest.version.userID !== userID) refuse(latestFirst(record));
    // the agent answers with its own definition and logs its latest version as the one that ran
    if (!sameDefinition(latest.version, record)) refuse(notItsLatest(record));
  }

  async function restoreAgent(record: ImportRecord & { kind: 'agent' }, refuse: (message: string) => never): Promise<Outcome> {
    const agent = await readAgent(record.id);
    if (agent && agent.userID !== userID) refuse(elsewhere('agent', record.id));
    if (isLive(agent)) {
      if (same(agentLine(agent), record)) return 'unchanged';
      // updated here since the backup was made: the file's latest version is an older one of it
      const filed = await readVersion(record.latestVersion);
      if (filed && !filed.retired && filed.version.versionOf === record.id && filed.version.userID === userID && agent.versionCount >= record.versionCount) {
        return 'unchanged';
      }
      refuse(differs('agent', record.id));
    }
    if (agent) return 'unchanged'; // deleted here since the backup was made
    await checkLatest(record, refuse);
    const past = await target.versionFrom(record.id, record.versionCount);
    if (past) refuse(countNotAbove(record.id, record.versionCount, past.id, past.seq));
    const { kind: _, ...fields } = record;
    await putAgent({ ...fields, userID }, true);
    return 'imported';
  }

  /** An agent from another replica: stored if new here, taken if its latest version was set later (sync's rule). */
  async function mergeAgent(record: ImportRecord & { kind: 'agent' }, refuse: (message: string) => never): Promise<Outcome> {
    const agent = await readAgent(record.id);
    if (agent && agent.userID !== userID) refuse(elsewhere('agent', record.id));
    if (agent && !isLive(agent)) return 'unchanged'; // a deletion wins
    if (agent && !supersedes(record, agent)) return 'unchanged';
    await checkLatest(record, refuse);
    const { kind: _, versionCount: _theirs, ...fields } = record;
    const versionCount = agent ? agent.versionCount : await target.numberHere(record.id, record.versionCount, false);
    await putAgent({ ...fields, userID, versionCount }, !agent);
    return 'imported';
  }

  async function importDeletion(record: ImportRecord & { kind: 'deletion' }, refuse: (message: string) => never): Promise<Outcome> {
    const agent = await readAgent(record.id);
    if (agent && agent.userID !== userID) refuse(elsewhere('agent', record.id));
    if (agent && !isLive(agent)) {
      // two replicas deleted it: the earlier deletion stands everywhere
      if (!merging || !laterThan(agent.deletedAt, record.deletedAt)) return 'unchanged';
      const tombstone = { ...agent, deletedAt: record.deletedAt };
      await target.putTombstone(tombstone, false);
      agents.set(record.id, tombstone);
      return 'imported';
    }
    if (agent) {
      if (!merging) refuse(`agent "${record.id}" is deleted in the backup but not here; DELETE /agent/${record.id} first if it should go`);
      await target.removeAgent(record.id);
    } else if ((await ownerOf(record.id, undefined)) !== userID) {
      refuse(elsewhere('agent', record.id));
    }
    if (merging) {
      await target.retireVersionsOf(record.id);
      for (const [id, stored] of versions) if (stored.version.versionOf === record.id) versions.set(id, { ...stored, retired: true });
    }
    const tombstone: DeletedAgentRecord = { id: record.id, userID, deletedAt: record.deletedAt };
    await target.putTombstone(tombstone, true);
    agents.set(record.id, tombstone);
    return 'imported';
  }
}

/**
 * Runs `importOne` on each line in order, counting what it imported and what was already stored;
 * `refuse` throws the ValidationError that names the line.
 */
async function importEach(
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
