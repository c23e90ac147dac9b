// Flat costs at scale (issue 10 §4): one store filled to a given size, then its operations timed
// through handle() as requests, beside the same storage engine's bare cost. bench/scale.bench.ts
// opens one per size (in Node on fake-indexeddb; in Chromium one page per origin, so each size has
// a LevelDB of its own in a persistent profile) and measures them in interleaved blocks: whatever
// the machine does meanwhile weighs on every size alike, so their ratios hold even when the
// absolute figures drift with the load.
import { createFuzzyService, type FuzzyService } from '../src/index.js';
import { FuzzboxDatabase, type DatabaseOptions } from '../src/store/dexie/database.js';
import { groupLogs } from '../src/store/dexie/log-groups.js';
import { newEvaluationIDs } from '../src/store/ids.js';
import type { EvaluationRecord, FeedbackRecord } from '../src/store/records.js';

/**
 * What is timed, one of each per round. `control…` is bare IndexedDB beside the store, in the same
 * storage: a plain object store holding as many records as the store holds evaluations (random
 * keys, as evaluation ids are), one record put (strict durability) or got, no fuzzbox code. What
 * grows in the control grows in the storage engine itself, whatever the layout above it.
 */
export const OPERATIONS = [
  'evaluate',
  'readSingle',
  'readBatchItem',
  'feedbackSingle',
  'feedbackBatchItem',
  'listPage',
  'deleteSingle',
  'deleteBatchItem',
  'storage',
  'controlPut',
  'controlGet',
] as const;
export type Operation = (typeof OPERATIONS)[number];
/** Milliseconds per operation, one sample per round. */
export type Samples = Record<Operation, number[]>;

export interface ScaleStoreOptions extends DatabaseOptions {
  /** evaluations to store */
  size: number;
  /** `navigator.storage.estimate` where there is one: bytes stored per evaluation */
  estimate?: () => Promise<{ usage?: number }>;
  /** another store than IndexedDB's (bench/scale-postgres.ts); IndexedDB by `DatabaseOptions` when absent */
  backend?: () => Promise<ScaleBackend>;
}

export interface ScaleStore {
  readonly size: number;
  /** the store's IndexedDB database, and `<dbName>-control` the control's */
  readonly dbName: string;
  /** Stores `size` evaluations; resolves to the seconds it took. */
  fill(): Promise<number>;
  /** Notes the storage the evaluations take, then stores the control's `size` records. */
  fillControl(): Promise<void>;
  /** `rounds` rounds of every operation. */
  measure(rounds: number): Promise<Samples>;
  /** Storage used per stored evaluation (`estimate()`), null without one. */
  bytesPerEvaluation(): Promise<number | null>;
  close(): Promise<void>;
}

const agent = {
  name: 'fan',
  inputs: { temperature: { cold: [0, 10, 20], warm: [10, 20, 30], hot: [20, 30, 40] } },
  outputs: { fan: { slow: [0, 25, 50], medium: [25, 50, 75], fast: [50, 75, 100] } },
  rules: ['IF temperature IS cold THEN fan IS slow', 'IF temperature IS warm THEN fan IS medium', 'IF temperature IS hot THEN fan IS fast'],
};
const BATCH = 4096;
/** Records per fill transaction. */
const FILL_CHUNK = 20_000;
/** A spread of 0 ≤ i < n over [0, n): the picks of consecutive rounds land far apart. */
const scatter = (i: number, n: number) => Math.floor((((i * 2654435761) % 4294967296) / 4294967296) * n);
/**
 * Removes and returns `ids[index]`, the last id taking its place: constant time, where a
 * `splice` moves half a million ids at 1 M and was the most of what the deletes grew by (issue 10 §4).
 */
const takeAt = (ids: string[], index: number) => {
  const id = ids[index]!;
  ids[index] = ids.at(-1)!;
  ids.pop();
  return id;
};
/** The control store's key of record i: unordered, as random ids are. */
export const controlKey = (i: number) => `${scatter(i, 4294967296).toString(36)}-${i}`;

/** Opens a database of raw IndexedDB, creating its one object store `records`. */
function openControl(factory: IDBFactory, name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(name, 1);
    request.onupgradeneeded = () => request.result.createObjectStore('records');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Runs `work` on `records` in one transaction; resolves when it committed. */
function inControl(db: IDBDatabase, mode: IDBTransactionMode, work: (records: IDBObjectStore) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction('records', mode, { durability: 'strict' });
    work(tx.objectStore('records'));
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
}

/** What a control record holds: about what a log does. */
export const controlValue = (i: number) => ({ input: { temperature: (i * 7.3) % 40 }, crisp: { fan: 25 }, createdAt: new Date().toISOString() });

/** The store's service, its records written in bulk as the service writes them, and the control beside it. */
export interface ScaleBackend {
  service: FuzzyService;
  /** Stores `requests` (each request's logs, in order) and `feedback`, as the service would have. */
  bulk(requests: EvaluationRecord[][], feedback: FeedbackRecord[]): Promise<void>;
  /** After the fill: the account's counts, where the store keeps them. */
  counted(userID: string, evaluations: number, feedback: number): Promise<void>;
  /** The control: `count` plain records keyed `controlKey(0…count-1)`; one put, committed; one get. */
  fillControl(count: number): Promise<void>;
  putControl(i: number): Promise<void>;
  getControl(i: number): Promise<void>;
  close(): Promise<void>;
}

/** IndexedDB (the browser's, or fake-indexeddb in Node): the service's store, and a bare object store as control. */
async function indexedDBBackend(options: DatabaseOptions, dbName: string): Promise<ScaleBackend> {
  const service = createFuzzyService({ ...options, dbName });
  const db = new FuzzboxDatabase(dbName, options);
  const control = await openControl((options.indexedDB ?? indexedDB) as IDBFactory, `${dbName}-control`);
  return {
    service,
    async bulk(requests, feedback) {
      // one group per request, as the writer stores them
      const groups = requests.flatMap((logs) => groupLogs(logs));
      await db.transaction('rw', db.logGroups, db.feedback, async () => {
        const seqs = await db.logGroups.bulkAdd(groups, { allKeys: true });
        const stored = new Map(groups.flatMap((group, i) => group.keys.map(([, reqID]) => [reqID, seqs[i]!] as const)));
        await db.feedback.bulkAdd(feedback.map((item) => ({ ...item, logGroup: stored.get(item.evaluationLog)! })));
      });
    },
    async counted(userID, evaluations, feedback) {
      await db.tallies.put({ userID, evaluations, feedback });
    },
    async fillControl(count) {
      for (let from = 0; from < count; from += FILL_CHUNK) {
        await inControl(control, 'readwrite', (records) => {
          for (let i = from; i < Math.min(count, from + FILL_CHUNK); i++) records.add(controlValue(i), controlKey(i));
        });
      }
    },
    putControl: (i) => inControl(control, 'readwrite', (records) => void records.put(controlValue(i), controlKey(i))),
    getControl: (i) => inControl(control, 'readonly', (records) => void records.get(controlKey(i))),
    async close() {
      db.close();
      control.close();
      await service.close();
    },
  };
}

export async function openScaleStore(options: ScaleStoreOptions): Promise<ScaleStore> {
  const { size, estimate } = options;
  const dbName = `scale-${size}-${Date.now()}`;
  const usage = async () => (estimate ? ((await estimate()).usage ?? 0) : 0);
  const startUsage = await usage();
  const backend = await (options.backend ?? (() => indexedDBBackend(options, dbName)))();
  const { service } = backend;
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await service.handle(
      new Request(`http://bench.local/${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const parsed = (await response.json()) as any;
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
    return { response, body: parsed };
  };

  const account = await service.createAccount('scale');
  const key = account.apiKey;
  const created = (await call('POST', 'agent', key, agent)).body;
  const base = { userID: account.userID, agentID: created.id as string, versionID: created.latestVersion as string };
  const singles: string[] = [];
  const batched: string[] = [];
  let stored = 0;
  let controlRecords = 0;
  let storedBytes = 0;
  let round = 0;

  const log = (reqID: string, i: number): EvaluationRecord => {
    const temperature = (i * 7.3) % 40;
    return { reqID, ...base, input: { temperature }, crisp: { fan: 25 + temperature }, createdAt: new Date().toISOString() };
  };

  /** The records the service itself writes, bulk-added: half the logs as 4096 batches, half single, feedback on every fourth. */
  async function fillStore(count: number) {
    const batches = Math.floor(count / 2 / BATCH);
    let pending: { requests: EvaluationRecord[][]; feedback: FeedbackRecord[] } = { requests: [], feedback: [] };
    const flush = async () => {
      await backend.bulk(pending.requests, pending.feedback);
      pending = { requests: [], feedback: [] };
    };
    const add = async (ids: string[]) => {
      pending.requests.push(ids.map((id, i) => log(id, stored + i)));
      for (const [i, id] of ids.entries()) {
        if ((stored + i) % 4 === 0) {
          pending.feedback.push({ id: crypto.randomUUID(), userID: base.userID, evaluationLog: id, data: { stars: 4 }, createdAt: new Date().toISOString() });
        }
      }
      stored += ids.length;
      // about FILL_CHUNK records a transaction: a batch is 64 of them, a single one, and feedback one each
      if (pending.requests.length + pending.feedback.length >= FILL_CHUNK) await flush();
    };
    for (let b = 0; b < batches; b++) {
      const ids = newEvaluationIDs(BATCH);
      batched.push(...ids);
      await add(ids);
    }
    for (let s = 0, n = count - batches * BATCH; s < n; s++) {
      const [id] = newEvaluationIDs(1) as [string];
      singles.push(id);
      await add([id]);
    }
    await flush();
    // the counts the service keeps, as if every one of these had been a request
    await backend.counted(base.userID, stored, Math.ceil(stored / 4));
  }

  const operations: Record<Operation, (i: number) => Promise<unknown>> = {
    evaluate: async (i) => {
      const made = await call('POST', `agent/${base.agentID}`, key, { temperature: (i * 3.1) % 40 });
      singles.push(made.response.headers.get('X-Evaluation-ID')!);
    },
    readSingle: (i) => call('GET', `evaluation/${singles[scatter(i, singles.length)]}`, key),
    readBatchItem: (i) => call('GET', `evaluation/${batched[scatter(i, batched.length)]}`, key),
    feedbackSingle: (i) => call('POST', `evaluation/${singles[scatter(i + 7, singles.length)]}/feedback`, key, { stars: 3 }),
    feedbackBatchItem: (i) => call('POST', `evaluation/${batched[scatter(i + 7, batched.length)]}/feedback`, key, { stars: 3 }),
    listPage: () => call('GET', `agent/${base.agentID}/evaluation?limit=100`, key),
    deleteSingle: (i) => call('DELETE', `evaluation/${takeAt(singles, scatter(i + 13, singles.length))}`, key),
    deleteBatchItem: (i) => call('DELETE', `evaluation/${takeAt(batched, scatter(i + 13, batched.length))}`, key),
    storage: () => call('GET', 'storage', key),
    controlPut: () => backend.putControl(controlRecords++),
    controlGet: (i) => backend.getControl(scatter(i + 3, controlRecords)),
  };

  return {
    size,
    dbName,
    async fill() {
      const start = performance.now();
      await fillStore(size);
      // one batch made through the interface, so there are batch items at every size
      const probe = await call(
        'POST',
        `agent/${base.agentID}`,
        key,
        Array.from({ length: BATCH }, (_, i) => ({ temperature: i % 40 })),
      );
      batched.push(...probe.response.headers.get('X-Evaluation-ID')!.split(','));
      return (performance.now() - start) / 1000;
    },
    async fillControl() {
      // what the evaluations take (the storage settled since the fill), before the control's records join them
      storedBytes = (await usage()) - startUsage;
      await backend.fillControl(size);
      controlRecords = size;
    },
    async measure(rounds) {
      const samples = Object.fromEntries(OPERATIONS.map((name) => [name, [] as number[]])) as Samples;
      for (let r = 0; r < rounds; r++, round++) {
        // each round starts at another operation: what one leaves behind (LevelDB work after a
        // write, the quota manager's after an estimate) falls on every other in turn
        for (const [n] of OPERATIONS.entries()) {
          const name = OPERATIONS[(n + round) % OPERATIONS.length]!;
          const start = performance.now();
          await operations[name](round);
          samples[name].push(performance.now() - start);
        }
      }
      return samples;
    },
    async bytesPerEvaluation() {
      return estimate ? storedBytes / (size + BATCH) : null;
    },
    close: () => backend.close(),
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface ScaleResult {
  size: number;
  fillSeconds: number;
  samples: Samples;
  bytesPerEvaluation: number | null;
}

const labels: Record<Operation, string> = {
  evaluate: 'evaluate (one input)',
  readSingle: '`GET /evaluation/:id`, a single evaluation',
  readBatchItem: '`GET /evaluation/:id`, an item of a 4096 batch',
  feedbackSingle: 'feedback on a single evaluation',
  feedbackBatchItem: 'feedback on an item of a 4096 batch',
  listPage: 'list a page of 100 (with their feedback)',
  deleteSingle: 'delete a single evaluation',
  deleteBatchItem: 'delete an item of a 4096 batch',
  storage: '`GET /storage`',
  controlPut: 'control: one plain record put beside N (bare IndexedDB / a plain table)',
  controlGet: 'control: one plain record got among N',
};

/**
 * The results as a Markdown table: median ms per operation at each size, and the largest size's
 * median over the smallest's (the target: at most 1.5).
 */
export function scaleTable(results: ScaleResult[]): string {
  const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
  const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} M` : n >= 1000 ? `${n / 1000} k` : String(n));
  const first = results[0]!;
  const last = results.at(-1)!;
  const lines = [
    `| operation | ${results.map((result) => count(result.size)).join(' | ')} | ${count(last.size)} ÷ ${count(first.size)} |`,
    `|---|${results.map(() => '---|').join('')}---|`,
  ];
  for (const name of OPERATIONS) {
    const medians = results.map((result) => median(result.samples[name]));
    lines.push(`| ${labels[name]} | ${medians.map(ms).join(' | ')} | ${(medians.at(-1)! / medians[0]!).toFixed(2)} |`);
  }
  const itemOverSingle = (item: Operation, single: Operation) =>
    results.map((result) => (median(result.samples[item]) / median(result.samples[single])).toFixed(2)).join(' | ');
  lines.push(`| read: batch item ÷ single | ${itemOverSingle('readBatchItem', 'readSingle')} | |`);
  lines.push(`| feedback: batch item ÷ single | ${itemOverSingle('feedbackBatchItem', 'feedbackSingle')} | |`);
  if (results.every((result) => result.bytesPerEvaluation !== null)) {
    lines.push(`| bytes stored per evaluation (\`estimate()\`) | ${results.map((result) => Math.round(result.bytesPerEvaluation!)).join(' | ')} | |`);
  }
  lines.push(`| seconds to fill (bulk) | ${results.map((result) => result.fillSeconds.toFixed(0)).join(' | ')} | |`);
  return lines.join('\n');
}
