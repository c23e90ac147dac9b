// The error vocabulary alone, without zod: what a client (fuzzbox/client) needs to read an error
// body, so a page that only calls the interface does not load the schemas.

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
  /** GET /agent/:id or /version/:id asked for a model file the agent cannot be written as */
  NotAcceptable: 406,
  /** the request conflicts with the data: too little feedback to optimize, or the agent changed meanwhile */
  Conflict: 409,
  Gone: 410,
  PayloadTooLarge: 413,
  QuotaExceeded: 507,
  InternalError: 500,
} as const;
export type ErrorName = keyof typeof errorStatus;
