import { z } from 'zod';
import { evaluationLogSchema } from './evaluation.js';
import { feedbackSchema } from './feedback.js';

/** One evaluation in a listing: its log without the trace (GET /evaluation/:id has it), and its feedback, oldest first. */
export const evaluationEntrySchema = evaluationLogSchema
  .pick({ reqID: true, versionID: true, input: true, crisp: true, returned: true, createdAt: true })
  .extend({ feedback: z.array(feedbackSchema) });
export type EvaluationEntry = z.infer<typeof evaluationEntrySchema>;

/** GET /agent/:id/evaluation: newest first; `next` is the cursor of the following page, null at the end. */
export const evaluationListSchema = z.object({
  evaluations: z.array(evaluationEntrySchema),
  next: z.string().nullable(),
});
export type EvaluationList = z.infer<typeof evaluationListSchema>;
