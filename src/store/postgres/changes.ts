// The server's side of sync (docs/SYNC.md): an account's records in the order they last
// changed, from the feed columns of migration 3.
import { ApiError } from '../../schema/errors.js';
import { UNKNOWN_CHECKPOINT, type AutopilotLine } from '../../schema/sync.js';
import { agentLine, deletionLine, evaluationLine, feedbackLine, versionLine } from '../backup-records.js';
import type { AgentRecord, AutopilotRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from '../records.js';
import type { ChangePage, SyncRecord } from '../store.js';
import { AGENT, EVALUATION, FEEDBACK, present, VERSION } from './columns.js';
import type { Queryable } from './sql.js';

/** Past any sequence number: a kind before the checkpoint's, in its transaction, is all read. */
const AFTER_ALL = '9223372036854775807';

/**
 * About how many bytes of records one pull answers with at most (docs/SYNC.md, "Pulling"): a
 * page stops once its records' text passes this, so a page of large versions or feedback (up to
 * 2 MiB each) is a few MiB, not `limit` of them. A record larger than this goes out alone.
 */
export const PULL_BYTES = 4 * 1024 * 1024;

/**
 * The kinds in the order a transaction's records go out: each refers only to kinds before it
 * (a version's agent may come later, where the agent last changed: the merge allows that).
 */
// biome-ignore lint/suspicious/noExplicitAny: each kind's `line` takes that kind's rows
const kinds: ReadonlyArray<{ table: string; columns: string; pushed?: true; line: (row: any) => SyncRecord }> = [
  {
    table: 'versions',
    columns: `${VERSION}, retired`,
    pushed: true,
    line: ({ retired, ...version }: VersionRecord & { retired: boolean }) => versionLine(version, retired),
  },
  { table: 'agents', columns: AGENT, line: (agent: AgentRecord) => agentLine(agent) },
  { table: 'deleted_agents', columns: 'id, user_id AS "userID", deleted_at AS "deletedAt"', line: (tombstone: DeletedAgentRecord) => deletionLine(tombstone) },
  { table: 'evaluations', columns: EVALUATION, pushed: true, line: (log: EvaluationRecord) => evaluationLine(log) },
  { table: 'feedback', columns: FEEDBACK, pushed: true, line: (feedback: FeedbackRecord) => feedbackLine(feedback) },
  { table: 'autopilot', columns: 'record', line: ({ record }: { record: AutopilotRecord }) => autopilotLine(record) },
];

/** Autopilot's state as a pull sends it: on or off, the candidate on trial (its definition is its version's), each output's spread. */
function autopilotLine({ agentID, enabled, candidate, spread }: AutopilotRecord): AutopilotLine {
  return {
    kind: 'autopilot',
    agentID,
    enabled,
    candidate: candidate ? { versionID: candidate.versionID, basedOn: candidate.basedOn, since: candidate.since } : null,
    ...(spread ? { spread } : {}),
  };
}

interface Position {
  tx: bigint;
  kind: number;
  seq: bigint;
}

const parse = (checkpoint: string): Position => {
  const [tx, kind, seq] = checkpoint.split('.');
  return { tx: BigInt(tx!), kind: Number(kind), seq: BigInt(seq!) };
};
const print = ({ tx, kind, seq }: Position) => `${tx}.${kind}.${seq}`;
const before = (a: Position, b: Position) => (a.tx !== b.tx ? a.tx < b.tx : a.kind !== b.kind ? a.kind < b.kind : a.seq < b.seq);

/**
 * The oldest transaction that may still commit rows of this database: the snapshot's running
 * transactions, less those `pg_stat_activity` shows running in another database (which cannot
 * write here; its `datid` and `backend_xid` are shown to every role), or past them all when none
 * is left. A transaction not found there (it ended meanwhile, or is prepared for two-phase commit)
 * counts as running, so the horizon is never later than the truth. `pg_snapshot_xmin` alone is
 * the cluster's: a long write in any other database on the server would hold every pull back.
 * (`ORDER BY … LIMIT 1`, not `min`: `min(xid8)` needs PostgreSQL 15.)
 */
const HORIZON = `
  SELECT COALESCE(
    (SELECT running FROM pg_snapshot_xip(snapshot) running
      WHERE (running::text::numeric % 4294967296)::text::xid NOT IN (
        SELECT backend_xid FROM pg_stat_activity
        WHERE backend_xid IS NOT NULL AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))
      ORDER BY running LIMIT 1),
    pg_snapshot_xmax(snapshot))::text AS horizon
  FROM pg_current_snapshot() snapshot`;

/**
 * The whole server's horizon, where the transactions cannot be placed: a role that may not read
 * `pg_stat_activity` (some servers revoke it), or a standby, whose snapshots list no running
 * transaction by itself.
 */
const SERVER_HORIZON = 'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon';

/**
 * Up to `limit` of the account's records that changed after `checkpoint`, oldest change first,
 * within one snapshot (run it in a REPEATABLE READ transaction). Only transactions older than
 * every one still running in this database are read (HORIZON): a transaction that started
 * earlier and commits later can never slip in behind a checkpoint already handed out.
 */
export async function readChanges(sql: Queryable, userID: string, checkpoint: string | undefined, limit: number, replica?: string): Promise<ChangePage> {
  // the transaction's snapshot is taken by this first statement, so pg_stat_activity is read after it
  const { rows: placeable } = await sql.query<{ yes: boolean }>(
    "SELECT has_table_privilege('pg_catalog.pg_stat_activity', 'SELECT') AND NOT pg_is_in_recovery() AS yes",
  );
  const { rows } = await sql.query<{ horizon: string }>(placeable[0]!.yes ? HORIZON : SERVER_HORIZON);
  const horizon = rows[0]!.horizon;
  const from = checkpoint === undefined ? { tx: 0n, kind: 0, seq: -1n } : parse(checkpoint);
  // every checkpoint handed out names a transaction older than the horizon then, and so than the
  // next transaction id now; one past that is from another database (one restored from a backup
  // starts its ids over), and pulling from it would answer nothing, ever
  if (from.tx >= BigInt(horizon)) {
    const { rows: next } = await sql.query<{ next: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next');
    if (from.tx >= BigInt(next[0]!.next)) {
      throw new ApiError(
        'InvalidRequest',
        `${UNKNOWN_CHECKPOINT} "${checkpoint}" is past every change this server has made: it is another database's (this one may have been restored from a backup); pull again without ?checkpoint= to start from the beginning`,
      );
    }
  }
  const found: Array<{ at: Position; bytes: number; record: SyncRecord | undefined }> = [];
  for (const [kind, { table, columns, pushed, line }] of kinds.entries()) {
    const seq = kind < from.kind ? AFTER_ALL : kind > from.kind ? '-1' : String(from.seq);
    // what the caller pushed is skipped, not left out of the count: a page of nothing but its own
    // records still moves the checkpoint on
    // the positions go out as text under other names: ORDER BY a bare name would sort the text
    // at most `limit + 1` rows, and of those only up to the one after the row that passes
    // PULL_BYTES: Node never holds more than about PULL_BYTES of one kind (plus two records)
    const result = await sql.query<{ feed_tx: string; feed_seq: string; feed_bytes: string; echo: boolean }>(
      `SELECT * FROM (
         SELECT *, sum(feed_bytes) OVER (ORDER BY feed_order_tx, feed_order_seq ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) AS feed_before
         FROM (SELECT ${columns}, sync_tx AS feed_order_tx, sync_seq AS feed_order_seq, sync_tx::text AS feed_tx, sync_seq::text AS feed_seq,
                 octet_length(row_record::text) AS feed_bytes, ${pushed ? 'COALESCE(sync_origin = $6, false)' : 'false'} AS echo
               FROM ${table} row_record
               WHERE user_id = $1 AND sync_tx < $2::xid8 AND (sync_tx, sync_seq) > ($3::xid8, $4::bigint)
               ORDER BY sync_tx, sync_seq LIMIT $5) limited
       ) sized
       WHERE COALESCE(feed_before, 0) < ${PULL_BYTES}
       ORDER BY feed_order_tx, feed_order_seq`,
      [userID, horizon, String(from.tx), seq, limit + 1, ...(pushed ? [replica ?? null] : [])],
    );
    // biome-ignore lint/suspicious/noExplicitAny: a row of whichever kind this query read
    for (const { feed_tx, feed_seq, feed_bytes, echo, feed_order_tx: _tx, feed_order_seq: _seq, feed_before: _before, ...row } of result.rows as any[]) {
      found.push({ at: { tx: BigInt(feed_tx), kind, seq: BigInt(feed_seq) }, bytes: Number(feed_bytes), record: echo ? undefined : line(present(row)) });
    }
  }
  found.sort((a, b) => (before(a.at, b.at) ? -1 : before(b.at, a.at) ? 1 : 0));
  // up to `limit` records, and no more once PULL_BYTES are taken (always one: a page moves on)
  let bytes = 0;
  let taken = 0;
  while (taken < Math.min(limit, found.length) && (taken === 0 || bytes < PULL_BYTES)) bytes += found[taken++]!.bytes;
  const page = found.slice(0, taken);
  return {
    records: page.flatMap(({ record }) => (record ? [record] : [])),
    checkpoint: page.length > 0 ? print(page.at(-1)!.at) : (checkpoint ?? null),
    more: found.length > page.length,
  };
}
