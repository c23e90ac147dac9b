import { ApiError } from '../schema/errors';
import type { FuzzboxDatabase } from './database';
import type { EvaluationRecord, FeedbackRecord, VersionRecord } from './records';

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
