import { Dexie } from 'dexie';
import type { AgentBody } from '../../schema/agent.js';
import { headOf, type FuzzboxDatabase } from './database.js';
import { isQuotaExceeded } from './quota.js';
import { ApiError } from '../../schema/errors.js';
import { newId, timestamp } from '../ids.js';
import { CREATED, newAgentRecord, ownAgent, redefined, snapshot, stillAt, UPDATED, type DeletedAgent } from '../versions.js';
import type { AgentRecord, Provenance, VersionRecord } from '../records.js';

/**
 * The owners of those of `ids` that were deleted: a tombstone in deletedAgents, with the time, or
 * (a delete on a full disk, see deleteAgent) versions and no agent. Call inside a transaction over
 * deletedAgents and versions.
 */
export async function deletedOwners(db: FuzzboxDatabase, ids: readonly string[]): Promise<Map<string, DeletedAgent>> {
  const owners = new Map<string, DeletedAgent>();
  if (ids.length === 0) return owners;
  const tombstones = await db.deletedAgents.bulkGet([...ids]);
  for (const [i, id] of ids.entries()) {
    const tombstone = tombstones[i];
    const version = tombstone ? undefined : await versionsOf(db, id).first();
    const deleted = tombstone ?? version;
    if (deleted) owners.set(id, { userID: deleted.userID, ...(tombstone ? { deletedAt: tombstone.deletedAt } : {}) });
  }
  return owners;
}

/** `ownAgent` read from the database; call inside a transaction over agents, deletedAgents and versions. */
export async function requireAgent(db: FuzzboxDatabase, userID: string, id: string): Promise<AgentRecord> {
  const agent = await db.agents.get(id);
  return ownAgent(userID, id, agent, agent ? undefined : (await deletedOwners(db, [id])).get(id));
}

/** Stores `agent` and its head; call inside a read-write transaction over agents and heads. */
export async function putAgent(db: FuzzboxDatabase, agent: AgentRecord, options: { add?: boolean } = {}): Promise<void> {
  await (options.add ? db.agents.add(agent) : db.agents.put(agent));
  await db.heads.put(headOf(agent));
}

export function readAgent(db: FuzzboxDatabase, userID: string, id: string): Promise<AgentRecord> {
  return db.transaction('r', db.agents, db.deletedAgents, db.versions, () => requireAgent(db, userID, id));
}

export async function listAgents(db: FuzzboxDatabase, userID: string): Promise<AgentRecord[]> {
  // ids sort by creation time, and an index lists equal keys in primary-key order
  return db.agents.where('userID').equals(userID).toArray();
}

/** The agent and its first version, in one transaction. */
export async function createAgent(
  db: FuzzboxDatabase,
  userID: string,
  body: AgentBody,
  parsedRules: unknown[],
  provenance: Provenance = CREATED,
): Promise<AgentRecord> {
  const agent = newAgentRecord(userID, body);
  await db.transaction('rw', db.agents, db.heads, db.versions, async () => {
    await putAgent(db, agent, { add: true });
    await db.versions.add(snapshot(agent, parsedRules, 0, provenance));
  });
  return agent;
}

/** The new definition and a new version, in one transaction; versions are numbered in commit order. */
export function updateAgent(
  db: FuzzboxDatabase,
  userID: string,
  id: string,
  body: AgentBody,
  parsedRules: unknown[],
  provenance: Provenance = UPDATED,
): Promise<AgentRecord> {
  return db.transaction('rw', db.agents, db.heads, db.versions, db.deletedAgents, async () => {
    const current = await requireAgent(db, userID, id);
    const agent: AgentRecord = { ...redefined(current, body, newId()), versionCount: current.versionCount + 1 };
    await putAgent(db, agent);
    await db.versions.add(snapshot(agent, parsedRules, current.versionCount, provenance));
    return agent;
  });
}

export function versionsOf(db: FuzzboxDatabase, agentID: string) {
  return db.versions.where('[versionOf+seq]').between([agentID, Dexie.minKey], [agentID, Dexie.maxKey]);
}

/**
 * Removes the agent and leaves a tombstone, in one transaction. Its versions move to
 * retiredVersions: gone from the interface (`GET /version/:id` answers 404), still there for
 * recomputing the agent's evaluation logs, which stay readable.
 *
 * On a full disk that transaction fails (it adds records), and browsers commit only transactions
 * that add nothing: the delete then removes the agent's record alone and leaves its versions where
 * they are, which `deletedOwners` reads as a deletion (without its time). So a full disk never
 * stops a delete.
 */
export async function deleteAgent(db: FuzzboxDatabase, userID: string, id: string): Promise<void> {
  try {
    await db.transaction('rw', [db.agents, db.heads, db.versions, db.retiredVersions, db.deletedAgents], async () => {
      await requireAgent(db, userID, id);
      const versions = await versionsOf(db, id).toArray();
      await db.retiredVersions.bulkAdd(versions);
      await db.versions.bulkDelete(versions.map((version) => version.id));
      await db.agents.delete(id);
      await db.heads.delete(id);
      await db.deletedAgents.add({ id, userID, deletedAt: timestamp() });
    });
  } catch (error) {
    if (!isQuotaExceeded(error)) throw error;
    await db.transaction('rw', [db.agents, db.heads, db.versions, db.deletedAgents], async () => {
      await requireAgent(db, userID, id);
      await db.agents.delete(id);
      await db.heads.delete(id);
    });
  }
}

export function listVersions(db: FuzzboxDatabase, userID: string, agentID: string): Promise<VersionRecord[]> {
  return db.transaction('r', db.agents, db.deletedAgents, db.versions, async () => {
    await requireAgent(db, userID, agentID);
    return versionsOf(db, agentID).toArray();
  });
}

/** The caller's version of a live agent; a deleted agent's versions answer NotFound, as on its DELETE. */
export function readVersion(db: FuzzboxDatabase, userID: string, id: string): Promise<VersionRecord> {
  return db.transaction('r', db.versions, db.agents, async () => {
    const version = await db.versions.get(id);
    if (version?.userID !== userID || !(await db.agents.get(version.versionOf))) {
      throw new ApiError('NotFound', `no version with id "${id}"`);
    }
    return version;
  });
}

/** Makes the candidate `versionID` the agent's latest version, only if the agent is still at `basedOn` (else Conflict). */
export function promoteVersion(db: FuzzboxDatabase, userID: string, id: string, versionID: string, basedOn: string): Promise<AgentRecord> {
  return db.transaction('rw', db.agents, db.heads, db.versions, db.deletedAgents, async () => {
    const current = await requireAgent(db, userID, id);
    stillAt(current, basedOn);
    const version = await db.versions.get(versionID);
    if (version?.versionOf !== id) throw new ApiError('NotFound', `no version "${versionID}" of agent "${id}"`);
    const agent = redefined(current, version, versionID);
    await putAgent(db, agent);
    return agent;
  });
}
