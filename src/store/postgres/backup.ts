// Backups in PostgreSQL: the same records, order and import rules as the IndexedDB store's
// (src/store/backup.ts, whose line builders and comparisons this reuses), in SQL.
import type { BackupRecord } from '../../schema/backup.js';
import { laterThan } from '../../schema/dates.js';
import { MAX_FEEDBACK_PER_EVALUATION } from '../../schema/feedback.js';
import { agentLine, importEach, canonical, sameVersion, supersedes, type ImportMode, countNotAbove, definitionOf, deletionLine, elsewhere, evaluationLine, feedbackLine, logRefusal, fullLog, numberedPast, same, versionLine, type ImportRecord, type Stored } from '../backup.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from '../records.js';
import { AGENT, insertAgentRow, updateAgentRow, json, EVALUATION, FEEDBACK, present, VERSION } from './columns.js';
import type { Queryable, SqlDatabase } from './sql.js';

/** Rows read per query while exporting: memory stays flat, and no read holds the database long. */
const EXPORT_PAGE = 256;

/**
 * Every row `select` finds after the key `after`, a page per query (each its own short
 * transaction), in key order. `select` gets the last key seen ('' or 0 first) and the page size.
 */
async function* pages<T>(
  db: SqlDatabase,
  select: string,
  params: unknown[],
  keyOf: (row: T) => string | number,
  first: string | number,
): AsyncGenerator<T> {
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

/** The caller's account as backup records, in the order an import needs (src/store/backup.ts). */
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
  const feedback = pages<FeedbackRow>(db, `SELECT ${FEEDBACK}, seq FROM feedback WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [userID], (f) => f.seq, 0);
  for await (const record of feedback) yield feedbackLine(record);
}

/** One row or undefined. */
async function one<T>(sql: Queryable, text: string, params: unknown[]): Promise<T | undefined> {
  const row = (await sql.query<T>(text, params)).rows[0];
  return row && present(row as T & object);
}


/**
 * Stores backup records in the caller's account within the transaction `sql`: all or, when one
 * is refused (a ValidationError naming its line), none. The rules are src/store/backup.ts's.
 */
export async function importRecords(
  sql: Queryable,
  userID: string,
  lines: ReadonlyArray<{ line: number; record: ImportRecord }>,
  mode: ImportMode = 'restore',
  /** the replica a merge's records come from: its pulls leave them out */
  origin: string | null = null,
): Promise<Stored> {
  const merging = mode === 'merge';
  // One import or merge per account at a time, till this transaction ends: each checks what is
  // stored before it writes, so two at once of the same records (a push sent again while the
  // first is still running, two tabs) would each find nothing and collide. Other accounts and
  // every other request go on meanwhile; a batch is bounded, so the wait is short.
  await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`fuzzbox import ${userID}`]);
  // A backup is mostly logs and feedback naming a few agents and versions: those are read once
  // (and remembered as written), the logs and feedback already stored are read in one query each,
  // and the new ones written in one statement each at the end, as the IndexedDB store does.
  const memo = <T>(read: (id: string) => Promise<T | undefined>) => {
    const known = new Map<string, T | undefined>();
    const get = async (id: string) => (known.has(id) ? known.get(id) : known.set(id, await read(id)).get(id));
    return Object.assign(get, { set: (id: string, row: T | undefined) => known.set(id, row) });
  };
  const agentRow = memo((id) => one<AgentRecord>(sql, `SELECT ${AGENT} FROM agents WHERE id = $1`, [id]));
  const tombstoneRow = memo((id) =>
    one<DeletedAgentRecord>(sql, `SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE id = $1`, [id]),
  );
  const versionRow = memo((id) => one<VersionRow>(sql, `SELECT ${VERSION}, retired FROM versions WHERE id = $1`, [id]));
  const idsOf = (kind: 'evaluation' | 'feedback') =>
    JSON.stringify(lines.flatMap(({ record }) => (record.kind !== kind ? [] : [record.kind === 'evaluation' ? record.reqID : record.id])));
  // the logs the batch's logs and feedback name, in one query: feedback is checked against them
  const namedLogs = JSON.stringify([
    ...new Set(lines.flatMap(({ record }) => (record.kind === 'evaluation' ? [record.reqID] : record.kind === 'feedback' ? [record.evaluationLog] : []))),
  ]);
  const storedLogs = new Map<string, EvaluationRecord>();
  for (const row of (
    await sql.query<EvaluationRecord>(
      `SELECT ${EVALUATION} FROM evaluations WHERE user_id = $1 AND req_id IN (SELECT json_array_elements_text($2::json))`,
      [userID, namedLogs],
    )
  ).rows) {
    storedLogs.set(row.reqID, present(row));
  }
  const storedFeedback = new Map<string, FeedbackRecord>();
  for (const row of (
    await sql.query<FeedbackRecord>(`SELECT ${FEEDBACK} FROM feedback WHERE id IN (SELECT json_array_elements_text($1::json))`, [idsOf('feedback')])
  ).rows) {
    storedFeedback.set(row.id, row);
  }
  const newLogs: EvaluationRecord[] = [];
  const newFeedback: FeedbackRecord[] = [];
  const fedAgents = new Set<string>();
  // Deletions come by the thousand (a replica that deleted many agents): what they name is read
  // in three queries, and the new tombstones written in two statements at the end, not five
  // statements a line; on PGlite, whose one connection every other request waits for, 1,000
  // tombstones took seconds.
  const deletionIDs = JSON.stringify([...new Set(lines.flatMap(({ record }) => (record.kind === 'deletion' ? [record.id] : [])))]);
  const versionOwners = new Map<string, string>();
  if (deletionIDs !== '[]') {
    const named = 'IN (SELECT json_array_elements_text($1::json))';
    const agents = await sql.query<AgentRecord>(`SELECT ${AGENT} FROM agents WHERE id ${named}`, [deletionIDs]);
    const tombstones = await sql.query<DeletedAgentRecord>(`SELECT id, user_id AS "userID", deleted_at AS "deletedAt" FROM deleted_agents WHERE id ${named}`, [deletionIDs]);
    const owners = await sql.query<{ agentID: string; userID: string }>(`SELECT DISTINCT version_of AS "agentID", user_id AS "userID" FROM versions WHERE version_of ${named}`, [deletionIDs]);
    for (const id of JSON.parse(deletionIDs) as string[]) [agentRow, tombstoneRow].forEach((memoised) => memoised.set(id, undefined));
    for (const row of agents.rows) agentRow.set(row.id, present(row));
    for (const row of tombstones.rows) tombstoneRow.set(row.id, row);
    // an agent's versions are all one account's: a version refused as another's never got in
    for (const { agentID, userID: owner } of owners.rows) if (owner !== userID || !versionOwners.has(agentID)) versionOwners.set(agentID, owner);
  }
  const newTombstones = new Map<string, DeletedAgentRecord>();
  // how much feedback each log the batch names holds: at most MAX_FEEDBACK_PER_EVALUATION
  const feedbackHeld = new Map<string, number>();
  for (const { reqID, count } of (
    await sql.query<{ reqID: string; count: number }>(
      `SELECT evaluation_log AS "reqID", count(*)::int AS count FROM feedback
       WHERE user_id = $1 AND evaluation_log IN (SELECT json_array_elements_text($2::json)) GROUP BY evaluation_log`,
      [userID, namedLogs],
    )
  ).rows) {
    feedbackHeld.set(reqID, count);
  }

  const outcomes = await importEach(lines, importOne);
  if (newLogs.length > 0) {
    await sql.query(
      `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, returned, density, created_at, trace, sync_origin)
       SELECT log->>'reqID', log->>'userID', log->>'agentID', log->>'versionID', log->'input', log->'crisp', log->'returned',
         (log->>'density')::float8, log->>'createdAt', log->'trace', $2
       FROM json_array_elements($1::json) WITH ORDINALITY AS batch(log, position) ORDER BY position`,
      [JSON.stringify(newLogs), origin],
    );
  }
  if (newFeedback.length > 0) {
    await sql.query(
      `INSERT INTO feedback (id, user_id, evaluation_log, data, created_at, sync_origin)
       SELECT f->>'id', f->>'userID', f->>'evaluationLog', f->'data', f->>'createdAt', $2
       FROM json_array_elements($1::json) WITH ORDINALITY AS batch(f, position) ORDER BY position`,
      [JSON.stringify(newFeedback), origin],
    );
  }
  if (newTombstones.size > 0) {
    const tombstones = JSON.stringify([...newTombstones.values()]);
    if (merging) await sql.query('UPDATE versions SET retired = true WHERE version_of IN (SELECT t->>\'id\' FROM json_array_elements($1::json) t)', [tombstones]);
    await sql.query(
      `INSERT INTO deleted_agents (id, user_id, deleted_at)
       SELECT t->>'id', t->>'userID', t->>'deletedAt' FROM json_array_elements($1::json) WITH ORDINALITY AS batch(t, position) ORDER BY position`,
      [tombstones],
    );
  }
  return { ...outcomes, fedAgents: [...fedAgents] };

  /** A version new here, from another replica: numbered next among its agent's versions here. */
  async function mergeVersion(record: ImportRecord & { kind: 'version' }, agent: AgentRecord | DeletedAgentRecord | undefined, refuse: (message: string) => never) {
    if (!agent) {
      const owner = await one<{ userID: string }>(sql, 'SELECT user_id AS "userID" FROM versions WHERE version_of = $1 LIMIT 1', [record.versionOf]);
      if (owner && owner.userID !== userID) refuse(elsewhere('agent', record.versionOf));
    }
    const live = agent && 'latestVersion' in agent ? agent : undefined;
    const retired = !live && (agent !== undefined || record.retired);
    const seq = live
      ? live.versionCount
      : (await one<{ next: number }>(sql, 'SELECT COALESCE(max(seq) + 1, 0)::int AS next FROM versions WHERE version_of = $1', [record.versionOf]))!.next;
    await insertVersion(record, seq, retired);
    if (live) {
      await sql.query('UPDATE agents SET version_count = $2 WHERE id = $1', [live.id, seq + 1]);
      agentRow.set(live.id, { ...live, versionCount: seq + 1 });
    }
    return 'imported' as const;
  }

  /** An agent from another replica: stored if new here, taken if its latest version was set later (sync's rule). */
  async function mergeAgent(record: ImportRecord & { kind: 'agent' }, stored: AgentRecord | undefined, refuse: (message: string) => never) {
    if (stored && stored.userID !== userID) refuse(elsewhere('agent', record.id));
    if (stored && !supersedes(record, stored)) return 'unchanged' as const;
    const tombstone = stored ? undefined : await tombstoneRow(record.id);
    if (tombstone) {
      if (tombstone.userID !== userID) refuse(elsewhere('agent', record.id));
      return 'unchanged' as const; // a deletion wins
    }
    const latest = await versionRow(record.latestVersion);
    if (!latest || latest.versionOf !== record.id || latest.userID !== userID) {
      refuse(`agent "${record.id}": its latest version "${record.latestVersion}" must come on a line before it`);
    }
    const { retired: _retired, ...latestVersion } = latest;
    if (canonical(definitionOf(latestVersion)) !== canonical(definitionOf(record))) {
      refuse(`agent "${record.id}" differs from its latest version "${record.latestVersion}"; an agent is defined as its latest version is`);
    }
    const { kind: _, versionCount: _theirs, ...fields } = record;
    if (stored) {
      const agent: AgentRecord = { ...fields, userID, versionCount: stored.versionCount };
      await updateAgentRow(sql, agent);
      agentRow.set(record.id, agent);
    } else {
      const { next } = (await one<{ next: number }>(sql, 'SELECT COALESCE(max(seq) + 1, 0)::int AS next FROM versions WHERE version_of = $1', [record.id]))!;
      const agent: AgentRecord = { ...fields, userID, versionCount: next };
      await insertAgentRow(sql, agent);
      agentRow.set(record.id, agent);
    }
    return 'imported' as const;
  }

  async function insertVersion(record: ImportRecord & { kind: 'version' }, seq: number, retired: boolean) {
    await sql.query(
      `INSERT INTO versions (id, version_of, user_id, name, inputs, outputs, rules, performance, operators, parsed_rules, created_at, seq, retired, origin, evidence, sync_origin)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [record.id, record.versionOf, userID, record.name, json(record.inputs), json(record.outputs), json(record.rules),
        json(record.performance), json(record.operators), json(record.parsed_rules), record.createdAt, seq, retired, record.origin ?? null, json(record.evidence), origin],
    );
    const { kind: _, retired: __, parsed_rules, ...fields } = record;
    versionRow.set(record.id, { ...fields, seq, parsed_rules, userID, retired });
  }

  async function importOne(record: ImportRecord, refuse: (message: string) => never): Promise<'imported' | 'unchanged'> {
    switch (record.kind) {
      case 'version': {
        const stored = await versionRow(record.id);
        if (stored) {
          if (stored.userID !== userID) refuse(elsewhere('version', record.id));
          // a version stored retired whose agent the file still has live was deleted since: keep that
          const { retired: _, ...version } = stored;
          if (merging ? sameVersion(version, record) : same({ ...versionLine(version, stored.retired), retired: record.retired }, record)) return 'unchanged';
          refuse(`version "${record.id}" differs from the stored version with that id`);
        }
        const agent = (await agentRow(record.versionOf)) ?? (await tombstoneRow(record.versionOf));
        if (agent && agent.userID !== userID) refuse(elsewhere('agent', record.versionOf));
        if (merging) return mergeVersion(record, agent, refuse);
        if (agent && 'latestVersion' in agent && record.seq >= agent.versionCount) refuse(numberedPast(agent.id, agent.versionCount, record.id, record.seq));
        const retired = record.retired || (agent !== undefined && !('latestVersion' in agent));
        const taken = await one(sql, 'SELECT id FROM versions WHERE version_of = $1 AND seq = $2', [record.versionOf, record.seq]);
        if (taken) refuse(`agent "${record.versionOf}" already has a version numbered ${record.seq} here, not "${record.id}"`);
        await insertVersion(record, record.seq, retired);
        return 'imported';
      }
      case 'agent': {
        const stored = await agentRow(record.id);
        if (merging) return mergeAgent(record, stored, refuse);
        if (stored) {
          if (stored.userID !== userID) refuse(elsewhere('agent', record.id));
          if (same(agentLine(stored), record)) return 'unchanged';
          // updated here since the backup was made: the file's latest version is an older one of it
          const filed = await versionRow(record.latestVersion);
          if (filed && !filed.retired && filed.versionOf === record.id && filed.userID === userID && stored.versionCount >= record.versionCount) {
            return 'unchanged';
          }
          refuse(`agent "${record.id}" differs from the stored agent with that id`);
        }
        const tombstone = await tombstoneRow(record.id);
        if (tombstone) {
          if (tombstone.userID !== userID) refuse(elsewhere('agent', record.id));
          return 'unchanged'; // deleted here since the backup was made
        }
        const latest = await versionRow(record.latestVersion);
        if (!latest || latest.retired || latest.versionOf !== record.id || latest.userID !== userID) {
          refuse(`agent "${record.id}": its latest version "${record.latestVersion}" must come on a line before it`);
        }
        // the agent answers with its own definition and logs its latest version as the one that ran
        const { retired: _retired, ...latestVersion } = latest;
        if (canonical(definitionOf(latestVersion)) !== canonical(definitionOf(record))) {
          refuse(`agent "${record.id}" differs from its latest version "${record.latestVersion}"; an agent is defined as its latest version is`);
        }
        const past = await one<{ id: string; seq: number }>(sql, 'SELECT id, seq FROM versions WHERE version_of = $1 AND seq >= $2 ORDER BY seq LIMIT 1', [record.id, record.versionCount]);
        if (past) refuse(countNotAbove(record.id, record.versionCount, past.id, past.seq));
        const { kind: _, ...fields } = record;
        await insertAgentRow(sql, { ...fields, userID });
        agentRow.set(record.id, { ...fields, userID });
        return 'imported';
      }
      case 'deletion': {
        const live = await agentRow(record.id);
        if (live) {
          if (live.userID !== userID) refuse(elsewhere('agent', record.id));
          if (!merging) refuse(`agent "${record.id}" is deleted in the backup but not here; DELETE /agent/${record.id} first if it should go`);
          await sql.query('DELETE FROM agents WHERE id = $1', [record.id]);
          agentRow.set(record.id, undefined);
        }
        const stored = await tombstoneRow(record.id);
        if (stored) {
          if (stored.userID !== userID) refuse(elsewhere('agent', record.id));
          // two replicas deleted it: the earlier deletion stands everywhere
          if (!merging || !laterThan(stored.deletedAt, record.deletedAt)) return 'unchanged';
          const earlier = { ...stored, deletedAt: record.deletedAt };
          if (newTombstones.has(record.id)) newTombstones.set(record.id, earlier);
          else await sql.query('UPDATE deleted_agents SET deleted_at = $2 WHERE id = $1', [record.id, record.deletedAt]);
          tombstoneRow.set(record.id, earlier);
          return 'imported';
        }
        if (merging) {
          const owner = versionOwners.get(record.id);
          if (owner !== undefined && owner !== userID) refuse(elsewhere('agent', record.id));
        }
        const tombstone = { id: record.id, userID, deletedAt: record.deletedAt };
        newTombstones.set(record.id, tombstone);
        tombstoneRow.set(record.id, tombstone);
        return 'imported';
      }
      case 'evaluation': {
        const stored = storedLogs.get(record.reqID);
        if (stored) {
          if (same(evaluationLine(stored), record)) return 'unchanged';
          refuse(`evaluation "${record.reqID}" differs from the stored evaluation with that id`);
        }
        const agent = (await agentRow(record.agentID)) ?? (await tombstoneRow(record.agentID));
        // a change feed sends an agent where it last changed, after logs of its earlier versions
        const agentLater = merging && !agent && !record.trace;
        if (agent?.userID !== userID && !agentLater) refuse(`evaluation "${record.reqID}": its agent "${record.agentID}" must come on a line before it`);
        if (!record.trace) {
          const version = await versionRow(record.versionID);
          if (version?.userID !== userID || version.versionOf !== record.agentID) {
            refuse(`evaluation "${record.reqID}": its version "${record.versionID}" of agent "${record.agentID}" must come on a line before it`);
          }
          const unknown = logRefusal(record, version);
          if (unknown) refuse(`evaluation "${record.reqID}": ${unknown} of its version "${record.versionID}"`);
        }
        const { kind: _, ...fields } = record;
        const log: EvaluationRecord = { ...fields, userID };
        newLogs.push(log);
        storedLogs.set(record.reqID, log);
        return 'imported';
      }
      case 'feedback': {
        const stored = storedFeedback.get(record.id);
        if (stored) {
          if (stored.userID !== userID) refuse(elsewhere('feedback', record.id));
          if (same(feedbackLine(stored), record)) return 'unchanged';
          refuse(`feedback "${record.id}" differs from the stored feedback with that id`);
        }
        const log = storedLogs.get(record.evaluationLog);
        if (!log) refuse(`feedback "${record.id}": its evaluation "${record.evaluationLog}" must come on a line before it`);
        const held = feedbackHeld.get(record.evaluationLog) ?? 0;
        if (held >= MAX_FEEDBACK_PER_EVALUATION) return fullLog(record.evaluationLog, merging, refuse);
        feedbackHeld.set(record.evaluationLog, held + 1);
        fedAgents.add(log.agentID);
        const { kind: _, ...fields } = record;
        const feedback: FeedbackRecord = { ...fields, userID };
        newFeedback.push(feedback);
        storedFeedback.set(record.id, feedback);
        return 'imported';
      }
    }
  }
}
