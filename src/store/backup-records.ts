// How stored records become the lines of a backup, and the rules both stores import them by.
import type { BackupRecord } from '../schema/backup.js';
import { ApiError } from '../schema/errors.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from './records.js';

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
  incoming.updatedAt > stored.updatedAt || (incoming.updatedAt === stored.updatedAt && incoming.latestVersion > stored.latestVersion);

export const definitionOf = ({ name, inputs, outputs, rules, performance, operators }: Omit<VersionRecord, 'parsed_rules'> | ImportRecord & { kind: 'agent' }) =>
  ({ name, inputs, outputs, rules, performance, operators });

/**
 * A name a log uses that its version does not define, said as "input "x" is not an input", or
 * undefined: GET /evaluation/:id recomputes the log's trace from that version.
 */
export function nameNotIn(log: Pick<EvaluationRecord, 'input' | 'crisp' | 'returned'>, version: VersionRecord): string | undefined {
  const input = Object.keys(log.input).find((name) => !Object.hasOwn(version.inputs, name));
  if (input !== undefined) return `input "${input}" is not an input`;
  const output = [...Object.keys(log.crisp), ...Object.keys(log.returned ?? {})].find((name) => !Object.hasOwn(version.outputs, name));
  return output === undefined ? undefined : `output "${output}" is not an output`;
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
