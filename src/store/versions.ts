// How a definition becomes an agent record and a version, the same in every store.
import { ApiError } from '../schema/errors.js';
import type { AgentBody } from '../schema/agent.js';
import { newId, timestamp, timestampAfter } from './ids.js';
import type { AgentRecord, Provenance, VersionRecord } from './records.js';

const notFound = (id: string) => new ApiError('NotFound', `no agent with id "${id}"`);

/** Who owned a deleted agent, and when it was deleted where that is known. */
export interface DeletedAgent {
  userID: string;
  deletedAt?: string;
}

/**
 * The caller's agent, or NotFound (never existed, or someone else's), or Gone (deleted by its
 * owner), from what is stored for `id`.
 */
export function ownAgent(userID: string, id: string, agent: AgentRecord | undefined, deleted: DeletedAgent | undefined): AgentRecord {
  if (agent?.userID === userID) return agent;
  if (!agent && deleted?.userID === userID) {
    throw new ApiError('Gone', `agent "${id}" was deleted${deleted.deletedAt ? ` at ${deleted.deletedAt}` : ''}`);
  }
  throw notFound(id);
}

/** What a body sets on an agent; a PUT without `performance` (or `operators`) removes the agent's. */
export function definitionOf(body: AgentBody): Pick<AgentRecord, 'name' | 'inputs' | 'outputs' | 'rules' | 'performance' | 'operators'> {
  const { name, inputs, outputs, rules, performance, operators } = body;
  return { name, inputs, outputs, rules, ...(performance ? { performance } : {}), ...(operators ? { operators } : {}) };
}

/** A new agent of `userID` defined by `body`; its first version's id is `latestVersion`. */
export function newAgentRecord(userID: string, body: AgentBody): AgentRecord {
  const now = timestamp();
  return { id: newId(), userID, ...definitionOf(body), createdAt: now, updatedAt: now, latestVersion: newId(), versionCount: 1 };
}

/**
 * `current` defined anew (an update, a candidate, a promotion), at `latestVersion`: what the
 * definition leaves out (`performance`, `operators`) is removed, not kept from before.
 * Taken after the agent was read in its transaction, so concurrent writes get increasing times.
 */
export function redefined(current: AgentRecord, definition: AgentBody, latestVersion: string): AgentRecord {
  const { performance: _replaced, operators: _replacedToo, ...kept } = current;
  return { ...kept, ...definitionOf(definition), updatedAt: timestampAfter(current.updatedAt), latestVersion };
}

export function snapshot(agent: AgentRecord, parsedRules: unknown[], seq: number, provenance: Provenance): VersionRecord {
  return {
    id: agent.latestVersion,
    versionOf: agent.id,
    userID: agent.userID,
    name: agent.name,
    inputs: agent.inputs,
    outputs: agent.outputs,
    rules: agent.rules,
    ...(agent.performance ? { performance: agent.performance } : {}),
    ...(agent.operators ? { operators: agent.operators } : {}),
    parsed_rules: parsedRules,
    createdAt: agent.updatedAt,
    seq,
    origin: provenance.origin,
    ...(provenance.evidence ? { evidence: provenance.evidence } : {}),
  };
}

/** What a version records of its making when its writer says nothing else: a POST creates, every later change updates. */
export const CREATED: Provenance = { origin: 'created' };
export const UPDATED: Provenance = { origin: 'updated' };

/**
 * `current` when it is still at version `basedOn`, else Conflict: a change worked out from a
 * version someone has since replaced (an optimization, a rollback, a candidate) would undo theirs.
 */
export function stillAt(current: AgentRecord, basedOn: string): AgentRecord {
  if (current.latestVersion !== basedOn) {
    throw new ApiError(
      'Conflict',
      `agent "${current.id}" got a new version (${current.latestVersion}) meanwhile, so nothing was saved: read it again and retry`,
    );
  }
  return current;
}
