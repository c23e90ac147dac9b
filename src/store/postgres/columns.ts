// Columns under the names of the records in records.ts, so rows need no mapping.
// NULL stands for a property IndexedDB leaves out: `present` drops it.
export const AGENT = `id, user_id AS "userID", name, inputs, outputs, rules, performance, operators, created_at AS "createdAt",
  updated_at AS "updatedAt", latest_version AS "latestVersion", version_count AS "versionCount"`;
export const VERSION = `id, version_of AS "versionOf", user_id AS "userID", name, inputs, outputs, rules, performance, operators,
  parsed_rules, created_at AS "createdAt", seq, origin, evidence`;
export const EVALUATION = `req_id AS "reqID", user_id AS "userID", agent_id AS "agentID", version_id AS "versionID",
  input, crisp, returned, density, created_at AS "createdAt", trace`;
export const FEEDBACK = `id, user_id AS "userID", evaluation_log AS "evaluationLog", data, created_at AS "createdAt"`;

/** A row as the store's record: without the optional properties that are NULL. */
export function present<T extends object>(row: T): T {
  for (const key of ['performance', 'operators', 'returned', 'density', 'trace', 'origin', 'evidence'] as const) {
    if (key in row && (row as Record<string, unknown>)[key] === null) delete (row as Record<string, unknown>)[key];
  }
  return row;
}
