import type { EvaluationLog } from '../../schema/evaluation.js';
import { ApiError } from '../../schema/errors.js';
import { recomputeTrace } from '../../core/compiled-agents.js';
import { param, type Context } from '../context.js';
import { json, ok } from '../http.js';

/** GET /evaluation/:id: the stored log, its trace recomputed from the immutable version it ran on. */
export async function readEvaluation(context: Context): Promise<Response> {
  const { service } = context;
  const { evaluation, version } = await service.store.readEvaluation(context.userID, param(context, 'id'));
  const trace = evaluation.trace ?? (version && recomputeTrace(service.compiledAgents.get(version.id, version), evaluation.input));
  if (!trace) {
    throw new ApiError('InternalError', `evaluation "${evaluation.reqID}" lost its version "${evaluation.versionID}"`);
  }
  const { reqID, userID, agentID, versionID, input, crisp, returned, density, createdAt } = evaluation;
  const { fuzzified, rules, inferred, clipped, combined, centroid } = trace;
  const log: EvaluationLog = {
    reqID,
    userID,
    agentID,
    versionID,
    input,
    fuzzified,
    rules,
    inferred,
    clipped,
    combined,
    centroid,
    crisp,
    ...(returned ? { returned } : {}),
    ...(density === undefined ? {} : { density }),
    createdAt,
  };
  return json(log);
}

/** DELETE /evaluation/:id: erases the log and its feedback. */
export async function deleteEvaluation(context: Context): Promise<Response> {
  await context.service.store.deleteEvaluation(context.userID, param(context, 'id'));
  return ok();
}
