// `npx tsx bench/service.bench.ts`: the REST service through handle() on fake-indexeddb
// (in-memory IndexedDB, so these figures measure the service and Dexie, not a disk).
import { serialize } from 'node:v8';
import { performance } from 'node:perf_hooks';
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createFuzzyService } from '../src/index.js';

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
  rules: levels.flatMap((s) =>
    levels.map((f) => `IF service IS ${s} AND food IS ${f} THEN tip IS ${tips[s === 'excellent' || f === 'excellent' ? 'excellent' : s]}`),
  ),
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

  // Each figure is the median of several rounds: the machine is shared, so single rounds vary.
  const rounds = 5;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const timed = async (work: () => Promise<unknown>) => {
    const begin = performance.now();
    await work();
    return performance.now() - begin;
  };

  const sequential = 1000;
  const sequentialRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const ms = await timed(async () => {
      for (let i = 0; i < sequential; i++) await evaluate();
    });
    sequentialRates.push(sequential / (ms / 1000));
  }

  const concurrent = 2000;
  const inFlight = 32;
  const ids: string[] = [];
  const concurrentRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let next = 0;
    const ms = await timed(() =>
      Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next++ < concurrent) ids.push(await evaluate());
        }),
      ),
    );
    concurrentRates.push(concurrent / (ms / 1000));
  }

  const batch = Array.from({ length: 4096 }, randomInputs);
  const batchTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    batchTimes.push(await timed(async () => (await call('POST', `agent/${id}`, apiKey, batch)).json()));
  }

  const reads = 1000;
  const readRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const ms = await timed(async () => {
      for (let i = 0; i < reads; i++) await (await call('GET', `evaluation/${ids[(round * reads + i) % ids.length]}`, apiKey)).json();
    });
    readRates.push(reads / (ms / 1000));
  }

  // Bytes per evaluation as Chromium's IndexedDB stores a value: V8's structured serialisation of
  // the log group, shared by its logs, plus its keys: the primary key (seq), one `*keys` index
  // entry per log ([userID, reqID] and the group's key) and one [userID+agentID+seq] entry per group.
  const reader = new Dexie('bench', { indexedDB, IDBKeyRange });
  await reader.open();
  type Group = { seq: number; userID: string; agentID: string; keys: Array<[string, string]> };
  const groups = (await reader.table('logGroups').toArray()) as Group[];
  const perLog = (group: Group) => {
    const [userID, reqID] = group.keys[0]!;
    const keyBytes = 8 + group.keys.length * (userID.length + reqID.length + 8) + group.userID.length + group.agentID.length + 16;
    return { value: serialize(group).byteLength / group.keys.length, keys: keyBytes / group.keys.length };
  };
  const single = perLog(groups.find((group) => group.keys.length === 1)!);
  const batched = perLog(groups.find((group) => group.keys.length === 64)!);
  const sample = groups[0]!.keys[0]![1];
  const fullLog = await (await call('GET', `evaluation/${sample}`, apiKey)).json();
  const fullBytes = serialize(fullLog).byteLength;
  const total = groups.reduce((sum, group) => sum + group.keys.length, 0);
  reader.close();

  const spread = (values: number[], unit: string, fmt: (v: number) => string) =>
    `${fmt(median(values))} ${unit} (median of ${rounds}; ${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
  console.log(`service (handle() on fake-indexeddb, 2 inputs × 3 sets, 9 rules; every evaluation stores its log)`);
  console.log(`  single evaluations, sequential:      ${spread(sequentialRates, '/s', format)}`);
  console.log(`  single evaluations, ${inFlight} in flight:     ${spread(concurrentRates, '/s', format)}`);
  console.log(`  batch of 4096 with logs stored:      ${spread(batchTimes, 'ms', (v) => v.toFixed(0))}`);
  console.log(`  GET /evaluation/:id, sequential:     ${spread(readRates, '/s', format)} (trace recomputed from the version)`);
  const bytes = ({ value, keys }: { value: number; keys: number }) => `${Math.round(value)} B value + ~${Math.round(keys)} B keys`;
  console.log(`  bytes stored per evaluation, alone:  ${bytes(single)} (the full log it stands for: ${fullBytes} B)`);
  console.log(`  bytes stored per evaluation, batched: ${bytes(batched)} (a record holds 64 of the batch's logs)`);
  console.log(`  log records (groups) stored:         ${format(groups.length)}`);
  console.log(`  evaluations stored during the run:   ${format(total)}`);
  await service.close();
}

await main();
