import type { AgentRecord } from '../records.js';
import type { Queryable } from './sql.js';

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

/** JSON for a json column; NULL for a property the record leaves out. */
export const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

const agentValues = (agent: AgentRecord) => [
  agent.id,
  agent.userID,
  agent.name,
  json(agent.inputs),
  json(agent.outputs),
  json(agent.rules),
  json(agent.performance),
  json(agent.operators),
  agent.createdAt,
  agent.updatedAt,
  agent.latestVersion,
  agent.versionCount,
];

/** Writes a new agent's row: every write of an agent goes through this or `updateAgentRow`. */
export async function insertAgentRow(sql: Queryable, agent: AgentRecord): Promise<void> {
  await sql.query(
    `INSERT INTO agents (id, user_id, name, inputs, outputs, rules, performance, operators, created_at, updated_at, latest_version, version_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    agentValues(agent),
  );
}

/** Writes every column of an agent's row but its id and owner. */
export async function updateAgentRow(sql: Queryable, agent: AgentRecord): Promise<void> {
  await sql.query(
    `UPDATE agents SET name = $3, inputs = $4, outputs = $5, rules = $6, performance = $7, operators = $8, created_at = $9,
     updated_at = $10, latest_version = $11, version_count = $12 WHERE id = $1 AND user_id = $2`,
    agentValues(agent),
  );
}
