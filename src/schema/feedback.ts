import { z } from 'zod';
import { recordError } from './errors.js';
import { recordID } from './evaluation.js';

/**
 * The most feedback records one evaluation holds: listing an evaluation's feedback, and each
 * evaluation's in GET /agent/:id/evaluation, stays bounded (50,000 on one made a 9 MB answer).
 */
export const MAX_FEEDBACK_PER_EVALUATION = 100;

/** Why feedback on `reqID` is refused once it holds MAX_FEEDBACK_PER_EVALUATION. */
export const feedbackFull = (reqID: string) =>
  `evaluation "${reqID}" already has ${MAX_FEEDBACK_PER_EVALUATION} feedback records, the most one holds: post several metrics in one record, or outcomes of a new situation on a new evaluation`;

/** Feedback's metrics, as POST /evaluation/:id/feedback and every backup and push line take them. */
export const metricsSchema = z
  .record(
    z.string().min(1, { error: 'a metric name must not be empty' }).max(200, { error: 'a metric name must be at most 200 characters' }),
    z.number({ error: 'every metric value must be a finite number' }),
    { error: recordError('feedback must map metric name → number') },
  )
  .refine((data) => Object.keys(data).length > 0, { error: 'feedback must carry at least one metric' });

/**
 * POST /evaluation/:id/feedback accepts `{"data": {metric: number}}` or the bare map; a body whose
 * `data` is an object is the wrapped form, anything else is read as the bare map (so a metric
 * may itself be called "data").
 */
export const feedbackBodySchema = z.preprocess(
  (body) =>
    typeof body === 'object' && body !== null && !Array.isArray(body) && isPlainObject((body as { data?: unknown }).data)
      ? (body as { data: unknown }).data
      : body,
  metricsSchema,
);

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const feedbackSchema = z.object({
  id: recordID,
  evaluationLog: recordID,
  data: z.record(z.string(), z.number()),
  createdAt: z.iso.datetime({ precision: 3 }),
});
export type Feedback = z.infer<typeof feedbackSchema>;
