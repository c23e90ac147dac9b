import { z } from 'zod';

/** How many records of each kind the caller's account holds. */
export const recordCountsSchema = z.object({
  agents: z.number().int().nonnegative(),
  /** versions of live agents */
  versions: z.number().int().nonnegative(),
  /** versions of deleted agents, kept to recompute their logs */
  retiredVersions: z.number().int().nonnegative(),
  /** deleted agents' tombstones */
  deletions: z.number().int().nonnegative(),
  evaluations: z.number().int().nonnegative(),
  feedback: z.number().int().nonnegative(),
});
export type RecordCounts = z.infer<typeof recordCountsSchema>;

/**
 * GET /storage. `usage`, `quota` and `persisted` describe the whole origin's storage as the
 * browser reports it (every account of the service and anything else the origin stores), `null`
 * where the service cannot know (no storage manager, e.g. in Node); `counts` are the caller's.
 */
export const storageStatusSchema = z.object({
  usage: z.number().nonnegative().nullable(),
  quota: z.number().nonnegative().nullable(),
  persisted: z.boolean().nullable(),
  counts: recordCountsSchema,
});
export type StorageStatus = z.infer<typeof storageStatusSchema>;
