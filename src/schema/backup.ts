import { z } from 'zod';
import { agentBodySchema, versionOriginSchema } from './agent.js';
import { traceSchema } from './evaluation.js';

/** The first line of every backup names the format and its version. */
export const BACKUP_FORMAT = 'fuzzbox-backup';
/** Raised when a record kind or field changes meaning; an import refuses files of a later version. */
export const BACKUP_VERSION = 1;

const isoDate = z.iso.datetime({ precision: 3 });
const id = z.string().min(1).max(200);
const numbers = z.record(z.string(), z.number());
const definition = agentBodySchema.pick({ inputs: true, outputs: true, rules: true, performance: true, operators: true }).extend({
  name: z.string().max(200),
});

export const backupHeaderSchema = z.object({
  format: z.literal(BACKUP_FORMAT, { error: `the first line must be a fuzzbox backup header {"format": "${BACKUP_FORMAT}", …}` }),
  version: z.number().int().positive(),
  exportedAt: isoDate,
});
export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/**
 * One record a line after the header, in an order where each refers only to lines before it:
 * each live agent's versions then the agent; deleted agents' versions then their tombstones;
 * evaluation logs; feedback. No line carries an account: an import makes them the caller's.
 */
export const backupRecordSchema = z.discriminatedUnion(
  'kind',
  [
    definition.extend({
      kind: z.literal('version'),
      id,
      versionOf: id,
      createdAt: isoDate,
      seq: z.number().int().nonnegative(),
      /** a version of a deleted agent, kept to recompute its logs */
      retired: z.boolean(),
      /** why the version exists (docs/LEARNING.md) */
      origin: versionOriginSchema.optional(),
      /** what it rests on */
      evidence: z.record(z.string(), z.unknown()).optional(),
    }),
    definition.extend({
      kind: z.literal('agent'),
      id,
      createdAt: isoDate,
      updatedAt: isoDate,
      latestVersion: id,
      versionCount: z.number().int().positive(),
    }),
    z.object({ kind: z.literal('deletion'), id, deletedAt: isoDate }),
    z.object({
      kind: z.literal('evaluation'),
      reqID: id,
      agentID: id,
      versionID: id,
      input: numbers,
      crisp: numbers,
      returned: numbers.optional(),
      /** autopilot's answers: the density `returned` was drawn with */
      density: z.number().optional(),
      createdAt: isoDate,
      /** only logs an earlier fuzzbox wrote its trace into (agents deleted under schema version 1) */
      trace: traceSchema.optional(),
    }),
    z.object({ kind: z.literal('feedback'), id, evaluationLog: id, data: numbers, createdAt: isoDate }),
  ],
  { error: 'a line must be a record whose "kind" is version, agent, deletion, evaluation or feedback' },
);
export type BackupRecord = z.infer<typeof backupRecordSchema>;

/** What `POST /import` answers: the lines read, and how many records were new and how many already there. */
export const importResultSchema = z.object({
  lines: z.number().int().nonnegative(),
  imported: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
});
export type ImportResult = z.infer<typeof importResultSchema>;
