// Flat costs at scale (issue 10 §4): the same measurements with 1 k, 100 k and 1 M evaluations
// stored, run by bench/scale.bench.ts in Node (fake-indexeddb) and in Chromium (real IndexedDB,
// persistent profile). The store is filled directly with the records the service itself writes
// (half the evaluations as 4096 batches, half as single requests, feedback on every fourth), then
// every measured operation goes through handle(), as a request would.
import { Dexie } from 'dexie';
import { createFuzzyService } from '../src/api/index.js';
import { FuzzboxDatabase, type DatabaseOptions } from '../src/store/database.js';
import { groupLogs } from '../src/store/evaluations.js';
import type { EvaluationRecord, FeedbackRecord } from '../src/store/records.js';

export interface ScaleOptions extends DatabaseOptions {
  sizes: number[];
  /** `navigator.storage.estimate` where there is one: bytes stored per evaluation */
  estimate?: () => Promise<{ usage?: number }>;
  /** repetitions of each measured operation */
  repeat?: number;
  progress?: (message: string) => void;
}

export interface ScaleRow {
  stored: number;
  fillSeconds: number;
  /** median milliseconds per operation, `null` where the endpoint does not exist */
  evaluate: number;
  readSingle: number;
  readBatchItem: number;
  feedbackSingle: number;
  feedbackBatchItem: number;
  listPage: number | null;
  /** the platform's floor beside them: one tiny record put (strict durability) and got, no fuzzbox code, in the same storage */
  floorWrite: number;
  floorRead: number;
  deleteSingle: number | null;
  deleteBatchItem: number | null;
  storage: number;
  bytesPerEvaluation: number | null;
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function measureAtScale(options: ScaleOptions): Promise<ScaleRow[]> {
  const { sizes, estimate, repeat = 200, progress = () => undefined } = options;
  const dbName = `scale-${Date.now()}`;
  const service = createFuzzyService({ ...options, dbName });
  const db = new FuzzboxDatabase(dbName, options);
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await service.handle(
      new Request(`http://bench.local/${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, response, body: (await response.json()) as any };
  };
  const timed = async (run: (i: number) => Promise<unknown>, times: number) => {
    const samples: number[] = [];
    for (let i = 0; i < times; i++) {
      const start = performance.now();
      await run(i);
      samples.push(performance.now() - start);
    }
    return median(samples);
  };

  // The floor: a tiny database of the same origin (Chromium keeps one LevelDB per origin, so it
  // shares the disk, the compaction and the cache with the store), one record written and read.
  const floor = new Dexie(`${dbName}-floor`, { ...options, chromeTransactionDurability: 'strict', cache: 'disabled' });
  floor.version(1).stores({ records: 'id' });
  await floor.open();
  const account = await service.createAccount('scale');
  const key = account.apiKey;
  const created = (await call('POST', 'agent', key, agent)).body;
  const base = { userID: account.userID, agentID: created.id as string, versionID: created.latestVersion as string };
  const singles: string[] = [];
  const batched: string[] = [];
  let stored = 0;
  let feedbackSeen = 0;
  const rows: ScaleRow[] = [];
  const usage = async () => (estimate ? ((await estimate()).usage ?? 0) : 0);
  const startUsage = await usage();

  const log = (reqID: string, i: number): EvaluationRecord => {
    const temperature = (i * 7.3) % 40;
    return { reqID, ...base, input: { temperature }, crisp: { fan: 25 + temperature }, createdAt: new Date().toISOString() };
  };
  async function fill(count: number) {
    // half in batches of 4096 (as few whole batches as fit), the rest single requests
    const batches = Math.floor(count / 2 / BATCH);
    let pending: { groups: ReturnType<typeof groupLogs>; feedback: FeedbackRecord[] } = { groups: [], feedback: [] };
    const flush = async () => {
      await db.transaction('rw', db.logGroups, db.feedback, async () => {
        await db.logGroups.bulkAdd(pending.groups);
        await db.feedback.bulkAdd(pending.feedback);
      });
      pending = { groups: [], feedback: [] };
    };
    const add = async (ids: string[]) => {
      const logs = ids.map((id, i) => log(id, stored + i));
      // one group per request, as the writer stores them
      pending.groups.push(...groupLogs(logs));
      for (const id of ids) {
        if (feedbackSeen++ % 4 === 0) {
          pending.feedback.push({ id: crypto.randomUUID(), userID: base.userID, evaluationLog: id, data: { stars: 4 }, createdAt: new Date().toISOString() });
        }
      }
      stored += ids.length;
      if (pending.groups.length + pending.feedback.length >= FILL_CHUNK) await flush();
    };
    for (let b = 0; b < batches; b++) {
      const ids = Array.from({ length: BATCH }, () => crypto.randomUUID());
      batched.push(...ids);
      await add(ids);
    }
    for (let s = 0, n = count - batches * BATCH; s < n; s++) {
      const id = crypto.randomUUID();
      singles.push(id);
      await add([id]);
    }
    await flush();
  }

  for (const size of sizes) {
    const fillStart = performance.now();
    await fill(size - stored);
    const fillSeconds = (performance.now() - fillStart) / 1000;
    progress(`${size} stored (filled in ${fillSeconds.toFixed(0)} s)`);
    // let the storage engine settle (LevelDB compacts after a bulk fill): steady-state costs
    await new Promise((settled) => setTimeout(settled, Math.min(60_000, 2_000 + size / 20)));
    // one batch made through the interface, so there are batch items at every size
    const probe = await call('POST', `agent/${base.agentID}`, key, Array.from({ length: BATCH }, (_, i) => ({ temperature: i % 40 })));
    batched.push(...probe.response.headers.get('X-Evaluation-ID')!.split(','));
    stored += BATCH;
    const pick = (ids: string[], i: number) => ids[Math.floor(((i * 2654435761) % 4294967296) / 4294967296 * ids.length)]!;

    // Round robin, one of each operation per round: whatever the storage engine does in the
    // background (LevelDB compacting after the fill) weighs on every operation alike.
    const listed = (await call('GET', `agent/${base.agentID}/evaluation?limit=100`, key)).status === 200;
    const deletable = (await call('DELETE', `evaluation/${singles.pop()}`, key)).status === 200;
    const operations: Record<string, (i: number) => Promise<unknown>> = {
      evaluate: async (i) => {
        const made = await call('POST', `agent/${base.agentID}`, key, { temperature: (i * 3.1) % 40 });
        singles.push(made.response.headers.get('X-Evaluation-ID')!);
        stored++;
      },
      readSingle: (i) => call('GET', `evaluation/${pick(singles, i)}`, key),
      readBatchItem: (i) => call('GET', `evaluation/${pick(batched, i)}`, key),
      feedbackSingle: (i) => call('POST', `evaluation/${pick(singles, i + 7)}/feedback`, key, { stars: 3 }),
      feedbackBatchItem: (i) => call('POST', `evaluation/${pick(batched, i + 7)}/feedback`, key, { stars: 3 }),
      floorWrite: (i) => floor.table('records').put({ id: i % 16, value: 'x'.repeat(100) }),
      floorRead: (i) => floor.table('records').get(i % 16),
      ...(listed ? { listPage: () => call('GET', `agent/${base.agentID}/evaluation?limit=100`, key) } : {}),
      ...(deletable
        ? {
            deleteSingle: () => call('DELETE', `evaluation/${singles.splice(Math.floor(singles.length / 3), 1)[0]}`, key),
            deleteBatchItem: () => call('DELETE', `evaluation/${batched.splice(Math.floor(batched.length / 3), 1)[0]}`, key),
          }
        : {}),
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(operations).map((name) => [name, []]));
    for (let i = 0; i < repeat; i++) {
      for (const [name, run] of Object.entries(operations)) {
        const start = performance.now();
        await run(i);
        samples[name]!.push(performance.now() - start);
      }
    }
    const result = (name: string) => (samples[name] ? median(samples[name]) : null);
    const storage = await timed(() => call('GET', 'storage', key), 5);
    const bytes = estimate ? ((await usage()) - startUsage) / stored : null;
    rows.push({
      stored: size,
      fillSeconds,
      evaluate: result('evaluate')!,
      readSingle: result('readSingle')!,
      readBatchItem: result('readBatchItem')!,
      feedbackSingle: result('feedbackSingle')!,
      feedbackBatchItem: result('feedbackBatchItem')!,
      listPage: result('listPage'),
      floorWrite: result('floorWrite')!,
      floorRead: result('floorRead')!,
      deleteSingle: result('deleteSingle'),
      deleteBatchItem: result('deleteBatchItem'),
      storage,
      bytesPerEvaluation: bytes,
    });
    progress(JSON.stringify(rows.at(-1)));
  }
  db.close();
  floor.close();
  await service.close();
  return rows;
}

/** The rows as a Markdown table, milliseconds per operation (median). */
export function scaleTable(rows: ScaleRow[]): string {
  const ms = (value: number | null) => (value === null ? 'n/a' : value < 10 ? value.toFixed(2) : value.toFixed(1));
  const count = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} M` : n >= 1000 ? `${n / 1000} k` : String(n));
  const lines = [
    '| stored | evaluate | read single | read batch item | feedback single | feedback batch item | list 100 | delete single | delete batch item | GET /storage | floor write / read | bytes/evaluation |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    lines.push(
      `| ${count(row.stored)} | ${ms(row.evaluate)} | ${ms(row.readSingle)} | ${ms(row.readBatchItem)} | ${ms(row.feedbackSingle)} | ${ms(row.feedbackBatchItem)} | ${ms(row.listPage)} | ${ms(row.deleteSingle)} | ${ms(row.deleteBatchItem)} | ${ms(row.storage)} | ${ms(row.floorWrite)} / ${ms(row.floorRead)} | ${row.bytesPerEvaluation === null ? 'n/a' : Math.round(row.bytesPerEvaluation)} |`,
    );
  }
  return lines.join('\n');
}
