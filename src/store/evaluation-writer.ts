import { ownAgent } from './agents.js';
import type { FuzzboxDatabase } from './database.js';
import { groupLogs } from './evaluations.js';
import type { EvaluationRecord } from './records.js';
import type { EvaluateAgent } from './store.js';

interface Job {
  userID: string;
  agentID: string;
  evaluate: EvaluateAgent<unknown>;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Stores evaluation logs with group commit: requests that arrive while a transaction is being
 * written wait for it and then share the next one. A lone request starts its transaction at
 * once; under load, one commit (one disk flush with strict durability) serves many requests.
 * Each request still reads its agent and writes all its logs in the same transaction as each
 * other request of the group, so a concurrent PUT or DELETE lands wholly before or after it,
 * and a request whose agent is missing or whose inputs are refused fails alone, writing nothing.
 */
export class EvaluationWriter {
  readonly #db: FuzzboxDatabase;
  #queue: Job[] = [];
  #writing = false;

  constructor(db: FuzzboxDatabase) {
    this.#db = db;
  }

  /**
   * Runs `evaluate` on the caller's agent and stores the logs it returns before resolving.
   * `evaluate` must be synchronous (an IndexedDB transaction ends when it waits on anything
   * else); it may throw to fail this request only.
   */
  record<T>(userID: string, agentID: string, evaluate: EvaluateAgent<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ userID, agentID, evaluate, resolve: resolve as (result: unknown) => void, reject });
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
    const outcomes: Array<{ ok: true; result: unknown } | { ok: false; error: unknown }> = [];
    try {
      await db.transaction('rw', db.agents, db.deletedAgents, db.logGroups, async () => {
        // Two bulk reads, then everything else synchronously: Dexie keeps a transaction alive
        // only across awaits of its own requests.
        const ids = [...new Set(jobs.map((job) => job.agentID))];
        const agents = new Map((await db.agents.bulkGet(ids)).map((agent, i) => [ids[i]!, agent]));
        const missing = ids.filter((id) => !agents.get(id));
        const tombstones = missing.length > 0 ? await db.deletedAgents.bulkGet(missing) : [];
        const deleted = new Map(tombstones.map((record, i) => [missing[i]!, record]));
        const logs: EvaluationRecord[] = [];
        for (const job of jobs) {
          try {
            const agent = ownAgent(job.userID, job.agentID, agents.get(job.agentID), deleted.get(job.agentID));
            const { logs: jobLogs, result } = job.evaluate(agent);
            logs.push(...jobLogs);
            outcomes.push({ ok: true, result });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        // one record per group of logs, not per log: IndexedDB's cost is per record
        if (logs.length > 0) await db.logGroups.bulkAdd(groupLogs(logs));
      });
    } catch (error) {
      // the transaction was aborted: nothing of any job was written
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.result);
      else job.reject(outcome.error);
    });
  }
}
