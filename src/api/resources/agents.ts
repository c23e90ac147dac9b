import type { Agent, AgentSummary } from '../../schema/agent.js';
import { agentBodySchema } from '../../schema/agent.js';
import { validationError } from '../../schema/errors.js';
import type { AgentRecord } from '../../store/records.js';
import { definitionOf } from '../../store/versions.js';
import { compileOrReject } from '../../core/compiled-agents.js';
import { modelResponse, preferredModelFormat } from '../model-files.js';
import { param, type Context } from '../context.js';
import { json, ok } from '../http.js';

export function agentView(agent: AgentRecord): Agent {
  const { id, createdAt, updatedAt, latestVersion } = agent;
  return {
    id,
    ...definitionOf(agent),
    createdAt,
    updatedAt,
    latestVersion,
  };
}

/** Validates a POST or PUT body completely: shape first, then everything the engine checks. */
function readDefinition(body: unknown) {
  const parsed = agentBodySchema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'agent');
  const compiled = compileOrReject(parsed.data);
  return { definition: parsed.data, parsedRules: [...compiled.parsedRules] };
}

/** GET /agent */
export async function listAgents({ userID, service }: Context): Promise<Response> {
  const agents = await service.store.listAgents(userID);
  return json(agents.map(({ id, name }): AgentSummary => ({ id, name })));
}

/** POST /agent */
export async function createAgent(context: Context): Promise<Response> {
  const { definition, parsedRules } = readDefinition(context.body);
  const agent = await context.service.store.createAgent(context.userID, definition, parsedRules);
  const location = new URL(`${context.service.basePath}agent/${encodeURIComponent(agent.id)}`, context.url);
  return json(agentView(agent), { Location: location.href });
}

/** GET /agent/:id, as JSON or, when Accept prefers one, as a model file */
export async function readAgent(context: Context): Promise<Response> {
  const agent = await context.service.store.readAgent(context.userID, param(context, 'id'));
  const format = preferredModelFormat(context.request.headers.get('accept'));
  if (format) return modelResponse(format, modelOf(agent));
  return json(agentView(agent), { Vary: 'Accept' });
}

/** An agent or a version as a model file holds it. */
export function modelOf({ name, inputs, outputs, rules, operators }: Pick<AgentRecord, 'name' | 'inputs' | 'outputs' | 'rules' | 'operators'>) {
  return { name, definition: { inputs, outputs, rules, ...(operators ? { operators } : {}) } };
}

/** PUT /agent/:id */
export async function updateAgent(context: Context): Promise<Response> {
  const { definition, parsedRules } = readDefinition(context.body);
  const agent = await context.service.store.updateAgent(context.userID, param(context, 'id'), definition, parsedRules);
  return json(agentView(agent));
}

/** DELETE /agent/:id */
export async function deleteAgent(context: Context): Promise<Response> {
  await context.service.store.deleteAgent(context.userID, param(context, 'id'));
  return ok();
}
