import { z } from 'zod';

/**
 * Which evaluation logs the service keeps: those of the last `days` days and/or the last
 * `perAgent` of each agent (a log must pass both limits given); with `keepWithFeedback`, a log
 * that received feedback is kept whatever its age or rank. Dropped logs go with their feedback.
 */
export const retentionPolicySchema = z
  .object({
    days: z.number().positive().optional(),
    perAgent: z.number().int().nonnegative().optional(),
    keepWithFeedback: z.boolean().optional(),
  })
  .refine((policy) => policy.days !== undefined || policy.perAgent !== undefined, {
    error: 'a retention policy needs days, perAgent or both',
  });
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;
