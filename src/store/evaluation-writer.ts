import { deletedOwners, ownAgent } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { groupLogs } from './evaluations.js';
import { applyTallies, count, type TallyChanges } from './tallies.js';
import type { EvaluationRecord } from './records.js';

interface Job {
  userID: string;
  agentID: string;
  versionID: string;
  logs: EvaluationRecord[];
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Stores evaluation logs with group commit: requests that arrive while a transaction is being
 * written wait for it and then share the next one. A lone request starts its transaction at
 * once; under load, one commit (one disk flush with strict durability) serves many requests.
 * The logs come computed: a transaction here reads the agents and adds the logs, nothing else,
 * so it is as short as the writes (docs/REST.md, "Cost of a request"). Each request is checked
 * against its agent as it is in that transaction, so a concurrent PUT or DELETE lands wholly
 * before or after it, and a request whose agent is gone fails alone, writing nothing.
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
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ userID, agentID, versionID, logs, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      const jobs = this.#queue;
      this.#queue = [];
      await this.#commit(jobs);
    }
    this.#writing = false;
  }

  async #commit(jobs: Job[]): Promise<void> {
    const db = this.#db;
    const outcomes: Array<{ ok: true; stored: boolean } | { ok: false; error: unknown }> = [];
    try {
      await db.transaction('rw', [db.agents, db.deletedAgents, db.versions, db.logGroups, db.tallies], async () => {
        const ids = [...new Set(jobs.map((job) => job.agentID))];
        const agents = new Map((await db.agents.bulkGet(ids)).map((agent, i) => [ids[i]!, agent]));
        const missing = ids.filter((id) => !agents.get(id));
        const gone = await deletedOwners(db, missing);
        const logs: EvaluationRecord[] = [];
        for (const job of jobs) {
          try {
            const agent = ownAgent(job.userID, job.agentID, agents.get(job.agentID), gone.get(job.agentID));
            const current = agent.latestVersion === job.versionID;
            if (current) logs.push(...job.logs);
            outcomes.push({ ok: true, stored: current });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        // one record per group of logs, not per log: IndexedDB's cost is per record
        if (logs.length > 0) {
          await db.logGroups.bulkAdd(groupLogs(logs));
          await applyTallies(db, logs.reduce((changes, log) => count(changes, log.userID, 1), new Map() as TallyChanges));
        }
      });
    } catch (error) {
      // the transaction was aborted: nothing of any job was written
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.stored);
      else job.reject(outcome.error);
    });
  }
}
