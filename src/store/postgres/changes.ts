// The server's side of sync (docs/SYNC.md): an account's records in the order they last
// changed, from the feed columns of migration 3.
import type { AutopilotLine } from '../../schema/sync.js';
import { agentLine, deletionLine, evaluationLine, feedbackLine, versionLine } from '../backup.js';
import type { AgentRecord, AutopilotRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from '../records.js';
import type { ChangePage, SyncRecord } from '../store.js';
import { AGENT, EVALUATION, FEEDBACK, present, VERSION } from './columns.js';
import type { Queryable } from './sql.js';

/** Past any sequence number: a kind before the checkpoint's, in its transaction, is all read. */
const AFTER_ALL = '9223372036854775807';

/**
 * The kinds in the order a transaction's records go out: each refers only to kinds before it
 * (a version's agent may come later, where the agent last changed: the merge allows that).
 */
const kinds: ReadonlyArray<{ table: string; columns: string; pushed?: true; line: (row: any) => SyncRecord }> = [
  { table: 'versions', columns: `${VERSION}, retired`, pushed: true, line: ({ retired, ...version }: VersionRecord & { retired: boolean }) => versionLine(version, retired) },
  { table: 'agents', columns: AGENT, line: (agent: AgentRecord) => agentLine(agent) },
  { table: 'deleted_agents', columns: 'id, user_id AS "userID", deleted_at AS "deletedAt"', line: (tombstone: DeletedAgentRecord) => deletionLine(tombstone) },
  { table: 'evaluations', columns: EVALUATION, pushed: true, line: (log: EvaluationRecord) => evaluationLine(log) },
  { table: 'feedback', columns: FEEDBACK, pushed: true, line: (feedback: FeedbackRecord) => feedbackLine(feedback) },
  { table: 'autopilot', columns: 'record', line: ({ record }: { record: AutopilotRecord }) => autopilotLine(record) },
];

/** Autopilot's state as a pull sends it: on or off, and the candidate on trial (its definition is its version's). */
function autopilotLine({ agentID, enabled, candidate }: AutopilotRecord): AutopilotLine {
  return { kind: 'autopilot', agentID, enabled, candidate: candidate ? { versionID: candidate.versionID, basedOn: candidate.basedOn, since: candidate.since } : null };
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
const before = (a: Position, b: Position) => a.tx !== b.tx ? a.tx < b.tx : a.kind !== b.kind ? a.kind < b.kind : a.seq < b.seq;

/**
 * Up to `limit` of the account's records that changed after `checkpoint`, oldest change first,
 * within one snapshot (run it in a REPEATABLE READ transaction). Only transactions older than
 * every one still running are read (`pg_snapshot_xmin`): a transaction that started earlier and
 * commits later can never slip in behind a checkpoint already handed out.
 */
export async function readChanges(sql: Queryable, userID: string, checkpoint: string | undefined, limit: number, replica?: string): Promise<ChangePage> {
  const { rows } = await sql.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
  const horizon = rows[0]!.horizon;
  const from = checkpoint === undefined ? { tx: 0n, kind: 0, seq: -1n } : parse(checkpoint);
  const found: Array<{ at: Position; record: SyncRecord | undefined }> = [];
  for (const [kind, { table, columns, pushed, line }] of kinds.entries()) {
    const seq = kind < from.kind ? AFTER_ALL : kind > from.kind ? '-1' : String(from.seq);
    // what the caller pushed is skipped, not left out of the count: a page of nothing but its own
    // records still moves the checkpoint on
    // the positions go out as text under other names: ORDER BY a bare name would sort the text
    const result = await sql.query<{ feed_tx: string; feed_seq: string; echo: boolean }>(
      `SELECT ${columns}, sync_tx::text AS feed_tx, sync_seq::text AS feed_seq, ${pushed ? 'COALESCE(sync_origin = $6, false)' : 'false'} AS echo FROM ${table}
       WHERE user_id = $1 AND sync_tx < $2::xid8 AND (sync_tx, sync_seq) > ($3::xid8, $4::bigint)
       ORDER BY sync_tx, sync_seq LIMIT $5`,
      [userID, horizon, String(from.tx), seq, limit + 1, ...(pushed ? [replica ?? null] : [])],
    );
    for (const { feed_tx, feed_seq, echo, ...row } of result.rows) {
      found.push({ at: { tx: BigInt(feed_tx), kind, seq: BigInt(feed_seq) }, record: echo ? undefined : line(present(row)) });
    }
  }
  found.sort((a, b) => (before(a.at, b.at) ? -1 : before(b.at, a.at) ? 1 : 0));
  const page = found.slice(0, limit);
  return {
    records: page.flatMap(({ record }) => (record ? [record] : [])),
    checkpoint: page.length > 0 ? print(page.at(-1)!.at) : (checkpoint ?? null),
    more: found.length > limit,
  };
}
