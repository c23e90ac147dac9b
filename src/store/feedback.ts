import type { FuzzboxDatabase } from './database.js';
import { requireEvaluation } from './evaluations.js';
import type { FeedbackRecord } from './records.js';

export function addFeedback(db: FuzzboxDatabase, userID: string, feedback: FeedbackRecord): Promise<void> {
  return db.transaction('rw', db.logGroups, db.feedback, async () => {
    await requireEvaluation(db, userID, feedback.evaluationLog);
    await db.feedback.add(feedback);
  });
}

export function listFeedback(db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> {
  return db.transaction('r', db.logGroups, db.feedback, async () => {
    await requireEvaluation(db, userID, reqID);
    // equal index keys come in primary-key (`seq`) order: oldest first
    return db.feedback.where('evaluationLog').equals(reqID).toArray();
  });
}
