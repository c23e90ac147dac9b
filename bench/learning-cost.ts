// One store and size of bench/learning-cost.bench.ts, in a process of its own.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { Autopilot } from '../src/core/autopilot.js';
import { compileAgent, evaluate } from '../src/engine/index.js';
import { createFuzzyService } from '../src/index.js';
import { exploreTruncated, seededRandom, WIDEST_SPREAD } from '../src/learn/index.js';
import { gaussian } from '../src/learn/random.js';
import { pgliteDatabase } from '../src/node/databases.js';
import { DexieStore } from '../src/store/dexie/dexie-store.js';
import { groupLogs } from '../src/store/dexie/log-groups.js';
import { newEvaluationIDs } from '../src/store/ids.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import type { EvaluationRecord, FeedbackRecord } from '../src/store/records.js';
import type { FuzzboxStore } from '../src/store/store.js';

export const agent = {
  name: 'lemonade',
  inputs: { temperature: { cold: [10, 25], warm: [10, 25, 40], hot: [25, 40] } },
  outputs: { price: { low: [0, 0.2, 0.5], medium: [0.2, 0.5, 0.8], high: [0.5, 0.8, 3] } },
  rules: ['IF temperature IS cold THEN price IS low', 'IF temperature IS warm THEN price IS medium', 'IF temperature IS hot THEN price IS high'],
  performance: { profit: 'maximize' as const },
};
/** Profit peaks at a price that rises with the heat (the lemonade stand of test/learn/worlds.ts). */
export const profit = (temperature: number, price: number) => {
  const tolerance = 0.5 + 0.05 * (temperature - 10);
  return (price - 0.3) * (40 + 4 * (temperature - 10)) * Math.exp(-price / tolerance);
};
/** Logs per request, as a batch evaluation writes them. */
const BATCH = 4096;

interface Fill {
  logs: EvaluationRecord[];
  feedback: FeedbackRecord[];
}

/** `size` explored evaluations with feedback, a batch at a time, as the service would log them. */
export function* batches(size: number, base: { userID: string; agentID: string; versionID: string }): Generator<Fill> {
  const compiled = compileAgent(agent);
  const random = seededRandom(size);
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let offset = 0; offset < size; offset += BATCH) {
    const createdAt = new Date(start + offset * 1000).toISOString();
    const fill: Fill = { logs: [], feedback: [] };
    const ids = newEvaluationIDs(Math.min(size, offset + BATCH) - offset);
    for (let i = offset; i < Math.min(size, offset + BATCH); i++) {
      const input = { temperature: 10 + 30 * random() };
      const { crisp } = evaluate(compiled, input);
      const { returned, density } = exploreTruncated(crisp, compiled.outputs, WIDEST_SPREAD, random);
      const reqID = ids[i - offset]!;
      fill.logs.push({ reqID, ...base, input, crisp, returned, density, createdAt });
      const value = profit(input.temperature, returned.price!) + 4 * gaussian(random);
      fill.feedback.push({ id: `F${i}`, userID: base.userID, evaluationLog: reqID, data: { profit: value }, createdAt });
    }
    yield fill;
  }
}

async function fillDexie(store: DexieStore, size: number, base: { userID: string; agentID: string; versionID: string }) {
  const { db } = store;
  for (const { logs, feedback } of batches(size, base)) {
    await db.transaction('rw', db.logGroups, db.feedback, async () => {
      const groups = groupLogs(logs);
      const seqs = await db.logGroups.bulkAdd(groups, { allKeys: true });
      // feedback is found through its log's group (IndexedDB schema version 11)
      const groupOf = new Map(groups.flatMap((group, g) => group.keys.map(([, reqID]) => [reqID, seqs[g]!] as const)));
      await db.feedback.bulkAdd(feedback.map((item) => ({ ...item, logGroup: groupOf.get(item.evaluationLog)! })));
    });
  }
}

async function fillPostgres(
  query: (text: string, params: unknown[]) => Promise<unknown>,
  size: number,
  base: { userID: string; agentID: string; versionID: string },
) {
  for (const { logs, feedback } of batches(size, base)) {
    await query(
      `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, returned, density, created_at)
       SELECT "reqID", "userID", "agentID", "versionID", input, crisp, returned, density, "createdAt"
       FROM json_to_recordset($1::json) AS r("reqID" text, "userID" text, "agentID" text, "versionID" text, input json, crisp json, returned json, density float8, "createdAt" text)`,
      [JSON.stringify(logs)],
    );
    await query(
      `INSERT INTO feedback (id, user_id, evaluation_log, data, created_at)
       SELECT id, "userID", "evaluationLog", data, "createdAt" FROM json_to_recordset($1::json) AS r(id text, "userID" text, "evaluationLog" text, data json, "createdAt" text)`,
      [JSON.stringify(feedback)],
    );
  }
}

const gc = () => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  collect();
  collect();
};

/**
 * Time `run` takes; then, running it again, the most memory it holds: every 25 ms a full
 * collection, then the JS heap (heapUsed) and typed arrays (arrayBuffers) in use above what was
 * in use before it started. Collecting first counts what the operation keeps alive, not the
 * garbage V8 has not yet collected; sampling between its steps (the reads yield every page, the
 * optimizer every 20–30 ms) sees its working set at each of them.
 */
async function measured<T>(run: () => Promise<T>, again: () => Promise<unknown>): Promise<{ ms: number; heap: number; arrays: number; result: T }> {
  gc();
  const start = performance.now();
  const result = await run();
  const ms = performance.now() - start;
  gc();
  const base = process.memoryUsage();
  let heap = 0;
  let arrays = 0;
  const sample = () => {
    gc();
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed - base.heapUsed);
    arrays = Math.max(arrays, now.arrayBuffers - base.arrayBuffers);
  };
  const timer = setInterval(sample, 25);
  await again();
  clearInterval(timer);
  return { ms, heap, arrays, result };
}

export async function measure(backend: 'dexie' | 'pglite', size: number) {
  let store: FuzzboxStore;
  let sql: ((text: string, params: unknown[]) => Promise<unknown>) | undefined;
  if (backend === 'dexie') {
    store = new DexieStore(`cost-${size}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  } else {
    const db = await pgliteDatabase();
    store = await PostgresStore.open(db);
    sql = (text, params) => db.query(text, params);
  }
  const service = createFuzzyService({ store });
  const { apiKey, userID } = await service.createAccount('cost');
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await service.handle(
      new Request(`http://bench.local/${path}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const answer = await response.json();
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const created = await call('POST', 'agent', agent);
  // autopilot off while filling and optimizing: only the proposal measured below learns
  await call('PUT', `agent/${created.id}/autopilot`, { enabled: false });
  const base = { userID, agentID: created.id as string, versionID: created.latestVersion as string };
  const fillStart = performance.now();
  if (sql) await fillPostgres(sql, size, base);
  else await fillDexie(store as DexieStore, size, base);
  const fillMs = performance.now() - fillStart;

  const optimizeOnce = () => call('POST', `agent/${base.agentID}/optimize`, { metric: 'profit', goal: 'maximize', dryRun: true });
  const optimize = await measured(optimizeOnce, optimizeOnce);
  await call('PUT', `agent/${base.agentID}/autopilot`, { enabled: true });
  const initial = (await store.readAutopilot(userID, base.agentID))!;
  // a fresh autopilot each time, as a worker the browser just started: nothing cached, no proposal yet
  const proposeOnce = async () => {
    const { revision = 0 } = (await store.readAutopilot(userID, base.agentID))!;
    await store.writeAutopilot(userID, { ...initial, revision: revision + 1 });
    await new Autopilot(store).step(userID, base.agentID);
  };
  const propose = await measured(proposeOnce, proposeOnce);
  const state = await store.readAutopilot(userID, base.agentID);
  await service.close();
  return {
    fillMs,
    optimize: { ms: optimize.ms, heap: optimize.heap, arrays: optimize.arrays, used: optimize.result.evaluationsUsed as number },
    propose: { ms: propose.ms, heap: propose.heap, arrays: propose.arrays, proposed: state?.candidate !== undefined },
  };
}
