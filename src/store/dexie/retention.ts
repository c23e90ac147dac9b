import { Dexie } from 'dexie';
import type { RetentionPolicy } from '../../schema/retention.js';
import type { FuzzboxDatabase } from './database.js';
import { createdAtOf, keepLogs } from './log-groups.js';
import type { LogGroupRecord } from '../records.js';
import { feedbackOfGroup } from './feedback.js';
import { applyTallies, count } from './tallies.js';

/** Log groups examined per transaction: up to 64 logs each, so no sweep step holds the database long. */
const SWEEP_PAGE = 16;
/**
 * Every agent that has logs, with its owner: live, deleted, or deleted on a full disk (which
 * leaves neither its record nor a tombstone). One index key read per agent, each its own short
 * transaction, skipping over the agent's groups.
 */
async function* everyAgent(db: FuzzboxDatabase): AsyncGenerator<{ userID: string; id: string }> {
  for (let after: unknown[] = [Dexie.minKey]; ; ) {
    const [key] = (await db.logGroups.where('[userID+agentID+seq]').above(after).limit(1).keys()) as unknown as Array<[string, string, number]>;
    if (key === undefined) return;
    const [userID, id] = key;
    yield { userID, id };
    after = [userID, id, Dexie.maxKey];
  }
}

/**
 * Drops the evaluation logs `policy` does not keep, with their feedback, walking each agent's
 * logs newest first, SWEEP_PAGE groups per read-write transaction (a group loses only the logs
 * it drops). Returns how many logs were dropped. The walk reads every log once, so it runs in
 * the background, not in a request's path (src/api/retention.ts).
 */
export async function applyRetention(db: FuzzboxDatabase, policy: RetentionPolicy, now: number): Promise<number> {
  const cutoff = policy.days === undefined ? undefined : new Date(now - policy.days * 86_400_000).toISOString();
  let dropped = 0;
  for await (const { userID, id: agentID } of everyAgent(db)) {
    let kept = 0;
    for (let upper: [string, string, unknown] = [userID, agentID, Dexie.maxKey]; ; ) {
      const page = await db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
        let logsDropped = 0;
        let feedbackDropped = 0;
        const groups: LogGroupRecord[] = await db.logGroups
          .where('[userID+agentID+seq]')
          .between([userID, agentID, Dexie.minKey], upper, true, false)
          .reverse()
          .limit(SWEEP_PAGE)
          .toArray();
        for (const group of groups) {
          const old = (i: number) => cutoff !== undefined && createdAtOf(group, i) < cutoff;
          const room = policy.perAgent === undefined ? Infinity : policy.perAgent - kept;
          if (!group.logs.some((_, i) => old(i)) && room >= group.keys.length) {
            kept += group.keys.length; // the common case: the whole group stays, nothing to write
            continue;
          }
          const keep: boolean[] = [];
          const groupFeedback = await feedbackOfGroup(db, userID, group.seq!);
          // newest first: the last log of a group is the newest
          for (let i = group.keys.length - 1; i >= 0; i--) {
            const feedback = groupFeedback.filter((item) => item.evaluationLog === group.keys[i]![1]);
            if (!old(i) && kept < (policy.perAgent ?? Infinity)) {
              keep[i] = true;
              kept++;
            } else {
              keep[i] = policy.keepWithFeedback === true && feedback.length > 0;
              if (!keep[i]) {
                await db.feedback.bulkDelete(feedback.map((item) => item.seq!));
                feedbackDropped += feedback.length;
              }
            }
          }
          const remaining = keep.filter(Boolean).length;
          logsDropped += group.keys.length - remaining;
          if (remaining === 0) await db.logGroups.delete(group.seq!);
          else if (remaining < group.keys.length) {
            await db.logGroups.put(keepLogs(group, (i) => keep[i]!));
          }
        }
        dropped += logsDropped;
        await applyTallies(db, count(new Map(), userID, -logsDropped, -feedbackDropped));
        return groups;
      });
      if (page.length < SWEEP_PAGE) break;
      upper = [userID, agentID, page.at(-1)!.seq!];
    }
  }
  return dropped;
}
