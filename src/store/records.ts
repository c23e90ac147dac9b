import type { Outputs, Trace } from '../engine/types.js';
import type { AgentBody, VersionOrigin } from '../schema/agent.js';
import type { AutopilotGain, Trial } from '../schema/autopilot.js';

/** inputs, outputs, rules, performance and operators (each absent when the agent has none), as the REST interface sends them */
type Definition = Pick<AgentBody, 'inputs' | 'outputs' | 'rules' | 'performance' | 'operators'>;

// What IndexedDB holds. Response shapes live in src/schema; these add the fields only the
// service needs (owner, ordering counters, key hashes) and leave out what can be recomputed.

export interface AccountRecord {
  userID: string;
  name: string | null;
  /** hex SHA-256 of the API key; the key itself is never stored */
  keyHash: string;
  createdAt: string;
}

export interface AgentRecord extends Definition {
  id: string;
  userID: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  latestVersion: string;
  /** how many versions were written; the next version's `seq` */
  versionCount: number;
}

export interface VersionRecord extends Definition {
  id: string;
  versionOf: string;
  userID: string;
  name: string;
  parsed_rules: unknown[];
  createdAt: string;
  /** 0 for the version written by POST, then 1, 2, … in commit order */
  seq: number;
  /** why this version exists; absent on versions written before fuzzbox recorded it */
  origin?: VersionOrigin;
  /** what it rests on: the estimate that proposed it, the version it rolled back to (docs/LEARNING.md) */
  evidence?: Record<string, unknown>;
}

export interface Provenance {
  origin: VersionOrigin;
  evidence?: Record<string, unknown>;
}

/** One decided trial of a candidate version, stored as GET /agent/:id/autopilot answers it (schema/autopilot.ts). */
export type TrialRecord = Trial;

/** Autopilot's state for one agent: what a stopped worker needs to carry on. */
export interface AutopilotRecord {
  agentID: string;
  userID: string;
  /** default: on for an agent with `performance` */
  enabled: boolean;
  /**
   * How many times the record was written (absent: never by this version of fuzzbox, i.e. 0). A
   * write carries the stored revision plus one and is refused (Conflict) otherwise, so writers that
   * share a store (a person's switch, background steps in several processes or tabs) never undo
   * each other's writes unseen.
   */
  revision?: number;
  /** how many evaluations with feedback on the metrics the proposals so far have seen */
  usedFeedback: number;
  /**
   * The newest feedback the last proposal saw, as a position in the store's order of feedback
   * (LearningLog.feedbackSeq); absent before the first: what is new is what came after.
   */
  feedbackSeen?: number;
  /**
   * each output's spread for autopilot's draws, in shares of its range (learn/spread.ts), set with
   * each proposal; absent: WIDEST_SPREAD for every output
   */
  spread?: Record<string, number>;
  /** the version on trial: served to a share of evaluations while `basedOn` is the latest */
  candidate?: {
    versionID: string;
    basedOn: string;
    since: string;
    /**
     * the newest feedback when it was proposed (a position as `feedbackSeen`): the trial counts
     * only feedback after it; absent on records written before (they go by `since`)
     */
    seen?: number;
    definition: Pick<AgentBody, 'inputs' | 'outputs' | 'rules' | 'operators'>;
  };
  trials: TrialRecord[];
  /** what autopilot's adopted versions gained together, estimated after each adoption (docs/LEARNING.md, "What autopilot gained") */
  gain?: AutopilotGain;
}

/** Remembers a deleted agent so its id answers 410 to its owner (404 to everybody else). */
export interface DeletedAgentRecord {
  id: string;
  userID: string;
  deletedAt: string;
}

/** The trace of an evaluation without `crisp`, which every evaluation record keeps anyway. */
export type StoredTrace = Omit<Trace, 'crisp'>;

/**
 * One evaluation log: the input, the immutable version it ran on and the crisp result. The trace
 * is recomputed from the version on read (the engine is deterministic), from retiredVersions once
 * the agent is deleted. Stored inside a {@link LogGroupRecord}, never as a record of its own.
 */
export interface EvaluationRecord {
  reqID: string;
  userID: string;
  agentID: string;
  versionID: string;
  input: Record<string, number>;
  crisp: Outputs;
  /** what the app received when it asked to explore (`?explore=`) or autopilot varied it; absent otherwise */
  returned?: Outputs;
  /** autopilot's answers: the density `returned` was drawn with, in shares of each output's range */
  density?: number;
  createdAt: string;
  /** written in by a delete under schema version 1, which dropped the versions; never written since */
  trace?: StoredTrace;
}

/**
 * What a log holds beyond the fields its group shares; its own `createdAt` only where it differs
 * from its group's (the logs of requests stored together in one transaction: "Group commit").
 */
export type GroupedLog = Pick<EvaluationRecord, 'input' | 'crisp' | 'returned' | 'density' | 'trace'> & { createdAt?: string };

/**
 * Up to LOG_CHUNK logs of one request (a batch, or one evaluation as a group of one), or of the
 * requests on one agent version whose logs share a transaction ("Group commit"), as ONE record: IndexedDB costs a request to the browser process per record, so 4096 records take
 * ~750 ms in Chromium where a few records holding 4096 logs take ~20 ms; and bounded, so reading
 * or rewriting one log of a batch (a read, feedback, a delete) costs a chunk, not the batch.
 * `keys[i]` is `[userID, reqID]` of `logs[i]`. The multi-entry index on `idPrefixes` finds any one
 * of the caller's logs in one indexed get: a chunk of a request's logs has ids that differ only in
 * their last two digits (newEvaluationIDs), so one entry, not one per log (docs/REST.md, "Log groups").
 */
export interface LogGroupRecord {
  /** auto-increment: groups in the order they were stored (indexed with owner and agent) */
  seq?: number;
  userID: string;
  agentID: string;
  versionID: string;
  createdAt: string;
  keys: Array<[userID: string, reqID: string]>;
  /** `[userID, idPrefix(reqID)]` of the logs in `keys`, each once (schema version 10) */
  idPrefixes: Array<[userID: string, prefix: string]>;
  logs: GroupedLog[];
  /** merged from another replica by sync: never sent back to it (docs/SYNC.md) */
  merged?: true;
}

export interface FeedbackRecord {
  /** auto-increment; orders feedback of one evaluation oldest first */
  seq?: number;
  id: string;
  /** the evaluation's owner: an account's feedback is counted and exported without reading its logs */
  userID: string;
  evaluationLog: string;
  /**
   * IndexedDB (schema version 10 on): `seq` of the log group holding the evaluation, so a listing
   * reads the feedback of the groups it lists in one range read
   */
  logGroup?: number;
  data: Record<string, number>;
  createdAt: string;
  /** merged from another replica by sync: never sent back to it (docs/SYNC.md) */
  merged?: true;
}

/** How many evaluation logs and feedback an account holds, kept exact by every write (schema version 5). */
/**
 * What an evaluation's write checks of its agent: who owns it and its latest version. Kept by
 * every write of the agent, in the same transaction, so the write of logs locks this small table
 * and not `agents`, which every request on an agent reads (docs/REST.md, "Cost of a request").
 * No head: the agent was deleted (or never existed).
 */
export interface HeadRecord {
  agentID: string;
  userID: string;
  latestVersion: string;
}

export interface TallyRecord {
  userID: string;
  evaluations: number;
  feedback: number;
}

/**
 * What a replica has sent to its sync server so far (docs/SYNC.md, "Pushing"): logs and feedback
 * up to their tables' auto-increment keys, and each agent as it was when last acknowledged.
 */
export interface PushCursor {
  /** the last log group sent (`logGroups` key) */
  groups: number;
  /** the last feedback sent (`feedback` key) */
  feedback: number;
  /** agent id → `agentMark` of its state the server has */
  agents: Record<string, string>;
}

/** One replica's sync with one server for one account: its checkpoints, kept beside the records they cover. */
export interface SyncStateRecord {
  /** `${userID} ${url}` */
  key: string;
  userID: string;
  url: string;
  /** this replica's id, sent with its pulls and pushes: its pulls leave out what it pushed */
  replica: string;
  /** the server's checkpoint after the last pull stored; null before the first */
  pull: string | null;
  push: PushCursor;
  lastSync: string | null;
  lastError: string | null;
}
