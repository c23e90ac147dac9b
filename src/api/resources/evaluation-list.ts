import { ApiError } from '../../schema/errors.js';
import type { EvaluationEntry, EvaluationList } from '../../schema/evaluation-list.js';
import type { EvaluationPosition, EvaluationQuery } from '../../store/store.js';
import { fromBase64url, toBase64url } from '../../core/base64url.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** The position as an opaque URL-safe token: clients pass it back as it is. */
function encodeCursor({ seq, index, reqID }: EvaluationPosition): string {
  return toBase64url(new TextEncoder().encode(JSON.stringify([seq, index, reqID])));
}

function decodeCursor(cursor: string): EvaluationPosition {
  const refuse = () =>
    new ApiError(
      'InvalidRequest',
      '?cursor= is not a cursor this service gave out; pass the "next" of the previous page as it is, or leave it out for the first page',
    );
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(fromBase64url(cursor)));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(value) || value.length !== 3) throw refuse();
  const [seq, index, reqID] = value as unknown[];
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(index) || (index as number) < 0 || typeof reqID !== 'string') throw refuse();
  return { seq: seq as number, index: index as number, reqID };
}

function readQuery(url: URL): EvaluationQuery {
  const params = url.searchParams;
  const limitText = params.get('limit');
  const limit = limitText === null ? DEFAULT_PAGE : /^\d{1,4}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE)) {
    throw new ApiError(
      'InvalidRequest',
      `?limit= must be a whole number from 1 to ${MAX_PAGE} (got "${limitText?.slice(0, 40)}"); it defaults to ${DEFAULT_PAGE}`,
    );
  }
  const feedback = params.get('feedback');
  if (feedback !== null && feedback !== 'true' && feedback !== 'false') {
    throw new ApiError(
      'InvalidRequest',
      `?feedback= must be true (only evaluations with feedback) or false (only those without); got "${feedback.slice(0, 40)}"`,
    );
  }
  const cursor = params.get('cursor');
  const versionID = params.get('version');
  if (versionID === '') throw new ApiError('InvalidRequest', '?version= must name a version id (GET /agent/:id/version lists them)');
  return {
    limit,
    ...(cursor === null || cursor === '' ? {} : { after: decodeCursor(cursor) }),
    ...(versionID === null ? {} : { versionID }),
    ...(feedback === null ? {} : { feedback: feedback === 'true' }),
  };
}

/**
 * GET /agent/:id/evaluation?limit=&cursor=&version=&feedback=: the agent's evaluations, newest
 * first, each with its feedback; also a deleted agent's, for its owner (docs/REST.md).
 */
export async function listAgentEvaluations(context: Context): Promise<Response> {
  const query = readQuery(context.url);
  const page = await context.service.store.listEvaluations(context.userID, param(context, 'id'), query);
  const answer: EvaluationList = {
    evaluations: page.entries.map(({ evaluation, feedback }): EvaluationEntry => {
      const { reqID, versionID, input, crisp, returned, createdAt } = evaluation;
      return {
        reqID,
        versionID,
        input,
        crisp,
        ...(returned ? { returned } : {}),
        createdAt,
        feedback: feedback.map(({ id, evaluationLog, data, createdAt: at }) => ({ id, evaluationLog, data, createdAt: at })),
      };
    }),
    next: page.next ? encodeCursor(page.next) : null,
  };
  return json(answer);
}
