// `npx tsx bench/service.bench.ts`: the REST service through handle() on fake-indexeddb
// (in-memory IndexedDB, so these figures measure the service and Dexie, not a disk).
import { serialize } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createFuzzyService } from '../src/index';

const origin = 'http://bench.test';
const indexedDB = new IDBFactory();
const service = createFuzzyService({ indexedDB, IDBKeyRange, dbName: 'bench' });

// The engine benchmark's system: service and food (three sets each) → tip (three sets), nine rules.
const levels = ['poor', 'good', 'excellent'] as const;
const tips = { poor: 'low', good: 'medium', excellent: 'high' } as const;
const agentBody = {
  name: 'tipper',
  inputs: {
    service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] },
    food: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] },
  },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
  rules: levels.flatMap((s) => levels.map((f) => `IF service IS ${s} AND food IS ${f} THEN tip IS ${tips[s === 'excellent' || f === 'excellent' ? 'excellent' : s]}`)),
};

async function call(method: string, path: string, key?: string, body?: unknown): Promise<Response> {
  const response = await service.handle(
    new Request(`${origin}/${path}`, {
      method,
      headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

const randomInputs = () => ({ service: Math.random() * 10, food: Math.random() * 10 });
const format = (value: number) => Math.round(value).toLocaleString('en-US');

async function main() {
  const { apiKey } = (await (await call('POST', 'account', undefined, { name: 'bench' })).json()) as { apiKey: string };
  const { id } = (await (await call('POST', 'agent', apiKey, agentBody)).json()) as { id: string };
  const evaluate = async () => (await call('POST', `agent/${id}`, apiKey, randomInputs())).headers.get('X-Evaluation-ID')!;

  for (let i = 0; i < 300; i++) await evaluate(); // warm up the JIT and the compiled-agent cache

  const sequential = 2000;
  let start = performance.now();
  for (let i = 0; i < sequential; i++) await evaluate();
  const sequentialRate = sequential / ((performance.now() - start) / 1000);

  const concurrent = 4000;
  const inFlight = 32;
  const ids: string[] = [];
  let next = 0;
  start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < concurrent) ids.push(await evaluate());
    }),
  );
  const concurrentRate = concurrent / ((performance.now() - start) / 1000);

  const batch = Array.from({ length: 4096 }, randomInputs);
  const batchTimes: number[] = [];
  for (let run = 0; run < 5; run++) {
    start = performance.now();
    const response = await call('POST', `agent/${id}`, apiKey, batch);
    await response.json();
    batchTimes.push(performance.now() - start);
  }
  batchTimes.sort((a, b) => a - b);

  const reads = 2000;
  start = performance.now();
  for (let i = 0; i < reads; i++) await (await call('GET', `evaluation/${ids[i % ids.length]}`, apiKey)).json();
  const readRate = reads / ((performance.now() - start) / 1000);

  // Bytes per evaluation as Chromium's IndexedDB stores a value: V8's structured serialisation,
  // plus the primary key (reqID) and the [userID+agentID] index entry.
  const reader = new Dexie('bench', { indexedDB, IDBKeyRange });
  await reader.open();
  const stored = await reader.table('evaluations').limit(1000).toArray();
  const valueBytes = stored.reduce((sum, record) => sum + serialize(record).byteLength, 0) / stored.length;
  const sample = stored[0] as { reqID: string; userID: string; agentID: string };
  const keyBytes = sample.reqID.length + sample.userID.length + sample.agentID.length + sample.reqID.length;
  const fullLog = await (await call('GET', `evaluation/${sample.reqID}`, apiKey)).json();
  const fullBytes = serialize(fullLog).byteLength;
  const total = await reader.table('evaluations').count();
  reader.close();

  console.log(`service (handle() on fake-indexeddb, 2 inputs × 3 sets, 9 rules; every evaluation stores its log)`);
  console.log(`  single evaluations, sequential:      ${format(sequentialRate)} /s`);
  console.log(`  single evaluations, ${inFlight} in flight:     ${format(concurrentRate)} /s`);
  console.log(`  batch of 4096 with logs stored:      ${batchTimes[2]!.toFixed(1)} ms median of 5 (${format(4096 / (batchTimes[2]! / 1000))} evaluations/s; best ${batchTimes[0]!.toFixed(1)} ms)`);
  console.log(`  GET /evaluation/:id, sequential:     ${format(readRate)} /s (trace recomputed from the version)`);
  console.log(`  bytes stored per evaluation:         ${Math.round(valueBytes)} B value + ~${keyBytes} B keys (the full log it stands for: ${fullBytes} B)`);
  console.log(`  evaluations stored during the run:   ${format(total)}`);
  await service.close();
}

await main();
