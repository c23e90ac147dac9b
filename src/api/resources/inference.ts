import { answerEvaluations, type EvaluationRequest } from '../../core/answering.js';
import type { Inputs } from '../../engine/types.js';
import { MAX_EXPLORATION } from '../../learn/index.js';
import { ApiError, validationError } from '../../schema/errors.js';
import { batchSchema, inputsSchema } from '../../schema/evaluation.js';
import { param, type Context } from '../context.js';
import { jsonText } from '../http.js';

/** `?meta=true|1|yes|` → "meta"; `false|0|no` → none; anything else names the property. */
export function metaProperty(url: URL): string | undefined {
  const value = url.searchParams.get('meta');
  if (value === null) return undefined;
  const lower = value.toLowerCase();
  if (['false', '0', 'no'].includes(lower)) return undefined;
  return ['true', '1', 'yes', ''].includes(lower) ? 'meta' : value;
}

function readInputs(body: unknown): { items: Inputs[]; batch: boolean } {
  const batch = Array.isArray(body);
  const parsed = batch ? batchSchema.safeParse(body) : inputsSchema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'inputs');
  return { items: batch ? (parsed.data as Inputs[]) : [parsed.data as Inputs], batch };
}

/** `?explore=S`: exploration noise of standard deviation S × each output's range; none without it. */
export function explorationScale(url: URL): number | undefined {
  const value = url.searchParams.get('explore');
  if (value === null) return undefined;
  const scale = value.trim() === '' ? NaN : Number(value);
  if (!(scale > 0 && scale <= MAX_EXPLORATION)) {
    throw new ApiError(
      'InvalidRequest',
      `?explore= must be a number in (0, ${MAX_EXPLORATION}]: the noise's standard deviation as a share of each output's range, e.g. ?explore=0.1 (got "${value}")`,
    );
  }
  return scale;
}

/** POST /agent/:id: one inputs object or a batch, answered by the agent (core/answering.ts), one log stored per item. */
export async function evaluateAgent(context: Context): Promise<Response> {
  const { service, userID } = context;
  const request: EvaluationRequest = { userID, ...readInputs(context.body), metaName: metaProperty(context.url), exploration: explorationScale(context.url) };
  const { text, reqIDs } = await answerEvaluations(service, param(context, 'id'), request);
  return jsonText(text, { 'X-Evaluation-ID': reqIDs.join(',') });
}
