import type { FuzzboxDatabase } from './database.js';
import { requireEvaluationExists } from './evaluations.js';
import { applyTallies, count } from './tallies.js';
import type { FeedbackRecord } from './records.js';

/** Feedback on the caller's evaluation, checked to exist (a read of its chunk). */
export function addFeedback(db: FuzzboxDatabase, userID: string, feedback: Omit<FeedbackRecord, 'userID' | 'seq'>): Promise<void> {
  return db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
    await requireEvaluationExists(db, userID, feedback.evaluationLog);
    await db.feedback.add({ ...feedback, userID });
    await applyTallies(db, count(new Map(), userID, 0, 1));
  });
}

export function listFeedback(db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> {
  return db.transaction('r', db.logGroups, db.feedback, async () => {
    await requireEvaluationExists(db, userID, reqID);
    // equal index keys come in primary-key (`seq`) order: oldest first. Evaluation ids are unique
    // per account (an import keeps a backup's ids), so another account may hold the same one.
    return db.feedback.where('evaluationLog').equals(reqID).filter((feedback) => feedback.userID === userID).toArray();
  });
}
