import type { AgentVersion, VersionSummary } from '../../schema/agent.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';
import { modelResponse, preferredModelFormat } from '../model-files.js';
import { modelOf } from './agents.js';
import { definitionOf } from '../../store/versions.js';

/** GET /agent/:id/version: oldest first, each with why it exists (`origin`) when recorded. */
export async function listAgentVersions(context: Context): Promise<Response> {
  const versions = await context.service.store.listVersions(context.userID, param(context, 'id'));
  return json(versions.map(({ id, createdAt, origin }): VersionSummary => ({ id, createdAt, ...(origin ? { origin } : {}) })));
}

/** GET /version/:id, as JSON or, when Accept prefers one, as a model file */
export async function readVersion(context: Context): Promise<Response> {
  const record = await context.service.store.readVersion(context.userID, param(context, 'id'));
  const format = preferredModelFormat(context.request.headers.get('accept'));
  if (format) return modelResponse(format, modelOf(record));
  const { id, versionOf, userID, parsed_rules, createdAt } = record;
  const version: AgentVersion = {
    id,
    versionOf,
    userID,
    ...definitionOf(record),
    parsed_rules,
    createdAt,
  };
  return json(version, { Vary: 'Accept' });
}
