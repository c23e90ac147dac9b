import { Dexie } from 'dexie';
import { ApiError } from '../schema/errors.js';
import type { AgentBody } from '../schema/agent.js';
import { requireAgent, updateAgent } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { logsOf } from './evaluations.js';
import { feedbackOfGroup } from './feedback.js';
import type { AgentRecord, AutopilotRecord, EvaluationRecord, FeedbackRecord, LogGroupRecord, Provenance } from './records.js';
import type { MetricLog } from './store.js';

/**
 * Feedback on these evaluations of the caller's (the logs of `groups`), possibly with feedback on
 * others mixed in. One range per group while the evaluations are few next to all the caller's
 * feedback, in the evaluations' order, each's oldest first; past that, one pass over the caller's
 * feedback is faster (IndexedDB has no cheap "any of these 10,000 keys": Dexie's anyOf takes
 * minutes on fake-indexeddb at that size).
 */
async function feedbackOn(db: FuzzboxDatabase, userID: string, evaluations: Map<string, EvaluationRecord>, groups: LogGroupRecord[]): Promise<FeedbackRecord[]> {
  const own = db.feedback.where('[userID+seq]').between([userID, Dexie.minKey], [userID, Dexie.maxKey]);
  if (evaluations.size * 4 >= (await own.count())) return own.toArray();
  const lists = await Promise.all(groups.map((group) => feedbackOfGroup(db, userID, group.seq!)));
  const place = new Map([...evaluations.keys()].map((reqID, i) => [reqID, i]));
  const at = (feedback: FeedbackRecord) => place.get(feedback.evaluationLog) ?? Infinity;
  return lists.flat().sort((a, b) => at(a) - at(b) || a.seq! - b.seq!);
}

/** What the optimiser learns from, read in one transaction so it is one consistent picture. */
export function readMetricLog(db: FuzzboxDatabase, userID: string, agentID: string, metric: string): Promise<MetricLog> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.logGroups, db.feedback], async () => {
    const agent = await requireAgent(db, userID, agentID);
    const groups = await db.logGroups.where('[userID+agentID]').equals([userID, agentID]).toArray();
    const evaluations = groups.flatMap(logsOf);
    const byID = new Map(evaluations.map((evaluation) => [evaluation.reqID, evaluation]));
    const values = new Map<string, number>();
    const metrics = new Set<string>();
    // oldest first (both reads below keep primary-key order per evaluation): a later value for the
    // same metric replaces an earlier one
    for (const { evaluationLog, data } of await feedbackOn(db, userID, byID, groups)) {
      if (!byID.has(evaluationLog)) continue;
      for (const name of Object.keys(data)) metrics.add(name);
      if (Object.hasOwn(data, metric)) values.set(evaluationLog, data[metric]!);
    }
    const entries = [...values].map(([reqID, value]) => ({ evaluation: byID.get(reqID)!, value }));
    return { agent, entries, metrics };
  });
}

/**
 * Saves a new version exactly as a PUT does, but only if the agent is still at `basedOn`: an
 * optimisation of a version someone has since replaced would silently undo their change.
 */
export function updateAgentFrom(
  db: FuzzboxDatabase,
  userID: string,
  agentID: string,
  basedOn: string,
  body: AgentBody,
  parsedRules: unknown[],
  provenance: Provenance = { origin: 'optimised' },
): Promise<AgentRecord> {
  return db.transaction('rw', db.agents, db.heads, db.versions, db.deletedAgents, async () => {
    const current = await requireAgent(db, userID, agentID);
    if (current.latestVersion !== basedOn) {
      throw new ApiError(
        'Conflict',
        `agent "${agentID}" got a new version (${current.latestVersion}) while it was being optimised; optimise again`,
      );
    }
    return updateAgent(db, userID, agentID, body, parsedRules, provenance);
  });
}

/** Autopilot's state for the caller's agent; undefined when it never had any. */
export function readAutopilot(db: FuzzboxDatabase, userID: string, agentID: string): Promise<AutopilotRecord | undefined> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.autopilot], async () => {
    await requireAgent(db, userID, agentID);
    return db.autopilot.get(agentID);
  });
}

export function writeAutopilot(db: FuzzboxDatabase, userID: string, record: AutopilotRecord): Promise<void> {
  return db.transaction('rw', [db.agents, db.deletedAgents, db.versions, db.autopilot], async () => {
    await requireAgent(db, userID, record.agentID);
    await db.autopilot.put({ ...record, userID });
  });
}

/** How many evaluations each version of the caller's agent answered, read from the log groups' key lists. */
export function countEvaluationsByVersion(db: FuzzboxDatabase, userID: string, agentID: string): Promise<Map<string, number>> {
  return db.transaction('r', [db.agents, db.deletedAgents, db.versions, db.logGroups], async () => {
    await requireAgent(db, userID, agentID);
    const counts = new Map<string, number>();
    await db.logGroups.where('[userID+agentID+seq]').between([userID, agentID, Dexie.minKey], [userID, agentID, Dexie.maxKey]).each((group) => {
      counts.set(group.versionID, (counts.get(group.versionID) ?? 0) + group.keys.length);
    });
    return counts;
  });
}
