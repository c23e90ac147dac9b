import { validationError } from '../../schema/errors.js';
import { feedbackBodySchema, type Feedback } from '../../schema/feedback.js';
import { timestamp } from '../../store/ids.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';

/** POST /evaluation/:id/feedback: `{"data": {metric: number}}` or the bare map. */
export async function postFeedback(context: Context): Promise<Response> {
  const parsed = feedbackBodySchema.safeParse(context.body);
  if (!parsed.success) throw validationError(parsed.error, 'feedback');
  const feedback: Feedback = {
    id: globalThis.crypto.randomUUID(),
    evaluationLog: param(context, 'id'),
    data: parsed.data,
    createdAt: timestamp(),
  };
  const { service, userID } = context;
  // autopilot checks the evaluation's agent after the response (docs/LEARNING.md); nudged before
  // it, so `idle()` waits for that check too
  service.autopilot.nudge(userID, await service.store.addFeedback(userID, { ...feedback }));
  return json(feedback);
}

/** GET /evaluation/:id/feedback: oldest first. */
export async function listFeedback(context: Context): Promise<Response> {
  const records = await context.service.store.listFeedback(context.userID, param(context, 'id'));
  return json(records.map(({ id, evaluationLog, data, createdAt }): Feedback => ({ id, evaluationLog, data, createdAt })));
}
