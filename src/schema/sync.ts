import { z } from 'zod';
import { storedDateSchema } from './dates.js';

/** The most records one `GET /sync/pull` answers. */
export const MAX_PULL_LIMIT = 5000;
/** What a pull answers when `limit` is not given. */
export const DEFAULT_PULL_LIMIT = 1000;

const CHECKPOINT_HINT = 'a checkpoint is what the previous pull answered in "checkpoint" (or leave it out to start from the beginning)';
/** The largest number a checkpoint's parts hold (a bigint's). */
const MAX_POSITION = 2n ** 63n - 1n;

/**
 * Where a pull stopped, opaque to clients: the server's position in its change feed
 * (docs/SYNC.md, "Checkpoints"), `<transaction>.<kind>.<sequence>`, all decimal.
 */
export const checkpointSchema = z
  .string()
  .max(100)
  .regex(/^\d{1,20}\.[0-5]\.\d{1,20}$/, { error: CHECKPOINT_HINT })
  // PostgreSQL's xid8 and bigint: a position past them was never handed out, and would fail the query
  .refine((checkpoint) => checkpoint.split('.').every((part) => !/^\d{1,20}$/.test(part) || BigInt(part) <= MAX_POSITION), { error: CHECKPOINT_HINT });

/**
 * How the message of a pull's 400 begins when its checkpoint is past every change the server has
 * made (the server's database is older than the one that handed it out: restored from a backup).
 * A replica that reads it (error `InvalidRequest`) pulls everything again from the beginning.
 */
export const UNKNOWN_CHECKPOINT = 'unknown checkpoint:';

export const pullQuerySchema = z.object({
  checkpoint: checkpointSchema.optional(),
  // digits only: Number() would also read "0x10", "1e3" and " 7 "
  limit: z
    .string()
    .regex(/^\d{1,4}$/, { error: `limit must be a whole number from 1 to ${MAX_PULL_LIMIT}, in decimal digits` })
    .transform(Number)
    .pipe(z.number().min(1).max(MAX_PULL_LIMIT))
    .default(DEFAULT_PULL_LIMIT),
});

/**
 * The first line of a pull's NDJSON answer: a backup header (so the lines after it read as a
 * backup's do) with where the next pull starts, and whether there is more to pull right now.
 */
export interface PullHeader {
  format: 'fuzzbox-backup';
  version: number;
  exportedAt: string;
  checkpoint: string | null;
  more: boolean;
}

/** What the app can show of a replica's sync (`GET /sync/status`, the service's `syncStatus()`). */
export const syncStatusSchema = z.object({
  /** the server synced with */
  url: z.string(),
  /** when a round last completed (pull and push), ISO 8601; null before the first */
  lastSync: z.string().nullable(),
  /** records written here and not yet acknowledged by the server (a lower bound while a round runs) */
  pending: z.number().int().nonnegative(),
  /** why the last round failed, null when it succeeded */
  lastError: z.string().nullable(),
  /** whether a round is running now */
  syncing: z.boolean(),
});
export type SyncStatus = z.infer<typeof syncStatusSchema>;

const isoDate = storedDateSchema;

/**
 * A pull's line for autopilot's state of an agent (docs/SYNC.md, "Learning"): whether it is on,
 * the candidate on trial, whose definition is the version `versionID`, and how widely to draw
 * each output. Only servers send it.
 */
export const autopilotLineSchema = z.object({
  kind: z.literal('autopilot'),
  agentID: z.string().min(1).max(200),
  enabled: z.boolean(),
  candidate: z.object({ versionID: z.string().min(1).max(200), basedOn: z.string().min(1).max(200), since: isoDate }).nullable(),
  /** each output's spread for autopilot's draws (absent from servers before it: WIDEST_SPREAD, 0.08, for every output) */
  spread: z.record(z.string().min(1).max(200), z.number().positive().max(1)).optional(),
});
export type AutopilotLine = z.infer<typeof autopilotLineSchema>;
