import { Dexie } from 'dexie';
import type { FuzzboxDatabase } from './database.js';
import { LOG_CHUNK } from '../ids.js';
import { groupLogs } from './log-groups.js';
import { cleanupRefusal, isFullDiskCleanup } from './quota.js';
import { count, eraseCounted, type TallyChanges } from './tallies.js';
import type { EvaluationRecord, HeadRecord, LogGroupRecord, TallyRecord } from '../records.js';

interface Job {
  userID: string;
  agentID: string;
  versionID: string;
  logs: EvaluationRecord[];
  /** a large job's groups, written PIECE_GROUPS at a time (small jobs are grouped with the others of their transaction) */
  groups: LogGroupRecord[];
  /** a large job's groups written so far (the next piece starts here), and their keys */
  written: number;
  seqs: number[];
  /** the lowest key given to a large job's groups, from the moment its first piece took it until it settles */
  floor?: number;
  resolve: (stored: boolean) => void;
  reject: (error: unknown) => void;
}

/** A job of more logs than one group holds never shares a transaction. */
const isLarge = (job: Job) => job.logs.length > LOG_CHUNK;

/**
 * Group records per transaction of a large job: 512 logs. A single evaluation that arrives while
 * a batch is written waits for one piece, not the batch (docs/REST.md, "Cost of a request").
 */
export const PIECE_GROUPS = 8;

/**
 * Stores evaluation logs with group commit: requests that arrive while a transaction is being
 * written wait for it and then share the next one. A lone request starts its transaction at
 * once; under load, one commit (one disk flush with strict durability) serves many requests.
 * Small requests go first and together; a batch of more than LOG_CHUNK logs never shares a
 * transaction, and one of more than PIECE_GROUPS groups is written PIECE_GROUPS groups per
 * transaction, the small requests waiting meanwhile going between its pieces: a single
 * evaluation waits for at most one piece's write.
 *
 * The logs come computed and grouped: a transaction here reads the agents' heads (owner and
 * latest version) and adds the logs, nothing else, so it is as short as the writes and locks
 * neither `agents` nor `versions`, which other requests read meanwhile (docs/REST.md, "Cost of
 * a request"). Each request (each piece) is checked against its agent's head as it is in that
 * transaction, so a concurrent PUT or DELETE (which writes the head) lands wholly before or after
 * it; a request whose agent is no longer at its version (or is gone) is not stored and resolves
 * `false`. A request written in pieces answers only once every piece is stored; when a piece
 * finds its agent moved on, or fails (a full disk), the pieces already stored are deleted again
 * before it resolves `false` or rejects: no answer ever goes out with part of its logs.
 *
 * Nor does a push: `unfinished` is the lowest `logGroups` key of a batch still being written (or
 * taken back), below which alone the replica reads what to push (docs/SYNC.md), so no push holds
 * a piece of a batch that may yet be deleted, and the push cursor never passes one.
 */
export class EvaluationWriter {
  readonly #db: FuzzboxDatabase;
  readonly #durability: IDBTransactionDurability;
  #queue: Job[] = [];
  #writing = false;
  /** large jobs that hold keys and have not settled: written in pieces, or their pieces being deleted */
  readonly #holding = new Set<Job>();

  constructor(db: FuzzboxDatabase, durability: IDBTransactionDurability) {
    this.#db = db;
    this.#durability = durability;
  }

  /**
   * The lowest `logGroups` key of a batch not yet settled, or undefined. Set inside the
   * transaction that takes the key, before it commits: a transaction over `logGroups` that sees
   * the key, having started after that one, sees it here too once a request of its own has run.
   */
  get unfinished(): number | undefined {
    let lowest: number | undefined;
    for (const job of this.#holding) if (lowest === undefined || job.floor! < lowest) lowest = job.floor;
    return lowest;
  }

  /** See FuzzboxStore.addEvaluations. */
  add(userID: string, agentID: string, versionID: string, logs: EvaluationRecord[]): Promise<boolean> {
    // one record per group of logs, not per log: IndexedDB's cost is per record
    const groups = logs.length > LOG_CHUNK ? groupLogs(logs) : [];
    return new Promise<boolean>((resolve, reject) => {
      this.#queue.push({ userID, agentID, versionID, logs, groups, written: 0, seqs: [], resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      const small = this.#queue.filter((job) => !isLarge(job));
      if (small.length > 0) {
        this.#queue = this.#queue.filter((job) => isLarge(job));
        await this.#commit(small);
      } else {
        await this.#writePiece(this.#queue[0]!);
      }
    }
    this.#writing = false;
  }

  /**
   * Every job's logs in one transaction, grouped together: the logs of concurrent requests on one
   * agent version share records (in WebKitGTK each record costs the storage process a
   * deserialisation to index it: 32 requests in flight went from 805–1016 to 1276–1415 a second
   * in alternated runs). Each job resolves whether its agent was still at its version.
   */
  async #commit(jobs: Job[]): Promise<void> {
    let stored: boolean[];
    try {
      stored = await this.#store(jobs, (storing) => groupLogs(storing.flatMap((job) => job.logs)));
    } catch (error) {
      // the transaction was aborted: nothing of any job was written
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => job.resolve(stored[index]!));
  }

  /** The next piece of `job`, the oldest large job; it leaves the queue when done or given up. */
  async #writePiece(job: Job): Promise<void> {
    const piece = () => job.groups.slice(job.written, job.written + PIECE_GROUPS);
    let outcome: { stored: boolean } | { error: unknown };
    try {
      const [current] = await this.#store([job], piece);
      outcome = { stored: current! };
    } catch (error) {
      outcome = { error };
    }
    if ('stored' in outcome && outcome.stored && job.written < job.groups.length) return;
    this.#queue = this.#queue.filter((waiting) => waiting !== job);
    try {
      if ('stored' in outcome && outcome.stored) return job.resolve(true);
      try {
        await this.#remove(job);
      } catch (error) {
        return job.reject(error);
      }
      if ('error' in outcome) job.reject(outcome.error);
      else job.resolve(false);
    } finally {
      this.#holding.delete(job);
    }
  }

  /**
   * One transaction storing `groupsOf(storing)`, the groups of the jobs whose agent is still at
   * its version; a large job (always alone) notes what it wrote. Resolves which jobs were current.
   * A transaction that finds an agent moved on writes nothing and is tried again without that
   * agent's jobs.
   */
  async #store(jobs: Job[], groupsOf: (storing: Job[]) => LogGroupRecord[]): Promise<boolean[]> {
    const current = jobs.map(() => true);
    for (;;) {
      const storing = jobs.filter((_, index) => current[index]);
      if (storing.length === 0) return current;
      const movedOn = await this.#tryStore(storing, groupsOf(storing));
      if (movedOn.length === 0) return current;
      for (const job of movedOn) current[jobs.indexOf(job)] = false;
    }
  }

  /**
   * One read-write transaction, on IndexedDB itself: every request of it is sent at once (the
   * heads, the log groups' adds, the tallies), the tallies' puts once their reads answer, then
   * the commit, so it costs one round trip to the browser's storage and the commit (Dexie's
   * promises sent the reads and writes one after another, each waiting for the last). Every
   * head is checked before anything it wrote is kept: a job whose agent moved on aborts the
   * whole transaction, and resolves among those returned (none: all stored and committed).
   */
  async #tryStore(jobs: Job[], groups: LogGroupRecord[]): Promise<Job[]> {
    const database = await connection(this.#db);
    return new Promise<Job[]>((resolve, reject) => {
      const transaction = database.transaction(['heads', 'logGroups', 'tallies'], 'readwrite', { durability: this.#durability });
      // it commits empty, reclaiming space; the write is retried as for a full disk
      if (isFullDiskCleanup(transaction)) return reject(cleanupRefusal());
      const heads = transaction.objectStore('heads');
      const logGroups = transaction.objectStore('logGroups');
      const tallies = transaction.objectStore('tallies');
      const movedOn: Job[] = [];
      const large = jobs.find(isLarge);
      const written: number[] = [];
      try {
        // one read per agent, however many of its requests share the transaction
        const byAgent = new Map<string, Job[]>();
        for (const job of jobs) {
          const same = byAgent.get(job.agentID);
          if (same) same.push(job);
          else byAgent.set(job.agentID, [job]);
        }
        const changes: TallyChanges = new Map();
        for (const group of groups) count(changes, group.userID, group.keys.length);
        // commit() once every read has answered and every head is current: requests answer in the
        // order they were made, so the tallies are read first (their puts go out meanwhile) and the
        // heads last, and the commit is asked for while the storage still adds the logs
        let readsToAnswer = changes.size + byAgent.size;
        const answered = () => {
          if (--readsToAnswer === 0 && movedOn.length === 0) transaction.commit?.();
        };
        for (const [userID, change] of changes) {
          const read = tallies.get(userID);
          read.onsuccess = () => {
            const tally = read.result as TallyRecord | undefined;
            // an account without a tally (dropped on a full disk) is recounted when next read
            if (tally) tallies.put({ userID, evaluations: tally.evaluations + change.evaluations, feedback: tally.feedback + change.feedback });
            answered();
          };
        }
        let headsToRead = byAgent.size;
        for (const [agentID, agentJobs] of byAgent) {
          heads.get(agentID).onsuccess = (event) => {
            const head = (event.target as IDBRequest<HeadRecord | undefined>).result;
            for (const job of agentJobs) if (head?.userID !== job.userID || head?.latestVersion !== job.versionID) movedOn.push(job);
            // every head is in before any add answers
            if (--headsToRead === 0 && movedOn.length > 0) transaction.abort();
            else answered();
          };
        }
        for (const group of groups) {
          logGroups.add(group).onsuccess = (event) => {
            if (!large) return;
            const key = (event.target as IDBRequest<IDBValidKey>).result as number;
            if (large.floor === undefined) {
              // before the transaction completes: a push must never see these keys without knowing them unfinished
              large.floor = key;
              this.#holding.add(large);
            }
            written.push(key);
          };
        }
      } catch (error) {
        // a request that could not even be made (a value IndexedDB cannot store): nothing of the rest commits
        transaction.abort();
        throw error;
      }
      transaction.oncomplete = () => {
        // committed: only now does a large job count its piece as written
        if (large) {
          large.written += written.length;
          large.seqs.push(...written);
        }
        resolve([]);
      };
      transaction.onabort = () => {
        for (const job of jobs) {
          // a first piece taken back: its keys were never kept
          if (job.seqs.length === 0 && this.#holding.delete(job)) job.floor = undefined;
        }
        if (movedOn.length > 0 && transaction.error === null) resolve(movedOn);
        else reject(transaction.error ?? new DOMException('the transaction storing evaluation logs was aborted', 'AbortError'));
      };
    });
  }

  /**
   * Deletes the pieces of `job` stored so far (its request will not answer with them), with any
   * feedback given meanwhile on their logs (a listing shows a stored piece), and takes them off the
   * tally; on a full disk, where even that tally's put is refused, the deletes alone (which commit
   * on a full disk) and the tally is dropped, to be recounted.
   */
  async #remove(job: Job): Promise<void> {
    if (job.seqs.length === 0) return;
    const db = this.#db;
    await eraseCounted(db, (countDown) =>
      db.transaction('rw', db.logGroups, db.feedback, db.tallies, async () => {
        const groups = await db.logGroups.bulkGet(job.seqs);
        const feedback = await db.feedback
          .where('[userID+logGroup]')
          .anyOf(job.seqs.map((seq) => [job.userID, seq]))
          .primaryKeys();
        await db.logGroups.bulkDelete(job.seqs);
        await db.feedback.bulkDelete(feedback);
        const logs = groups.reduce((logs, group) => logs + (group?.keys.length ?? 0), 0);
        await countDown(job.userID, logs, feedback.length);
      }),
    );
  }
}

/** The database's IndexedDB connection, opened the way Dexie opens it; one closed on purpose stays closed. */
async function connection(db: FuzzboxDatabase): Promise<IDBDatabase> {
  if (!db.isOpen()) {
    if (db.hasBeenClosed()) throw new Dexie.DatabaseClosedError();
    await db.open();
  }
  return db.backendDB();
}
