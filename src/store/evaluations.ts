import { ApiError } from '../schema/errors';
import type { FuzzboxDatabase } from './database';
import type { EvaluationRecord, VersionRecord } from './records';

const notFound = (id: string) => new ApiError('NotFound', `no evaluation with id "${id}"`);

/** The caller's evaluation, or NotFound (never existed, or someone else's). */
export async function requireEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<EvaluationRecord> {
  const evaluation = await db.evaluations.get(reqID);
  if (evaluation?.userID !== userID) throw notFound(reqID);
  return evaluation;
}

/**
 * The caller's evaluation and, unless its trace is stored (logs of agents deleted under schema
 * version 1), the version to recompute it from: a live one, or one its agent's delete retired.
 */
export function readEvaluation(
  db: FuzzboxDatabase,
  userID: string,
  reqID: string,
): Promise<{ evaluation: EvaluationRecord; version: VersionRecord | undefined }> {
  return db.transaction('r', db.evaluations, db.versions, db.retiredVersions, async () => {
    const evaluation = await requireEvaluation(db, userID, reqID);
    if (evaluation.trace) return { evaluation, version: undefined };
    const version = (await db.versions.get(evaluation.versionID)) ?? (await db.retiredVersions.get(evaluation.versionID));
    return { evaluation, version };
  });
}
