import { z } from 'zod';

/** One invalid field, e.g. `{path: "inputs.temperature.hot", message: "…"}`. */
export interface Issue {
  path: string;
  message: string;
}

/**
 * The error vocabulary of the REST interface: each name has one status, and callers (and the
 * service's own layers) switch on `name`. The body of every error response is
 * `{"status": "error", "error": name, "message": …, "issues"?: […]}`.
 */
export const errorStatus = {
  InvalidRequest: 400,
  ValidationError: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  /** the request conflicts with the data: too little feedback to optimise, or the agent changed meanwhile */
  Conflict: 409,
  Gone: 410,
  PayloadTooLarge: 413,
  QuotaExceeded: 507,
  InternalError: 500,
} as const;
export type ErrorName = keyof typeof errorStatus;

export class ApiError extends Error {
  override readonly name: ErrorName;
  readonly status: number;
  readonly issues: Issue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(name: ErrorName, message: string, extra: { issues?: Issue[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = name;
    this.status = errorStatus[name];
    this.issues = extra.issues;
    this.headers = extra.headers ?? {};
  }
}

export const errorBodySchema = z.object({
  status: z.literal('error'),
  error: z.enum(Object.keys(errorStatus) as [ErrorName, ...ErrorName[]]),
  message: z.string().min(1),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Zod's issue path `["inputs", "very low", 1]` as `inputs.very low[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

/** A 400 from a failed zod parse, listing every issue by path. */
export function validationError(error: z.ZodError, what: string): ApiError {
  const issues = error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  const first = issues[0];
  const where = first && first.path ? `${first.path}: ` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  return new ApiError('ValidationError', `invalid ${what}: ${where}${first?.message ?? 'invalid'}${more}`, { issues });
}
