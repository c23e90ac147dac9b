import { Dexie } from 'dexie';
import type { FuzzboxDatabase } from './database.js';
import { isQuotaExceeded } from './quota.js';

/** Changes to accounts' tallies: userID → evaluations and feedback added (negative: removed). */
export type TallyChanges = Map<string, { evaluations: number; feedback: number }>;

/** Adds `evaluations` and `feedback` to `userID`'s entry of `changes`. */
export function count(changes: TallyChanges, userID: string, evaluations: number, feedback = 0): TallyChanges {
  const entry = changes.get(userID) ?? { evaluations: 0, feedback: 0 };
  entry.evaluations += evaluations;
  entry.feedback += feedback;
  changes.set(userID, entry);
  return changes;
}

/**
 * Applies `changes` to the accounts' tallies; call inside the read-write transaction (with
 * `tallies` in its scope) that makes the changes, so a tally is always exact. Counting an
 * account's logs on an index walks every entry (18 s for 1 M in Chromium); a tally is one read.
 * An account without a tally (a delete on a full disk dropped it: see `dropTally`) is left
 * without one: `readTally` counts it again.
 */
export async function applyTallies(db: FuzzboxDatabase, changes: TallyChanges): Promise<void> {
  const userIDs = [...changes.keys()].filter((userID) => changes.get(userID)!.evaluations !== 0 || changes.get(userID)!.feedback !== 0);
  if (userIDs.length === 0) return;
  const current = await db.tallies.bulkGet(userIDs);
  const updated = current.flatMap((tally) => {
    if (!tally) return [];
    const { evaluations, feedback } = changes.get(tally.userID)!;
    return [{ userID: tally.userID, evaluations: tally.evaluations + evaluations, feedback: tally.feedback + feedback }];
  });
  if (updated.length > 0) await db.tallies.bulkPut(updated);
}

/**
 * Forgets an account's tally, inside a transaction that may only delete: on a full disk even a
 * same-size put is refused, and an erasure must still work. The next `readTally` recounts.
 */
export async function dropTally(db: FuzzboxDatabase, userID: string): Promise<void> {
  await db.tallies.delete(userID);
}

/**
 * The account's tally, recounted (and stored again) when a delete on a full disk dropped it: its
 * log groups read, its feedback counted on an index; slow for a large account, and needed only
 * after such a delete.
 */
export function readTally(db: FuzzboxDatabase, userID: string): Promise<{ evaluations: number; feedback: number }> {
  return db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
    const tally = await db.tallies.get(userID);
    if (tally) return tally;
    let evaluations = 0;
    const [, feedback] = await Promise.all([
      db.logGroups
        .where('[userID+agentID+seq]')
        .between([userID, Dexie.minKey, Dexie.minKey], [userID, Dexie.maxKey, Dexie.maxKey])
        .each((group) => void (evaluations += group.keys.length)),
      db.feedback.where('[userID+seq]').between([userID, Dexie.minKey], [userID, Dexie.maxKey]).count(),
    ]);
    // a full disk may refuse this put too: the count is right either way
    await db.tallies.put({ userID, evaluations, feedback }).catch(() => undefined);
    return { evaluations, feedback };
  });
}

/** Takes erased logs and feedback off an account's tally, inside the erasing transaction. */
export type CountDown = (userID: string, evaluations: number, feedback: number) => Promise<void>;

/**
 * An erasure that takes what it erased off the tally: `erase(countDown)` runs its transaction. On
 * a full disk, where even the tally's put is refused, it runs again with the tally dropped
 * instead, to be recounted: a transaction that only deletes commits on a full disk.
 */
export async function eraseCounted(db: FuzzboxDatabase, erase: (countDown: CountDown) => Promise<void>): Promise<void> {
  try {
    await erase((userID, evaluations, feedback) => applyTallies(db, count(new Map(), userID, -evaluations, -feedback)));
  } catch (error) {
    if (!isQuotaExceeded(error)) throw error;
    await erase((userID) => dropTally(db, userID));
  }
}
