import { ApiError } from '../../schema/errors.js';
import type { AgentBody } from '../../schema/agent.js';
import { feedbackFull, MAX_FEEDBACK_PER_EVALUATION } from '../../schema/feedback.js';
import { CREATED, newAgentRecord, ownAgent, redefined, snapshot, stillAt, UPDATED } from '../versions.js';
import { newId, timestamp } from '../ids.js';
import type {
  AccountRecord,
  AgentRecord,
  AutopilotRecord,
  Provenance,
  DeletedAgentRecord,
  EvaluationRecord,
  FeedbackRecord,
  VersionRecord,
} from '../records.js';
import type { RetentionPolicy } from '../../schema/retention.js';
import { latestValues, LearningLogBuilder, type LearningLog, type LearningLogQuery, type LoggedAnswer } from '../learning-log.js';
import {
  LIST_SCAN_LIMIT,
  StaleAutopilot,
  type Candidate,
  type ChangeFeed,
  type CandidateDecision,
  type ChangePage,
  type EvaluationPage,
  type EvaluationPosition,
  type EvaluationQuery,
  type FuzzboxStore,
  type StoredEvaluation,
} from '../store.js';
import { readChanges } from './changes.js';
import type { RecordCounts } from '../../schema/storage.js';
import type { BackupRecord } from '../../schema/backup.js';
import type { ImportRecord } from '../backup-records.js';
import { exportRecords, importRecords } from './backup.js';
import { AGENT, EVALUATION, FEEDBACK, insertAgentRow, present, updateAgentRow, VERSION } from './columns.js';
import { migrate } from './migrate.js';
import type { Queryable, SqlDatabase } from './sql.js';

/** Agents read per query while listing whose logs to sweep. */
const AGENT_PAGE = 256;
/**
 * Logs read per statement by readLearningLog: no read holds the database long. A page of 4,096
 * (each log with its feedback) took 230–520 ms on PGlite on a loaded machine, every other
 * request waiting; 512 take an eighth of that (bench/hold.bench.ts).
 */
const LEARNING_PAGE = 512;
/** Above every evaluation's seq (bigserial). */
const MAX_SEQ = '9223372036854775807';
/** Logs dropped per transaction by a retention sweep: no sweep step holds the database long. */
const SWEEP_CHUNK = 1000;

/** How a transaction reads an agent: a PUT or DELETE locks it against the others. */
type AgentLock = '' | 'FOR KEY SHARE' | 'FOR UPDATE';

/** Whether PostgreSQL text can hold `id`: an id it cannot hold was never stored. */
const storable = (id: string) => !id.includes('\u0000');

/** An optional value as a json parameter: NULL when absent. */
const optional = (value: unknown) => (value ? JSON.stringify(value) : null);

/**
 * PostgreSQL's errors that are the caller's to fix, in the error vocabulary: text it cannot hold,
 * and a full disk (disk_full: the transaction was rolled back, so nothing was written).
 */
function storageError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  // PostgreSQL text cannot hold U+0000 (character_not_in_repertoire, untranslatable_character)
  if (code === '22021' || code === '22P05') {
    return new ApiError('ValidationError', 'text with a NUL character (\\u0000) cannot be stored; remove it and send again');
  }
  if (code !== '53100') return error;
  return new ApiError(
    'QuotaExceeded',
    "the server's database is out of space (its disk or quota is full), so nothing was written. Retry once space is freed: erase evaluation logs you no longer need " +
      '(GET /agent/:id/evaluation lists them, DELETE /evaluation/:id erases one with its feedback) or delete agents; a retention policy ' +
      "keeps logs from filling it again. If this persists, tell the server's operator: its disk needs room (docs/SERVER.md)",
  );
}

function withStorageErrors(db: SqlDatabase): SqlDatabase {
  const rethrow = (error: unknown): never => {
    throw storageError(error);
  };
  return {
    query: <R>(text: string, params?: unknown[]) => db.query<R>(text, params).catch(rethrow),
    exec: (text) => db.exec(text).catch(rethrow),
    transaction: (work) => db.transaction(work).catch(rethrow),
    close: () => db.close(),
  };
}

/** Times an import's transaction runs when concurrent ones keep storing the same ids first. */
const IMPORT_ATTEMPTS = 3;

/**
 * An import or a merge again when it failed on an id a concurrent transaction stored first
 * (unique_violation; imports of one account wait for each other, see importRecords, so this is
 * another account's import of the same ids, or a PUT numbering the same agent's version). Run
 * again, it reads what the other stored: its own records count unchanged, another's are refused.
 */
async function againAfterConcurrentInsert<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== '23505' || attempt === IMPORT_ATTEMPTS) throw error;
    }
  }
}

/**
 * The store in PostgreSQL (a server through `pg`, or PGlite in this process). Every method is one
 * transaction. Versions of one agent are numbered under a row lock on the agent (`FOR UPDATE`),
 * so PUTs from any number of server processes get consecutive numbers in commit order; an
 * evaluation holds `FOR KEY SHARE` on its agent, so a DELETE waits for evaluations already
 * reading it and no log is written for an agent after its delete.
 */
export class PostgresStore implements FuzzboxStore, ChangeFeed {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = withStorageErrors(db);
  }

  /** Applies any migration the database lacks, then stores in it. */
  static async open(db: SqlDatabase): Promise<PostgresStore> {
    await migrate(db);
    return new PostgresStore(db);
  }

  /** Several reads that must agree with each other: one snapshot for all of them. */
  #read<T>(work: (sql: Queryable) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (sql) => {
      await sql.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return work(sql);
    });
  }

  async #requireAgent(sql: Queryable, userID: string, id: string, lock: AgentLock = ''): Promise<AgentRecord> {
    if (!storable(id)) return ownAgent(userID, id, undefined, undefined);
    const { rows } = await sql.query<AgentRecord>(`SELECT ${AGENT} FROM agents WHERE id = $1 ${lock}`, [id]);
    const agent = rows[0];
    if (agent) return ownAgent(userID, id, present(agent), undefined);
    const tombstones = await sql.query<DeletedAgentRecord>(`SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE id = $1`, [id]);
    return ownAgent(userID, id, undefined, tombstones.rows[0]);
  }

  async #requireEvaluation(sql: Queryable, userID: string, reqID: string): Promise<EvaluationRecord> {
    if (!storable(reqID)) throw new ApiError('NotFound', `no evaluation with id "${reqID}"`);
    const { rows } = await sql.query<EvaluationRecord>(`SELECT ${EVALUATION} FROM evaluations WHERE user_id = $1 AND req_id = $2`, [userID, reqID]);
    if (!rows[0]) throw new ApiError('NotFound', `no evaluation with id "${reqID}"`);
    return present(rows[0]);
  }

  async #addVersion(sql: Queryable, version: VersionRecord): Promise<void> {
    await sql.query(
      `INSERT INTO versions (id, version_of, user_id, name, inputs, outputs, rules, parsed_rules, created_at, seq, performance, operators, origin, evidence)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        version.id,
        version.versionOf,
        version.userID,
        version.name,
        JSON.stringify(version.inputs),
        JSON.stringify(version.outputs),
        JSON.stringify(version.rules),
        JSON.stringify(version.parsed_rules),
        version.createdAt,
        version.seq,
        optional(version.performance),
        optional(version.operators),
        version.origin ?? null,
        optional(version.evidence),
      ],
    );
  }

  async addAccount({ userID, name, keyHash, createdAt }: AccountRecord): Promise<void> {
    await this.#db.query('INSERT INTO accounts (user_id, name, key_hash, created_at) VALUES ($1, $2, $3, $4)', [userID, name, keyHash, createdAt]);
  }

  async findAccountByKeyHash(keyHash: string): Promise<AccountRecord | undefined> {
    const { rows } = await this.#db.query<AccountRecord>(
      `SELECT user_id AS "userID", name, key_hash AS "keyHash", created_at AS "createdAt" FROM accounts WHERE key_hash = $1`,
      [keyHash],
    );
    return rows[0];
  }

  async listAgents(userID: string): Promise<AgentRecord[]> {
    // ids sort by creation time: oldest first, as IndexedDB's index lists them
    return (await this.#db.query<AgentRecord>(`SELECT ${AGENT} FROM agents WHERE user_id = $1 ORDER BY id`, [userID])).rows.map(present);
  }

  readAgent(userID: string, id: string): Promise<AgentRecord> {
    return this.#read((sql) => this.#requireAgent(sql, userID, id));
  }

  async createAgent(userID: string, body: AgentBody, parsedRules: unknown[], provenance: Provenance = CREATED): Promise<AgentRecord> {
    const agent = newAgentRecord(userID, body);
    await this.#db.transaction(async (sql) => {
      await insertAgentRow(sql, agent);
      await this.#addVersion(sql, snapshot(agent, parsedRules, 0, provenance));
    });
    return agent;
  }

  async #update(sql: Queryable, current: AgentRecord, body: AgentBody, parsedRules: unknown[], provenance: Provenance): Promise<AgentRecord> {
    const agent: AgentRecord = { ...redefined(current, body, newId()), versionCount: current.versionCount + 1 };
    await updateAgentRow(sql, agent);
    await this.#addVersion(sql, snapshot(agent, parsedRules, current.versionCount, provenance));
    return agent;
  }

  updateAgent(userID: string, id: string, body: AgentBody, parsedRules: unknown[], provenance: Provenance = UPDATED): Promise<AgentRecord> {
    return this.#db.transaction(async (sql) => this.#update(sql, await this.#requireAgent(sql, userID, id, 'FOR UPDATE'), body, parsedRules, provenance));
  }

  updateAgentFrom(
    userID: string,
    id: string,
    basedOn: string,
    body: AgentBody,
    parsedRules: unknown[],
    provenance: Provenance = UPDATED,
  ): Promise<AgentRecord> {
    return this.#db.transaction(async (sql) => this.#update(sql, await this.#lockedAt(sql, userID, id, basedOn), body, parsedRules, provenance));
  }

  /** The agent at `basedOn`, locked, or Conflict. */
  async #lockedAt(sql: Queryable, userID: string, id: string, basedOn: string): Promise<AgentRecord> {
    return stillAt(await this.#requireAgent(sql, userID, id, 'FOR UPDATE'), basedOn);
  }

  addCandidateVersion(
    userID: string,
    id: string,
    basedOn: string,
    body: AgentBody,
    parsedRules: unknown[],
    provenance: Provenance,
    decide: CandidateDecision,
  ): Promise<Candidate | undefined> {
    return this.#db.transaction(async (sql) => {
      const current = await this.#lockedAt(sql, userID, id, basedOn);
      const version = snapshot(redefined(current, body, newId()), parsedRules, current.versionCount, provenance);
      const { rows } = await sql.query<{ record: AutopilotRecord }>('SELECT record FROM autopilot WHERE agent_id = $1', [id]);
      const state = decide(rows[0]?.record, version);
      if (!state) return undefined;
      await this.#addVersion(sql, version);
      await sql.query('UPDATE agents SET version_count = $2 WHERE id = $1', [id, current.versionCount + 1]);
      await writeAutopilotRow(sql, userID, state);
      return { version, state };
    });
  }

  promoteVersion(userID: string, id: string, versionID: string, basedOn: string): Promise<AgentRecord> {
    return this.#db.transaction(async (sql) => {
      const current = await this.#lockedAt(sql, userID, id, basedOn);
      const { rows } = await sql.query<VersionRecord>(`SELECT ${VERSION} FROM versions WHERE id = $1 AND version_of = $2`, [versionID, id]);
      if (!rows[0]) throw new ApiError('NotFound', `no version "${versionID}" of agent "${id}"`);
      const agent = redefined(current, present(rows[0]), versionID);
      await updateAgentRow(sql, agent);
      return agent;
    });
  }

  countEvaluationsByVersion(userID: string, agentID: string): Promise<Map<string, number>> {
    return this.#read(async (sql) => {
      await this.#requireAgent(sql, userID, agentID);
      const { rows } = await sql.query<{ versionID: string; n: number }>(
        'SELECT version_id AS "versionID", count(*)::int AS n FROM evaluations WHERE user_id = $1 AND agent_id = $2 GROUP BY version_id',
        [userID, agentID],
      );
      return new Map(rows.map((row) => [row.versionID, row.n]));
    });
  }

  readAutopilot(userID: string, agentID: string): Promise<AutopilotRecord | undefined> {
    return this.#read(async (sql) => {
      await this.#requireAgent(sql, userID, agentID);
      const { rows } = await sql.query<{ record: AutopilotRecord }>('SELECT record FROM autopilot WHERE agent_id = $1', [agentID]);
      return rows[0]?.record;
    });
  }

  writeAutopilot(userID: string, record: AutopilotRecord): Promise<void> {
    return this.#db.transaction(async (sql) => {
      await this.#requireAgent(sql, userID, record.agentID);
      await writeAutopilotRow(sql, userID, record);
    });
  }

  deleteAgent(userID: string, id: string): Promise<void> {
    return this.#db.transaction(async (sql) => {
      await this.#requireAgent(sql, userID, id, 'FOR UPDATE');
      await sql.query('UPDATE versions SET retired = true WHERE version_of = $1', [id]);
      await sql.query('DELETE FROM agents WHERE id = $1', [id]);
      await sql.query('INSERT INTO deleted_agents (id, user_id, deleted_at) VALUES ($1, $2, $3)', [id, userID, timestamp()]);
    });
  }

  listVersions(userID: string, agentID: string): Promise<VersionRecord[]> {
    return this.#read(async (sql) => {
      await this.#requireAgent(sql, userID, agentID);
      const { rows } = await sql.query<VersionRecord>(`SELECT ${VERSION} FROM versions WHERE version_of = $1 AND NOT retired ORDER BY seq`, [agentID]);
      return rows.map(present);
    });
  }

  async readVersion(userID: string, id: string): Promise<VersionRecord> {
    if (!storable(id)) throw new ApiError('NotFound', `no version with id "${id}"`);
    const { rows } = await this.#db.query<VersionRecord>(`SELECT ${VERSION} FROM versions WHERE id = $1 AND NOT retired`, [id]);
    const version = rows[0];
    if (version?.userID !== userID) throw new ApiError('NotFound', `no version with id "${id}"`);
    return present(version);
  }

  addEvaluations(userID: string, agentID: string, versionID: string, logs: EvaluationRecord[]): Promise<boolean> {
    return this.#db.transaction(async (sql) => {
      const agent = await this.#requireAgent(sql, userID, agentID, 'FOR KEY SHARE');
      if (agent.latestVersion !== versionID) return false;
      if (logs.length > 0) {
        // one statement for the whole batch, rows numbered in the batch's order
        await sql.query(
          `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, returned, density, created_at)
           SELECT log->>'reqID', log->>'userID', log->>'agentID', log->>'versionID', log->'input', log->'crisp', log->'returned',
             (log->>'density')::float8, log->>'createdAt'
           FROM json_array_elements($1::json) WITH ORDINALITY AS batch(log, position) ORDER BY position`,
          [JSON.stringify(logs)],
        );
      }
      return true;
    });
  }

  readEvaluation(userID: string, reqID: string): Promise<StoredEvaluation> {
    return this.#read(async (sql) => {
      const evaluation = await this.#requireEvaluation(sql, userID, reqID);
      if (evaluation.trace) return { evaluation, version: undefined };
      // a retired version too: a deleted agent's logs stay readable
      const { rows } = await sql.query<VersionRecord>(`SELECT ${VERSION} FROM versions WHERE id = $1 AND user_id = $2`, [evaluation.versionID, userID]);
      return { evaluation, version: rows[0] && present(rows[0]) };
    });
  }

  listEvaluations(userID: string, agentID: string, query: EvaluationQuery): Promise<EvaluationPage> {
    return this.#read(async (sql) => {
      // a deleted agent's logs stay listable by its owner (docs/REST.md)
      const owner = storable(agentID)
        ? await sql.query('SELECT 1 FROM agents WHERE id = $1 AND user_id = $2 UNION ALL SELECT 1 FROM deleted_agents WHERE id = $1 AND user_id = $2', [
            agentID,
            userID,
          ])
        : { rows: [] };
      if (owner.rows.length === 0) throw new ApiError('NotFound', `no agent with id "${agentID}"`);
      const position = (seq: number, reqID: string): EvaluationPosition => ({ seq, index: 0, reqID });
      const feedbackOf = (log: string) =>
        `COALESCE((SELECT json_agg(json_build_object('id', f.id, 'userID', f.user_id, 'evaluationLog', f.evaluation_log, 'data', f.data,
           'createdAt', f.created_at) ORDER BY f.seq) FROM feedback f WHERE f.user_id = ${log}.user_id AND f.evaluation_log = ${log}.req_id), '[]'::json)`;
      if (query.versionID === undefined && query.feedback === undefined) {
        // No filter: the page is the next limit + 1 logs down an index on seq, whatever the agent
        // holds (the scan below reads up to LIST_SCAN_LIMIT logs to count them). `e.seq`, the
        // column: ordering by the float8 `seq` given out sorted every row of the agent (1 M: 2 s).
        const { rows } = await sql.query<EvaluationRecord & { seq: number; feedback: FeedbackRecord[] }>(
          `SELECT ${EVALUATION}, seq::float8 AS seq, ${feedbackOf('e')} AS feedback FROM evaluations e
           WHERE user_id = $1 AND agent_id = $2 AND seq < COALESCE($3::bigint, ${Number.MAX_SAFE_INTEGER})
           ORDER BY e.seq DESC LIMIT $4`,
          [userID, agentID, query.after?.seq ?? null, query.limit + 1],
        );
        const entries = rows.slice(0, query.limit).map(({ seq: _, feedback, ...row }) => ({ evaluation: present(row as EvaluationRecord), feedback }));
        const last = rows[query.limit - 1];
        return { entries, next: rows.length > query.limit && last ? position(last.seq, last.reqID) : null };
      }
      // At most LIST_SCAN_LIMIT logs examined per page, newest first, each with its feedback
      // (oldest first); filters apply within those, so a page may end short with a `next`.
      const { rows } = await sql.query<EvaluationRecord & { seq: number; feedback: FeedbackRecord[]; scanned: number; oldest: number }>(
        `WITH scanned AS (
           SELECT * FROM evaluations WHERE user_id = $1 AND agent_id = $2 AND ($3::float8 IS NULL OR seq < $3)
           ORDER BY seq DESC LIMIT ${LIST_SCAN_LIMIT}
         ), listed AS (
           SELECT s.*, ${feedbackOf('s')} AS feedback
           FROM scanned s WHERE ($4::text IS NULL OR s.version_id = $4)
         )
         SELECT ${EVALUATION}, seq::float8 AS seq, feedback,
           (SELECT count(*)::int FROM scanned) AS scanned, (SELECT min(seq)::float8 FROM scanned) AS oldest
         FROM listed WHERE $5::boolean IS NULL OR $5 = (json_array_length(feedback) > 0)
         ORDER BY seq DESC LIMIT $6`,
        [userID, agentID, query.after?.seq ?? null, query.versionID ?? null, query.feedback ?? null, query.limit + 1],
      );
      const entries = rows.slice(0, query.limit).map(({ seq: _, feedback, scanned: __, oldest: ___, ...row }) => ({
        evaluation: present(row as EvaluationRecord),
        feedback,
      }));
      const last = rows[query.limit - 1];
      if (rows.length > query.limit && last) return { entries, next: position(last.seq, last.reqID) };
      // fewer than a page: more only if the scan stopped at its limit
      const first = rows[0];
      if (first && first.scanned >= LIST_SCAN_LIMIT) return { entries, next: position(first.oldest, '') };
      if (!first && query.after === undefined) return { entries, next: null };
      if (!first) {
        const more = await sql.query<{ oldest: number | null; scanned: number }>(
          `SELECT min(seq)::float8 AS oldest, count(*)::int AS scanned FROM (SELECT seq FROM evaluations
             WHERE user_id = $1 AND agent_id = $2 AND ($3::float8 IS NULL OR seq < $3) ORDER BY seq DESC LIMIT ${LIST_SCAN_LIMIT}) AS scanned`,
          [userID, agentID, query.after?.seq ?? null],
        );
        const { oldest, scanned } = more.rows[0]!;
        return { entries, next: scanned >= LIST_SCAN_LIMIT && oldest !== null ? position(oldest, '') : null };
      }
      return { entries, next: null };
    });
  }

  deleteEvaluation(userID: string, reqID: string): Promise<void> {
    return this.#db.transaction(async (sql) => {
      await this.#requireEvaluation(sql, userID, reqID);
      await sql.query('DELETE FROM feedback WHERE user_id = $1 AND evaluation_log = $2', [userID, reqID]);
      await sql.query('DELETE FROM evaluations WHERE user_id = $1 AND req_id = $2', [userID, reqID]);
    });
  }

  addFeedback(userID: string, feedback: Omit<FeedbackRecord, 'userID' | 'seq'>): Promise<string> {
    return this.#db.transaction(async (sql) => {
      const { agentID } = await this.#requireEvaluation(sql, userID, feedback.evaluationLog);
      // the log's row locked: two posts at once count one after the other
      await sql.query('SELECT 1 FROM evaluations WHERE user_id = $1 AND req_id = $2 FOR UPDATE', [userID, feedback.evaluationLog]);
      const { rows } = await sql.query<{ count: number }>('SELECT count(*)::int AS count FROM feedback WHERE user_id = $1 AND evaluation_log = $2', [
        userID,
        feedback.evaluationLog,
      ]);
      if (rows[0]!.count >= MAX_FEEDBACK_PER_EVALUATION) throw new ApiError('Conflict', feedbackFull(feedback.evaluationLog));
      await sql.query('INSERT INTO feedback (id, user_id, evaluation_log, data, created_at) VALUES ($1, $2, $3, $4, $5)', [
        feedback.id,
        userID,
        feedback.evaluationLog,
        JSON.stringify(feedback.data),
        feedback.createdAt,
      ]);
      return agentID;
    });
  }

  listFeedback(userID: string, reqID: string): Promise<FeedbackRecord[]> {
    return this.#read(async (sql) => {
      await this.#requireEvaluation(sql, userID, reqID);
      const { rows } = await sql.query<FeedbackRecord>(`SELECT ${FEEDBACK} FROM feedback WHERE user_id = $1 AND evaluation_log = $2 ORDER BY seq`, [
        userID,
        reqID,
      ]);
      return rows;
    });
  }

  async readLearningLog(userID: string, agentID: string, query: LearningLogQuery): Promise<LearningLog> {
    const builder = new LearningLogBuilder(await this.readAgent(userID, agentID), query);
    const names = new Set<string>();
    // newest first, LEARNING_PAGE logs per statement (each its own short transaction), each with
    // its feedback oldest first, until the rows are enough
    for (let before = MAX_SEQ; ; ) {
      const { rows } = await this.#db.query<LoggedAnswer & { seq: string; feedback: Array<{ seq: number; data: Record<string, number> }> | null }>(
        `SELECT e.seq::text AS seq, e.version_id AS "versionID", e.created_at AS "createdAt", e.input, e.crisp, e.returned, e.density,
           (SELECT json_agg(json_build_object('seq', f.seq, 'data', f.data) ORDER BY f.seq) FROM feedback f WHERE f.user_id = e.user_id AND f.evaluation_log = e.req_id) AS feedback
         FROM evaluations e WHERE e.user_id = $1 AND e.agent_id = $2 AND e.seq < $3::bigint ORDER BY e.seq DESC LIMIT $4`,
        [userID, agentID, before, LEARNING_PAGE],
      );
      for (const row of rows) {
        if (!row.feedback) continue;
        names.clear();
        const values = latestValues(row.feedback, query.metrics, names);
        builder.noteNames(names);
        builder.add(present(row), values, row.feedback.at(-1)!.seq);
        if (builder.done) return builder.finish();
      }
      if (rows.length < LEARNING_PAGE) return builder.finish();
      before = rows.at(-1)!.seq;
    }
  }

  exportRecords(userID: string): AsyncIterable<BackupRecord> {
    return exportRecords(this.#db, userID);
  }

  importRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>) {
    return againAfterConcurrentInsert(() => this.#db.transaction((sql) => importRecords(sql, userID, lines)));
  }

  readChanges(userID: string, checkpoint: string | undefined, limit: number, replica?: string): Promise<ChangePage> {
    return this.#read((sql) => readChanges(sql, userID, checkpoint, limit, replica));
  }

  mergeRecords(userID: string, lines: ReadonlyArray<{ line: number; record: ImportRecord }>, replica?: string) {
    return againAfterConcurrentInsert(() => this.#db.transaction((sql) => importRecords(sql, userID, lines, 'merge', replica ?? null)));
  }

  async applyRetention(policy: RetentionPolicy, now: number): Promise<number> {
    const cutoff = policy.days === undefined ? null : new Date(now - policy.days * 86_400_000).toISOString();
    let dropped = 0;
    for (let after = ''; ; ) {
      const { rows: agents } = await this.#db.query<{ userID: string; id: string }>(
        `SELECT user_id AS "userID", id FROM (SELECT user_id, id FROM agents UNION ALL SELECT user_id, id FROM deleted_agents) AS every
         WHERE id > $1 ORDER BY id LIMIT $2`,
        [after, AGENT_PAGE],
      );
      for (const { userID, id } of agents) {
        for (;;) {
          // Newest first, a log is kept while it is young enough and among the newest perAgent
          // (or, with keepWithFeedback, has feedback); the others go with their feedback, at most
          // SWEEP_CHUNK per transaction. Dropping the oldest first leaves the ranks of the kept.
          const { rows } = await this.#db.query(
            `WITH ranked AS (
               SELECT seq, req_id, created_at, row_number() OVER (ORDER BY seq DESC) AS rank
               FROM evaluations WHERE user_id = $1 AND agent_id = $2
             ), doomed AS (
               SELECT seq, req_id FROM ranked
               WHERE (created_at < $3::text OR rank > $4::bigint)
                 AND NOT ($5::boolean AND EXISTS (SELECT 1 FROM feedback f WHERE f.user_id = $1 AND f.evaluation_log = ranked.req_id))
               ORDER BY seq LIMIT $6
             ), dropped_feedback AS (
               DELETE FROM feedback f USING doomed WHERE f.user_id = $1 AND f.evaluation_log = doomed.req_id
             )
             DELETE FROM evaluations e USING doomed WHERE e.seq = doomed.seq RETURNING e.seq`,
            [userID, id, cutoff, policy.perAgent ?? null, policy.keepWithFeedback === true, SWEEP_CHUNK],
          );
          dropped += rows.length;
          if (rows.length < SWEEP_CHUNK) break;
        }
      }
      if (agents.length < AGENT_PAGE) return dropped;
      after = agents.at(-1)!.id;
    }
  }

  countRecords(userID: string): Promise<RecordCounts> {
    return this.#read(async (sql) => {
      const { rows } = await sql.query<RecordCounts>(
        `SELECT (SELECT count(*)::int FROM agents WHERE user_id = $1) AS agents,
           (SELECT count(*)::int FROM versions WHERE user_id = $1 AND NOT retired) AS versions,
           (SELECT count(*)::int FROM versions WHERE user_id = $1 AND retired) AS "retiredVersions",
           (SELECT count(*)::int FROM deleted_agents WHERE user_id = $1) AS deletions,
           counted.evaluations, counted.feedback
         FROM (SELECT coalesce(sum(evaluations), 0)::int AS evaluations, coalesce(sum(feedback), 0)::int AS feedback
               FROM record_counts WHERE user_id = $1) AS counted`,
        [userID],
      );
      return rows[0]!;
    });
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}

/**
 * Stores autopilot's state over the revision before `record.revision`, else Conflict. The revision
 * is compared on the row as committed, locked by the update: of two writers over one revision,
 * one wins; a first write (over none) inserts, any other needs the row.
 */
async function writeAutopilotRow(sql: Queryable, userID: string, record: AutopilotRecord): Promise<void> {
  const over = (record.revision ?? 1) - 1;
  const document = JSON.stringify({ ...record, userID });
  const { rows } =
    over === 0
      ? await sql.query(
          `INSERT INTO autopilot (agent_id, user_id, record) VALUES ($1, $2, $3)
           ON CONFLICT (agent_id) DO UPDATE SET record = excluded.record
           WHERE coalesce((autopilot.record->>'revision')::bigint, 0) = 0
           RETURNING agent_id`,
          [record.agentID, userID, document],
        )
      : await sql.query(`UPDATE autopilot SET record = $2 WHERE agent_id = $1 AND coalesce((record->>'revision')::bigint, 0) = $3 RETURNING agent_id`, [
          record.agentID,
          document,
          over,
        ]);
  if (rows.length === 0) throw new StaleAutopilot(record.agentID);
}
