import type { FuzzboxDatabase } from './database.js';
import { requireGroup } from './evaluations.js';
import { applyTallies, count } from './tallies.js';
import type { FeedbackRecord } from '../records.js';

/** Feedback on the caller's evaluation, checked to exist (a read of its chunk); resolves to the evaluation's agent. */
export function addFeedback(db: FuzzboxDatabase, userID: string, feedback: Omit<FeedbackRecord, 'userID' | 'seq'>): Promise<string> {
  return db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
    const group = await requireGroup(db, userID, feedback.evaluationLog);
    await db.feedback.add({ ...feedback, userID, logGroup: group.seq! });
    await applyTallies(db, count(new Map(), userID, 0, 1));
    return group.agentID;
  });
}

export function listFeedback(db: FuzzboxDatabase, userID: string, reqID: string): Promise<FeedbackRecord[]> {
  return db.transaction('r', db.logGroups, db.feedback, async () => feedbackOfLog(db, userID, (await requireGroup(db, userID, reqID)).seq!, reqID));
}

/**
 * The caller's feedback on the logs of the group `seq`, oldest first (equal index keys come in
 * primary-key order): one range of `[userID+logGroup]`, at most LOG_CHUNK logs' feedback.
 */
export function feedbackOfGroup(db: FuzzboxDatabase, userID: string, seq: number): Promise<FeedbackRecord[]> {
  return db.feedback.where('[userID+logGroup]').equals([userID, seq]).toArray();
}

/** The caller's feedback on `reqID`, whose log is in the group `seq`, oldest first. */
export async function feedbackOfLog(db: FuzzboxDatabase, userID: string, seq: number, reqID: string): Promise<FeedbackRecord[]> {
  return (await feedbackOfGroup(db, userID, seq)).filter((feedback) => feedback.evaluationLog === reqID);
}
