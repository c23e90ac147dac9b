import { ApiError } from '../../schema/errors.js';
import type { FuzzboxDatabase } from './database.js';
import type { EvaluationRecord, LogGroupRecord } from '../records.js';
import type { StoredEvaluation } from '../store.js';
import { idPrefix } from '../ids.js';
import { logAt } from './log-groups.js';

const notFound = (id: string) => new ApiError('NotFound', `no evaluation with id "${id}"`);

export async function findGroup(db: FuzzboxDatabase, userID: string, reqID: string): Promise<LogGroupRecord | undefined> {
  const groups = await db.logGroups
    .where('idPrefixes')
    .equals([userID, idPrefix(reqID)])
    .toArray();
  return groups.find((group) => group.keys.some((key) => key[1] === reqID));
}

/** The caller's evaluation, or NotFound (never existed, or someone else's). */
export async function requireEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<EvaluationRecord> {
  const group = await findGroup(db, userID, reqID);
  if (!group) throw notFound(reqID);
  return logAt(
    group,
    group.keys.findIndex((key) => key[1] === reqID),
  );
}

/** The `seq` of the group holding the caller's evaluation `reqID`, if any. */
export async function groupOf(db: FuzzboxDatabase, userID: string, reqID: string): Promise<number | undefined> {
  return (await findGroup(db, userID, reqID))?.seq;
}

/** The group holding the caller's evaluation `reqID`, or NotFound. */
export async function requireGroup(db: FuzzboxDatabase, userID: string, reqID: string): Promise<LogGroupRecord> {
  const group = await findGroup(db, userID, reqID);
  if (!group) throw notFound(reqID);
  return group;
}

/**
 * The caller's evaluation and, unless its trace is stored (logs of agents deleted under schema
 * version 1), the version to recompute it from: a live one, or one its agent's delete retired.
 */
export function readEvaluation(db: FuzzboxDatabase, userID: string, reqID: string): Promise<StoredEvaluation> {
  return db.transaction('r', db.logGroups, db.versions, db.retiredVersions, async () => {
    const evaluation = await requireEvaluation(db, userID, reqID);
    if (evaluation.trace) return { evaluation, version: undefined };
    const version = (await db.versions.get(evaluation.versionID)) ?? (await db.retiredVersions.get(evaluation.versionID));
    return { evaluation, version };
  });
}
