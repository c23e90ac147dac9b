// Backups in PostgreSQL: the same records and order as the IndexedDB store's (src/store/dexie/backup.ts),
// imported by the same rules (src/store/import-rules.ts), in SQL.
import type { BackupRecord } from '../../schema/backup.js';
import { agentLine, deletionLine, evaluationLine, feedbackLine, versionLine, type ImportRecord } from '../backup-records.js';
import { importLines, type ImportMode, type ImportTarget, type Stored } from '../import-rules.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from '../records.js';
import { AGENT, EVALUATION, FEEDBACK, insertAgentRow, json, present, updateAgentRow, VERSION } from './columns.js';
import type { Queryable, SqlDatabase } from './sql.js';

/** Rows read per query while exporting: memory stays flat, and no read holds the database long. */
const EXPORT_PAGE = 256;

/**
 * Every row `select` finds after the key `after`, a page per query (each its own short
 * transaction), in key order. `select` gets the last key seen ('' or 0 first) and the page size.
 */
async function* pages<T>(db: SqlDatabase, select: string, params: unknown[], keyOf: (row: T) => string | number, first: string | number): AsyncGenerator<T> {
  for (let after = first; ; ) {
    const { rows } = await db.query<T>(select, [...params, after, EXPORT_PAGE]);
    for (const row of rows) yield present(row as T & object);
    if (rows.length < EXPORT_PAGE) return;
    after = keyOf(rows.at(-1)!);
  }
}

type VersionRow = VersionRecord & { retired: boolean };
type EvaluationRow = EvaluationRecord & { seq: string | number };
type FeedbackRow = FeedbackRecord & { seq: string | number };

/** The caller's account as backup records, in the order an import needs (src/store/dexie/backup.ts). */
export async function* exportRecords(db: SqlDatabase, userID: string): AsyncGenerator<BackupRecord> {
  const agents = pages<AgentRecord>(db, `SELECT ${AGENT} FROM agents WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`, [userID], (a) => a.id, '');
  for await (const agent of agents) {
    const versions = pages<VersionRecord>(
      db,
      `SELECT ${VERSION} FROM versions WHERE version_of = $1 AND NOT retired AND seq > $2 ORDER BY seq LIMIT $3`,
      [agent.id],
      (version) => version.seq,
      -1,
    );
    for await (const version of versions) yield versionLine(version, false);
    yield agentLine(agent);
  }
  const retired = pages<VersionRecord>(
    db,
    `SELECT ${VERSION} FROM versions WHERE user_id = $1 AND retired AND id > $2 ORDER BY id LIMIT $3`,
    [userID],
    (version) => version.id,
    '',
  );
  for await (const version of retired) yield versionLine(version, true);
  const tombstones = pages<DeletedAgentRecord>(
    db,
    `SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [userID],
    (tombstone) => tombstone.id,
    '',
  );
  for await (const tombstone of tombstones) yield deletionLine(tombstone);
  const logs = pages<EvaluationRow>(
    db,
    `SELECT ${EVALUATION}, seq FROM evaluations WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [userID],
    (log) => log.seq,
    0,
  );
  for await (const log of logs) yield evaluationLine(log);
  const feedback = pages<FeedbackRow>(
    db,
    `SELECT ${FEEDBACK}, seq FROM feedback WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [userID],
    (f) => f.seq,
    0,
  );
  for await (const record of feedback) yield feedbackLine(record);
}

/** One row or undefined. */
async function one<T>(sql: Queryable, text: string, params: unknown[]): Promise<T | undefined> {
  const row = (await sql.query<T>(text, params)).rows[0];
  return row && present(row as T & object);
}

/**
 * Stores backup records in the caller's account within the transaction `sql`: all or, when one
 * is refused (a ValidationError naming its line), none (src/store/import-rules.ts).
 */
export async function importRecords(
  sql: Queryable,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  mode: ImportMode = 'restore',
  /** the replica a merge's records come from: its pulls leave them out */
  origin: string | null = null,
): Promise<Stored> {
  // One import or merge per account at a time, till this transaction ends: each checks what is
  // stored before it writes, so two at once of the same records (a push sent again while the
  // first is still running, two tabs) would each find nothing and collide. Other accounts and
  // every other request go on meanwhile; a batch is bounded, so the wait is short.
  await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`fuzzbox import ${userID}`]);
  return importLines(importTarget(sql, userID, origin), userID, lines, mode);
}

/** The import's reads and writes in PostgreSQL; what a merge writes is marked with the replica it came from. */
function importTarget(sql: Queryable, userID: string, origin: string | null): ImportTarget {
  // What deletions write (the agents they remove, the versions they retire, new tombstones and
  // earlier times on stored ones) is written at the end, one statement each whatever the batch's
  // size: a push of thousands of deletions took five statements a line, and on PGlite every other
  // request waits for its one connection (test/store/postgres.test.ts counts them).
  const removing = new Set<string>();
  const retiring = new Set<string>();
  const tombstones = new Map<string, DeletedAgentRecord>();
  const redated = new Map<string, string>();
  const firstVersionOf = (agentID: string, more: string, params: unknown[] = []) =>
    one<{ id: string; seq: number; userID: string }>(sql, `SELECT id, seq, user_id AS "userID" FROM versions WHERE version_of = $1 ${more} LIMIT 1`, [
      agentID,
      ...params,
    ]);
  return {
    readAgent: async (id) =>
      (await one<AgentRecord>(sql, `SELECT ${AGENT} FROM agents WHERE id = $1`, [id])) ??
      (await one<DeletedAgentRecord>(sql, `SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE id = $1`, [id])),
    async readVersion(id) {
      const row = await one<VersionRow>(sql, `SELECT ${VERSION}, retired FROM versions WHERE id = $1`, [id]);
      if (!row) return undefined;
      const { retired, ...version } = row;
      return { version, retired };
    },
    versionOwner: async (agentID) => (await firstVersionOf(agentID, ''))?.userID,
    async readAgents(ids) {
      const named = JSON.stringify(ids);
      const live = await sql.query<AgentRecord>(`SELECT ${AGENT} FROM agents WHERE id IN (SELECT json_array_elements_text($1::json))`, [named]);
      const deleted = await sql.query<DeletedAgentRecord>(
        `SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE id IN (SELECT json_array_elements_text($1::json))`,
        [named],
      );
      // an agent's versions are all one account's: one version each tells whose
      const owners = await sql.query<{ agentID: string; userID: string }>(
        `SELECT DISTINCT ON (version_of) version_of AS "agentID", user_id AS "userID" FROM versions WHERE version_of IN (SELECT json_array_elements_text($1::json))`,
        [named],
      );
      return {
        agents: [...live.rows.map((row) => present(row)), ...deleted.rows],
        versionOwners: new Map(owners.rows.map((row) => [row.agentID, row.userID])),
      };
    },
    // versions are numbered uniquely per agent, retired ones too
    versionFrom: (agentID, seq) => firstVersionOf(agentID, 'AND seq >= $2 ORDER BY seq', [seq]),
    numberTaken: async (agentID, seq) => (await firstVersionOf(agentID, 'AND seq = $2', [seq])) !== undefined,
    numberHere: async (agentID) =>
      (await one<{ next: number }>(sql, 'SELECT COALESCE(max(seq) + 1, 0)::int AS next FROM versions WHERE version_of = $1', [agentID]))!.next,
    async readStored(reqIDs, feedbackIDs) {
      const logs = await sql.query<EvaluationRecord>(
        `SELECT ${EVALUATION} FROM evaluations WHERE user_id = $1 AND req_id IN (SELECT json_array_elements_text($2::json))`,
        [userID, JSON.stringify(reqIDs)],
      );
      const feedback = await sql.query<FeedbackRecord>(`SELECT ${FEEDBACK} FROM feedback WHERE id IN (SELECT json_array_elements_text($1::json))`, [
        JSON.stringify(feedbackIDs),
      ]);
      const held = await sql.query<{ reqID: string; count: number }>(
        `SELECT evaluation_log AS "reqID", count(*)::int AS count FROM feedback
         WHERE user_id = $1 AND evaluation_log IN (SELECT json_array_elements_text($2::json)) GROUP BY evaluation_log`,
        [userID, JSON.stringify(reqIDs)],
      );
      return { logs: logs.rows.map((row) => present(row)), feedback: feedback.rows, feedbackHeld: new Map(held.rows.map((row) => [row.reqID, row.count])) };
    },
    async addVersion(version, retired) {
      await sql.query(
        `INSERT INTO versions (id, version_of, user_id, name, inputs, outputs, rules, performance, operators, parsed_rules, created_at, seq, retired, origin, evidence, sync_origin)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
          version.id,
          version.versionOf,
          version.userID,
          version.name,
          json(version.inputs),
          json(version.outputs),
          json(version.rules),
          json(version.performance),
          json(version.operators),
          json(version.parsed_rules),
          version.createdAt,
          version.seq,
          retired,
          version.origin ?? null,
          json(version.evidence),
          origin,
        ],
      );
    },
    putAgent: (agent, added) => (added ? insertAgentRow(sql, agent) : updateAgentRow(sql, agent)),
    removeAgent: async (id) => void removing.add(id),
    retireVersionsOf: async (agentID) => void retiring.add(agentID),
    async putTombstone(tombstone, added) {
      if (added || tombstones.has(tombstone.id)) tombstones.set(tombstone.id, tombstone);
      else redated.set(tombstone.id, tombstone.deletedAt);
    },
    async addLogsAndFeedback(logs, feedback) {
      if (removing.size > 0) {
        await sql.query('DELETE FROM agents WHERE id IN (SELECT json_array_elements_text($1::json))', [JSON.stringify([...removing])]);
      }
      if (retiring.size > 0) {
        await sql.query('UPDATE versions SET retired = true WHERE version_of IN (SELECT json_array_elements_text($1::json))', [JSON.stringify([...retiring])]);
      }
      if (redated.size > 0) {
        await sql.query(
          `UPDATE deleted_agents SET deleted_at = redated.deleted_at
           FROM json_each_text($1::json) AS redated(id, deleted_at) WHERE deleted_agents.id = redated.id`,
          [JSON.stringify(Object.fromEntries(redated))],
        );
      }
      if (tombstones.size > 0) {
        await sql.query(
          `INSERT INTO deleted_agents (id, user_id, deleted_at)
           SELECT t->>'id', t->>'userID', t->>'deletedAt' FROM json_array_elements($1::json) WITH ORDINALITY AS batch(t, position) ORDER BY position`,
          [JSON.stringify([...tombstones.values()])],
        );
      }
      if (logs.length > 0) {
        await sql.query(
          `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, returned, density, created_at, trace, sync_origin)
           SELECT log->>'reqID', log->>'userID', log->>'agentID', log->>'versionID', log->'input', log->'crisp', log->'returned',
             (log->>'density')::float8, log->>'createdAt', log->'trace', $2
           FROM json_array_elements($1::json) WITH ORDINALITY AS batch(log, position) ORDER BY position`,
          [JSON.stringify(logs), origin],
        );
      }
      if (feedback.length > 0) {
        await sql.query(
          `INSERT INTO feedback (id, user_id, evaluation_log, data, created_at, sync_origin)
           SELECT f->>'id', f->>'userID', f->>'evaluationLog', f->'data', f->>'createdAt', $2
           FROM json_array_elements($1::json) WITH ORDINALITY AS batch(f, position) ORDER BY position`,
          [JSON.stringify(feedback), origin],
        );
      }
    },
  };
}
