// A definition becomes a version's body: an optimization's proposal, autopilot's candidate, or
// an earlier version a rollback returns to, all saved the same way.
import type { AgentDefinition } from '../engine/types.js';
import type { AgentBody } from '../schema/agent.js';
import { compileOrReject } from './compiled-agents.js';

/**
 * The body of a new version defined as `definition` is (a copy: the engine's definitions are
 * read-only), named `name`, with the agent's `performance`, and its rules parsed: nothing the
 * engine refuses is saved.
 */
export function versionBody(name: string, definition: AgentDefinition, performance: AgentBody['performance']): { body: AgentBody; parsedRules: unknown[] } {
  const { inputs, outputs, rules, operators } = structuredClone(definition) as Pick<AgentBody, 'inputs' | 'outputs' | 'rules' | 'operators'>;
  const body: AgentBody = { name, inputs, outputs, rules, ...(performance ? { performance } : {}), ...(operators ? { operators } : {}) };
  return { body, parsedRules: [...compileOrReject(body).parsedRules] };
}
