import type { FuzzboxDatabase } from './database.js';
import { groupLogs, LOG_CHUNK } from './evaluations.js';
import { applyTallies, count, type TallyChanges } from './tallies.js';
import type { EvaluationRecord, LogGroupRecord } from './records.js';

interface Job {
  userID: string;
  agentID: string;
  versionID: string;
  logs: EvaluationRecord[];
  groups: LogGroupRecord[];
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/** A job of more logs than one group holds is written in a transaction of its own. */
const isLarge = (job: Job) => job.logs.length > LOG_CHUNK;

/**
 * Stores evaluation logs with group commit: requests that arrive while a transaction is being
 * written wait for it and then share the next one. A lone request starts its transaction at
 * once; under load, one commit (one disk flush with strict durability) serves many requests.
 * Small requests go first and together; a batch of more than LOG_CHUNK logs gets a transaction
 * of its own, so a single evaluation waits for at most one batch's write, never shares one.
 *
 * The logs come computed and grouped: a transaction here reads the agents' heads (owner and
 * latest version) and adds the logs, nothing else, so it is as short as the writes and locks
 * neither `agents` nor `versions`, which other requests read meanwhile (docs/REST.md, "Cost of
 * a request"). Each request is checked against its agent's head as it is in that transaction, so
 * a concurrent PUT or DELETE (which writes the head) lands wholly before or after it; a request
 * whose agent is no longer at its version (or is gone) is not stored and resolves `false`.
 */
export class EvaluationWriter {
  readonly #db: FuzzboxDatabase;
  #queue: Job[] = [];
  #writing = false;

  constructor(db: FuzzboxDatabase) {
    this.#db = db;
  }

  /** See FuzzboxStore.addEvaluations. */
  add(userID: string, agentID: string, versionID: string, logs: EvaluationRecord[]): Promise<boolean> {
    // one record per group of logs, not per log: IndexedDB's cost is per record
    const groups = groupLogs(logs);
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ userID, agentID, versionID, logs, groups, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) await this.#commit(this.#next());
    this.#writing = false;
  }

  /** Every small job waiting, or else the oldest large one. */
  #next(): Job[] {
    const small = this.#queue.filter((job) => !isLarge(job));
    const jobs = small.length > 0 ? small : [this.#queue[0]!];
    this.#queue = this.#queue.filter((job) => !jobs.includes(job));
    return jobs;
  }

  async #commit(jobs: Job[]): Promise<void> {
    const db = this.#db;
    const stored: boolean[] = [];
    try {
      await db.transaction('rw', [db.heads, db.logGroups, db.tallies], async () => {
        const heads = await db.heads.bulkGet(jobs.map((job) => job.agentID));
        const groups: LogGroupRecord[] = [];
        const changes: TallyChanges = new Map();
        jobs.forEach((job, index) => {
          const head = heads[index];
          const current = head?.userID === job.userID && head.latestVersion === job.versionID;
          stored.push(current);
          if (!current) return;
          groups.push(...job.groups);
          count(changes, job.userID, job.logs.length);
        });
        if (groups.length > 0) {
          await db.logGroups.bulkAdd(groups);
          await applyTallies(db, changes);
        }
      });
    } catch (error) {
      // the transaction was aborted: nothing of any job was written
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => job.resolve(stored[index]!));
  }
}
