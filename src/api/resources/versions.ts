import type { AgentVersion, VersionSummary } from '../../schema/agent.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';

/** GET /agent/:id/version: oldest first. */
export async function listAgentVersions(context: Context): Promise<Response> {
  const versions = await context.service.store.listVersions(context.userID, param(context, 'id'));
  return json(versions.map(({ id, createdAt }): VersionSummary => ({ id, createdAt })));
}

/** GET /version/:id */
export async function readVersion(context: Context): Promise<Response> {
  const record = await context.service.store.readVersion(context.userID, param(context, 'id'));
  const { id, versionOf, userID, name, inputs, outputs, rules, performance, parsed_rules, createdAt } = record;
  const version: AgentVersion = {
    id,
    versionOf,
    userID,
    name,
    inputs,
    outputs,
    rules,
    ...(performance ? { performance } : {}),
    parsed_rules,
    createdAt,
  };
  return json(version);
}
