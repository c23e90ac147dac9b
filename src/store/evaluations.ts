import { ApiError } from '../schema/errors';
import { requireAgent } from './agents';
import type { FuzzboxDatabase } from './database';
import type { AgentRecord, EvaluationRecord, FeedbackRecord, VersionRecord } from './records';

/**
 * Runs `evaluate` on the caller's agent as it is now and stores the logs it returns, all in one
 * transaction: a concurrent PUT or DELETE lands entirely before or entirely after. `evaluate` is
 * synchronous (IndexedDB transactions end when they wait on anything else) and may throw to
 * write nothing.
 */
export function recordEvaluations<T>(
  db: FuzzboxDatabase,
  userID: string,
  agentID: string,
  evaluate: (agent: AgentRecord) => { logs: EvaluationRecord[]; result: T },
): Promise<T> {
  return db.transaction('rw', db.agents, db.deletedAgents, db.evaluations, async () => {
    const { logs, result } = evaluate(await requireAgent(db, userID, agentID));
    await db.evaluations.bulkAdd(logs);
    return result;
  });
}

const notFound = (id: string) => new ApiError('NotFound', `no evaluation with id "${id}"`);

async function requireEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<EvaluationRecord> {
  const evaluation = await db.evaluations.get(reqID);
  if (evaluation?.userID !== userID) throw notFound(reqID);
  return evaluation;
}

/** The caller's evaluation and, unless its trace is stored, the version to recompute it from. */
export function readEvaluation(
  db: FuzzboxDatabase,
  userID: string,
  reqID: string,
): Promise<{ evaluation: EvaluationRecord; version: VersionRecord | undefined }> {
  return db.transaction('r', db.evaluations, db.versions, async () => {
    const evaluation = await requireEvaluation(db, userID, reqID);
    const version = evaluation.trace ? undefined : await db.versions.get(evaluation.versionID);
    return { evaluation, version };
  });
}

export function addFeedback(db: FuzzboxDatabase, userID: string, feedback: FeedbackRecord): Promise<void> {
  return db.transaction('rw', db.evaluations, db.feedback, async () => {
    await requireEvaluation(db, userID, feedback.evaluationLog);
    await db.feedback.add(feedback);
  });
}

export function listFeedback(db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> {
  return db.transaction('r', db.evaluations, db.feedback, async () => {
    await requireEvaluation(db, userID, reqID);
    // equal index keys come in primary-key (`seq`) order: oldest first
    return db.feedback.where('evaluationLog').equals(reqID).toArray();
  });
}
