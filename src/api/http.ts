import { ApiError } from '../schema/errors.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The spelling docs/REST.md gives the headers the service sends. A `Headers` object lowercases names when
 * iterated, and clients of the earlier service matched `X-Evaluation-ID` case-sensitively, so an
 * adapter that writes a `Response` onto an HTTP stack (Node's `http`) spells names with this.
 */
const SPELLED_HEADERS = new Map(['X-Evaluation-ID', 'Content-Type', 'Location', 'Allow', 'WWW-Authenticate'].map((name) => [name.toLowerCase(), name]));

/** `x-evaluation-id` → `X-Evaluation-ID`; any other header keeps the spelling given. */
export function spelledHeaderName(name: string): string {
  return SPELLED_HEADERS.get(name.toLowerCase()) ?? name;
}

/** Every response, errors included, is JSON with this exact Content-Type. */
export function json(data: unknown, headers: Record<string, string> = {}, status = 200): Response {
  return jsonText(JSON.stringify(data), headers, status);
}

/** A response whose JSON text was built beforehand, e.g. before the data it reports was stored. */
export function jsonText(text: string, headers: Record<string, string> = {}, status = 200): Response {
  return new Response(text, { status, headers: { ...headers, 'Content-Type': JSON_TYPE } });
}

export const ok = () => json({ message: 'OK' });

/**
 * Maps anything thrown while handling a request onto the error vocabulary: the stores raise its
 * errors themselves (a full disk is their QuotaExceeded), so anything else is a bug.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  console.error('fuzzbox: internal error', error);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ApiError('InternalError', `internal error (a bug in fuzzbox, please report it): ${detail}`);
}

export function errorResponse(error: unknown): Response {
  const apiError = toApiError(error);
  return json(
    {
      status: 'error',
      error: apiError.name,
      message: apiError.message,
      ...(apiError.issues ? { issues: apiError.issues } : {}),
    },
    apiError.headers,
    apiError.status,
  );
}
