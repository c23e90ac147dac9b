import { z } from 'zod';
import { agentBodySchema, versionOriginSchema } from './agent.js';
import { storedDateSchema } from './dates.js';
import { inputsSchema, traceSchema } from './evaluation.js';
import { metricsSchema } from './feedback.js';

/** The first line of every backup names the format and its version. */
export const BACKUP_FORMAT = 'fuzzbox-backup';
/**
 * Raised when a record kind or field changes meaning; an import refuses files of a later version.
 * Version 2: a backup ends with a trailer line, `{"kind":"end","records":N}`, so a file cut off at
 * a line boundary is told from a whole one. Pulls and pushes (docs/SYNC.md) carry version 1's
 * lines, without a trailer: each is acknowledged whole by its answer (CHANGES_VERSION).
 */
export const BACKUP_VERSION = 2;
/** The version a pull's header and a push's say: a backup's lines, without a trailer. */
export const CHANGES_VERSION = 1;

/** The last line of a version-2 backup: how many records the lines between it and the header hold. */
export const backupTrailerSchema = z.object({ kind: z.literal('end'), records: z.number().int().nonnegative() });
export type BackupTrailer = z.infer<typeof backupTrailerSchema>;

const isoDate = storedDateSchema;
/** An agent's or version's id: one path segment of a URL (`..` would name a record no endpoint reaches). */
const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'an id is letters, digits, "-" and "_", as the service makes them' });
/** An evaluation's or feedback's id, a UUID as the service makes them. */
const uuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'an evaluation or feedback id is a UUID, as the service makes them' });
const numbers = z.record(z.string().min(1).max(200), z.number());

/** How deep a version's `evidence` nests, and how large it is written: autopilot's is 3 deep and a few hundred bytes. */
export const MAX_EVIDENCE_DEPTH = 8;
export const MAX_EVIDENCE_CHARS = 64 * 1024;

/** Whether `value` nests more than `limit` objects or arrays deep; a walk with a stack, not recursion, that stops past `limit`. */
export function depthOver(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

const evidenceSchema = z
  .record(z.string(), z.unknown())
  .refine((evidence) => !depthOver(evidence, MAX_EVIDENCE_DEPTH) && JSON.stringify(evidence).length <= MAX_EVIDENCE_CHARS, {
    error: `evidence nests at most ${MAX_EVIDENCE_DEPTH} deep and is at most ${MAX_EVIDENCE_CHARS} characters of JSON`,
  });
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
      evidence: evidenceSchema.optional(),
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
      reqID: uuid,
      agentID: id,
      versionID: id,
      input: inputsSchema,
      crisp: numbers,
      returned: numbers.optional(),
      /** autopilot's answers: the density `returned` was drawn with (checked against its version's outputs when stored) */
      density: z.number().positive().optional(),
      createdAt: isoDate,
      /** only logs an earlier fuzzbox wrote its trace into (agents deleted under schema version 1) */
      trace: traceSchema.optional(),
    }),
    z.object({ kind: z.literal('feedback'), id: uuid, evaluationLog: uuid, data: metricsSchema, createdAt: isoDate }),
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
