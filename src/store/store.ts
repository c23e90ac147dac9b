import { ApiError } from '../schema/errors.js';
import type { AgentBody } from '../schema/agent.js';
import type { BackupRecord } from '../schema/backup.js';
import type { RecordCounts } from '../schema/storage.js';
import type { RetentionPolicy } from '../schema/retention.js';
import type { AutopilotLine } from '../schema/sync.js';
import type { ImportRecord } from './backup-records.js';
import type { Stored } from './import-rules.js';
import type { LearningLog, LearningLogQuery } from './learning-log.js';
import type { AccountRecord, AgentRecord, AutopilotRecord, EvaluationRecord, FeedbackRecord, Provenance, VersionRecord } from './records.js';

/** A Conflict over autopilot's state: another writer stored it since it was read, so reading it again and retrying can succeed. */
export class StaleAutopilot extends ApiError {
  constructor(agentID: string) {
    super('Conflict', `autopilot's state of agent "${agentID}" was written meanwhile; read it again`);
  }
}

/** addCandidateVersion's choice: the autopilot state to store with the new version, or undefined for neither. */
export type CandidateDecision = (stored: AutopilotRecord | undefined, version: VersionRecord) => AutopilotRecord | undefined;
/** What addCandidateVersion stored. */
export interface Candidate {
  version: VersionRecord;
  state: AutopilotRecord;
}

/** A stored evaluation and, unless its trace is stored, the version to recompute the trace from. */
export interface StoredEvaluation {
  evaluation: EvaluationRecord;
  version: VersionRecord | undefined;
}

/** Where a listing of evaluations stopped: the last log it returned or examined. */
export interface EvaluationPosition {
  /** the log's group record */
  seq: number;
  /** its place in the group when listed */
  index: number;
  reqID: string;
}

/**
 * Logs a listing examines at most per request: with a filter that skips most logs, a page can end
 * short of `limit`, with a cursor to go on from; no request holds the database for long.
 */
export const LIST_SCAN_LIMIT = 10_000;

export interface EvaluationQuery {
  /** 1..1000 entries */
  limit: number;
  /** go on after this position (from the previous page's `next`) */
  after?: EvaluationPosition;
  /** only logs of this version */
  versionID?: string;
  /** only logs with (true) or without (false) feedback */
  feedback?: boolean;
}

export interface EvaluationPage {
  /** newest first, each log with its feedback, oldest first */
  entries: Array<{ evaluation: EvaluationRecord; feedback: FeedbackRecord[] }>;
  /** where the next page starts, or null when there is nothing older */
  next: EvaluationPosition | null;
}

/** What a change feed sends: backup records, and autopilot's state of an agent (from servers only). */
export type SyncRecord = BackupRecord | AutopilotLine;

/** A page of a change feed: the records, where the next page starts, and whether there is more now. */
export interface ChangePage {
  records: SyncRecord[];
  /** null when nothing was ever read */
  checkpoint: string | null;
  more: boolean;
}

/**
 * Everything the service keeps, behind one interface: IndexedDB through Dexie in a browser
 * (`DexieStore`), PostgreSQL or PGlite on a server (`fuzzbox/node`). The handler, the engine and
 * learning see only this.
 *
 * Every implementation keeps the same promises: each method is one transaction (it changes
 * everything it says or nothing); a method that names an agent or an evaluation throws
 * `ApiError` NotFound when it is missing or another account's, and Gone for the owner's deleted
 * agent; versions of one agent are numbered in commit order, whoever writes them; only a key's
 * SHA-256 is ever stored.
 */
export interface FuzzboxStore {
  addAccount(account: AccountRecord): Promise<void>;
  findAccountByKeyHash(keyHash: string): Promise<AccountRecord | undefined>;

  listAgents(userID: string): Promise<AgentRecord[]>;
  readAgent(userID: string, id: string): Promise<AgentRecord>;
  /** The agent and its first version (origin "created" unless given), in one transaction. */
  createAgent(userID: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance): Promise<AgentRecord>;
  /** The new definition and a new version (origin "updated" unless given), in one transaction. */
  updateAgent(userID: string, id: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance): Promise<AgentRecord>;
  /**
   * As `updateAgent`, but only if the agent is still at version `basedOn` (else Conflict): an
   * optimization of a version someone has since replaced would silently undo their change.
   */
  updateAgentFrom(userID: string, id: string, basedOn: string, body: AgentBody, parsedRules: unknown[], provenance?: Provenance): Promise<AgentRecord>;
  /**
   * Autopilot's candidate, in one transaction: a new version that does not become the latest
   * (numbered like any other), and the agent's autopilot state that names it. `decide` gets the
   * state as stored and the version about to be added, and returns the state to store (over the
   * stored revision, as writeAutopilot), or undefined to store neither. Conflict if the agent is
   * no longer at `basedOn`, or if another writer stored the state meanwhile.
   */
  addCandidateVersion(
    userID: string,
    id: string,
    basedOn: string,
    body: AgentBody,
    parsedRules: unknown[],
    provenance: Provenance,
    decide: CandidateDecision,
  ): Promise<Candidate | undefined>;
  /** Makes an existing version of the agent its latest (definition included), only if it is still at `basedOn` (else Conflict). */
  promoteVersion(userID: string, id: string, versionID: string, basedOn: string): Promise<AgentRecord>;
  /** Removes the agent and leaves a tombstone; its logs stay readable. */
  deleteAgent(userID: string, id: string): Promise<void>;

  /** The agent's versions, oldest first. */
  listVersions(userID: string, agentID: string): Promise<VersionRecord[]>;
  readVersion(userID: string, id: string): Promise<VersionRecord>;

  /**
   * Stores the logs of one request, computed beforehand on version `versionID` of the caller's
   * agent, if that is still its latest version; false, writing nothing, when a PUT made a newer one
   * meanwhile (the caller evaluates again) or, in IndexedDB, the agent was deleted (the caller's
   * next read answers 410/404; other stores may throw Gone at once). Only reads and writes: no computation ever runs while
   * the transaction is open (docs/REST.md, "Cost of a request").
   */
  addEvaluations(userID: string, agentID: string, versionID: string, logs: EvaluationRecord[]): Promise<boolean>;
  readEvaluation(userID: string, reqID: string): Promise<StoredEvaluation>;
  /**
   * A page of the agent's evaluations, newest first; the agent may be deleted (its owner still
   * lists its logs). A page may end short of `limit` when filters skip many logs: `next` goes on.
   */
  listEvaluations(userID: string, agentID: string, query: EvaluationQuery): Promise<EvaluationPage>;
  /** Erases the evaluation's log and its feedback; it may belong to a deleted agent. Works on a full disk where the log is alone in its record. */
  deleteEvaluation(userID: string, reqID: string): Promise<void>;

  /** Feedback on the caller's evaluation; the store records its owner. */
  /** Resolves to the evaluation's agent, so autopilot checks it without reading the log again. */
  addFeedback(userID: string, feedback: Omit<FeedbackRecord, 'userID' | 'seq'>): Promise<string>;
  /** Feedback on the caller's evaluation, oldest first. */
  listFeedback(userID: string, reqID: string): Promise<FeedbackRecord[]>;

  /**
   * What learning reads of the agent's log (docs/LEARNING.md, "What learning reads"): the newest
   * `query.most` evaluations whose feedback carries every metric asked, as columns, and each
   * version's feedback summarised over the whole log; read in pages of a bounded size, each its
   * own short transaction, so memory stays bounded and no read holds the store long.
   */
  readLearningLog(userID: string, agentID: string, query: LearningLogQuery): Promise<LearningLog>;
  /** How many evaluations each version of the agent answered. */
  countEvaluationsByVersion(userID: string, agentID: string): Promise<Map<string, number>>;
  /** Autopilot's state for the agent, undefined if none was ever written. */
  readAutopilot(userID: string, agentID: string): Promise<AutopilotRecord | undefined>;
  /** Only over the revision before `record.revision` (AutopilotRecord), else Conflict. */
  writeAutopilot(userID: string, record: AutopilotRecord): Promise<void>;

  /**
   * The caller's account as backup records, in an order where each refers only to records before
   * it (versions, their agent; retired versions, tombstones; logs; feedback), read a bounded page
   * per transaction so memory stays flat and no read holds the store long.
   */
  exportRecords(userID: string): AsyncIterable<BackupRecord>;
  /**
   * Stores backup records in the caller's account in one transaction, all or none: a record
   * already stored as it is counts as unchanged; one that contradicts what is stored, refers to
   * a record not stored (nor earlier in `lines`) or names another account's id is refused with a
   * ValidationError naming its line.
   */
  importRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>): Promise<Stored>;

  /**
   * Sync: records of another replica of the account, merged by sync's rules (`ImportMode`
   * "merge") in one transaction, all or none; merging them again changes nothing. `replica`
   * names where they come from (its pulls leave them out).
   */
  mergeRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>, replica?: string): Promise<Stored>;

  /**
   * Drops the evaluation logs (of every account) that `policy` does not keep, with their
   * feedback, as of `now` (ms), in transactions of a bounded size; resolves to how many.
   */
  applyRetention(policy: RetentionPolicy, now: number): Promise<number>;

  /** How many records of each kind the caller's account holds. */
  countRecords(userID: string): Promise<RecordCounts>;

  close(): Promise<void>;
}

/**
 * Sync, the server's side (docs/SYNC.md): the store that replicas pull from. Only the PostgreSQL
 * store keeps a change feed; a browser syncs with a server, not with another browser.
 */
export interface ChangeFeed {
  /**
   * Up to `limit` of the account's records in the order they last changed, after `checkpoint`
   * (from the start without one), leaving out the versions, logs and feedback that `replica` pushed.
   */
  readChanges(userID: string, checkpoint: string | undefined, limit: number, replica?: string): Promise<ChangePage>;
}

/** Whether `store` keeps a change feed replicas can pull from. */
export function hasChangeFeed(store: FuzzboxStore): store is FuzzboxStore & ChangeFeed {
  return typeof (store as Partial<ChangeFeed>).readChanges === 'function';
}
