import { Dexie } from 'dexie';
import type { AgentBody } from '../../schema/agent.js';
import { putAgent, requireAgent, updateAgent } from './agents.js';
import { redefined, snapshot, stillAt, UPDATED } from '../versions.js';
import { newId } from '../ids.js';
import type { FuzzboxDatabase } from './database.js';
import { latestValues, LearningLogBuilder, type LearningLog, type LearningLogQuery } from '../learning-log.js';
import { feedbackOfGroup } from './feedback.js';
import { logAt } from './log-groups.js';
import type { AgentRecord, AutopilotRecord, FeedbackRecord, Provenance } from '../records.js';
import { StaleAutopilot, type Candidate, type CandidateDecision } from '../store.js';

/** Log groups read per transaction (each up to LOG_CHUNK logs): no read holds the database long. */
const GROUP_PAGE = 64;

/**
 * What learning reads of the caller's agent (LearningLog): its log groups newest first, GROUP_PAGE
 * per transaction, each group's feedback with it (one range of `[userID+logGroup]` per group),
 * until the rows are enough.
 */
export async function readLearningLog(db: FuzzboxDatabase, userID: string, agentID: string, query: LearningLogQuery): Promise<LearningLog> {
  const agent = await db.transaction('r', [db.agents, db.deletedAgents, db.versions], () => requireAgent(db, userID, agentID));
  const builder = new LearningLogBuilder(agent, query);
  const names = new Set<string>();
  for (let before: number | undefined; ; ) {
    const upper = [userID, agentID, before ?? Dexie.maxKey];
    const page = await db.transaction('r', [db.logGroups, db.feedback], async () => {
      const groups = await db.logGroups
        .where('[userID+agentID+seq]')
        .between([userID, agentID, Dexie.minKey], upper, true, false)
        .reverse()
        .limit(GROUP_PAGE)
        .toArray();
      return { groups, feedback: await Promise.all(groups.map((group) => feedbackOfGroup(db, userID, group.seq!))) };
    });
    page.groups.forEach((group, g) => {
      // each log's feedback, oldest first (a range of one index key comes in primary-key order)
      const byLog = new Map<string, FeedbackRecord[]>();
      for (const feedback of page.feedback[g]!) {
        const list = byLog.get(feedback.evaluationLog);
        if (list) list.push(feedback);
        else byLog.set(feedback.evaluationLog, [feedback]);
      }
      for (let index = group.keys.length - 1; index >= 0 && !builder.done; index--) {
        const feedback = byLog.get(group.keys[index]![1]);
        if (!feedback) continue;
        names.clear();
        const values = latestValues(feedback, query.metrics, names);
        builder.noteNames(names);
        builder.add(logAt(group, index), values, feedback.at(-1)!.seq!);
      }
    });
    if (page.groups.length < GROUP_PAGE || builder.done) break;
    before = page.groups.at(-1)!.seq!;
  }
  return builder.finish();
}

/**
 * Saves a new version exactly as a PUT does, but only if the agent is still at `basedOn`: an
 * optimization of a version someone has since replaced would silently undo their change.
 */
export function updateAgentFrom(
  db: FuzzboxDatabase,
  userID: string,
  agentID: string,
  basedOn: string,
  body: AgentBody,
  parsedRules: unknown[],
  provenance: Provenance = UPDATED,
): Promise<AgentRecord> {
  return db.transaction('rw', db.agents, db.heads, db.versions, db.deletedAgents, async () => {
    stillAt(await requireAgent(db, userID, agentID), basedOn);
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
    await putAutopilotOver(db, userID, record, await db.autopilot.get(record.agentID));
  });
}

/** Stores `record` if `stored` is the revision before it, else Conflict (inside a transaction that read `stored`). */
async function putAutopilotOver(db: FuzzboxDatabase, userID: string, record: AutopilotRecord, stored: AutopilotRecord | undefined): Promise<void> {
  if ((stored?.revision ?? 0) !== (record.revision ?? 1) - 1) throw new StaleAutopilot(record.agentID);
  await db.autopilot.put({ ...record, userID });
}

/** FuzzboxStore.addCandidateVersion: the version and the autopilot state naming it, in one transaction. */
export function addCandidateVersion(
  db: FuzzboxDatabase,
  userID: string,
  id: string,
  basedOn: string,
  body: AgentBody,
  parsedRules: unknown[],
  provenance: Provenance,
  decide: CandidateDecision,
): Promise<Candidate | undefined> {
  return db.transaction('rw', [db.agents, db.heads, db.versions, db.deletedAgents, db.autopilot], async () => {
    const current = stillAt(await requireAgent(db, userID, id), basedOn);
    const version = snapshot(redefined(current, body, newId()), parsedRules, current.versionCount, provenance);
    const stored = await db.autopilot.get(id);
    const state = decide(stored, version);
    if (!state) return undefined;
    await db.versions.add(version);
    await putAgent(db, { ...current, versionCount: current.versionCount + 1 });
    await putAutopilotOver(db, userID, state, stored);
    return { version, state };
  });
}

/**
 * How many evaluations each version of the caller's agent answered, read from the log groups' key
 * lists GROUP_PAGE groups per transaction: a whole log in one would hold back every write of logs
 * (a read-write transaction waits for the reads before it) for as long as it takes to read.
 */
export async function countEvaluationsByVersion(db: FuzzboxDatabase, userID: string, agentID: string): Promise<Map<string, number>> {
  await db.transaction('r', [db.agents, db.deletedAgents, db.versions], () => requireAgent(db, userID, agentID));
  const counts = new Map<string, number>();
  for (let after: number | undefined; ; ) {
    const lower = [userID, agentID, after ?? Dexie.minKey];
    const groups = await db.transaction('r', db.logGroups, () =>
      db.logGroups
        .where('[userID+agentID+seq]')
        .between(lower, [userID, agentID, Dexie.maxKey], after === undefined, true)
        .limit(GROUP_PAGE)
        .toArray(),
    );
    for (const group of groups) counts.set(group.versionID, (counts.get(group.versionID) ?? 0) + group.keys.length);
    if (groups.length < GROUP_PAGE) return counts;
    after = groups.at(-1)!.seq!;
  }
}
