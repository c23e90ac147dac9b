// How stored records become the lines of a backup (GET /export, sync's pulls and pushes).
import type { BackupRecord } from '../schema/backup.js';
import type { AgentRecord, DeletedAgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from './records.js';
import { definitionOf } from './versions.js';

/** A version as a backup file holds it. */
export type VersionLine = Extract<BackupRecord, { kind: 'version' }>;
/** A backup record ready to store: a version's rules come parsed (the API compiles every definition). */
export type ImportRecord = Exclude<BackupRecord, VersionLine> | (VersionLine & { parsed_rules: unknown[] });

export function versionLine(version: VersionRecord, retired: boolean): VersionLine {
  const { id, versionOf, createdAt, seq, origin, evidence } = version;
  return {
    kind: 'version',
    id,
    versionOf,
    ...definitionOf(version),
    createdAt,
    seq,
    retired,
    ...(origin ? { origin } : {}),
    ...(evidence ? { evidence } : {}),
  };
}

export function agentLine(agent: AgentRecord): BackupRecord {
  const { id, createdAt, updatedAt, latestVersion, versionCount } = agent;
  return {
    kind: 'agent',
    id,
    ...definitionOf(agent),
    createdAt,
    updatedAt,
    latestVersion,
    versionCount,
  };
}

export const deletionLine = ({ id, deletedAt }: DeletedAgentRecord): BackupRecord => ({ kind: 'deletion', id, deletedAt });

export function evaluationLine(log: EvaluationRecord): BackupRecord {
  const { reqID, agentID, versionID, input, crisp, returned, density, createdAt, trace } = log;
  return {
    kind: 'evaluation',
    reqID,
    agentID,
    versionID,
    input,
    crisp,
    ...(returned ? { returned } : {}),
    ...(density === undefined ? {} : { density }),
    createdAt,
    ...(trace ? { trace } : {}),
  };
}

export const feedbackLine = ({ id, evaluationLog, data, createdAt }: FeedbackRecord): BackupRecord => ({
  kind: 'feedback',
  id,
  evaluationLog,
  data,
  createdAt,
});

/** JSON with object keys sorted: two records are the same whatever order their fields were written in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}
