// Sync (docs/SYNC.md): a browser-side service (fake-indexeddb, in this process) that logged
// 100,000 evaluations offline meets `fuzzbox serve` (PGlite files, in a process of its own) over
// loopback HTTP; then a second, empty browser takes them all. Prints the time of each, the bytes
// on the wire per log, and how long the first browser's own evaluations wait while it syncs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createFuzzyService, type FuzzyService } from '../src/index.js';

const LOGS = Number(process.env.LOGS ?? 100_000);
const BATCH = 4096;
const FEEDBACK = 1000;

const agent = {
  name: 'tipping',
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] }, food: { bad: [0, 5], good: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
  rules: [
    'IF service IS poor OR food IS bad THEN tip IS low',
    'IF service IS good THEN tip IS medium',
    'IF service IS excellent AND food IS good THEN tip IS high',
  ],
};

/** fetch, counting the bytes of request and answer bodies, and failing while `network.online` is false */
function countingFetch() {
  const bytes = { sent: 0, received: 0 };
  const network = { online: true };
  const counted = async (input: string, init?: RequestInit) => {
    if (!network.online) throw new TypeError('fetch failed: offline');
    if (typeof init?.body === 'string') bytes.sent += Buffer.byteLength(init.body);
    const response = await fetch(input, init);
    const body = new Uint8Array(await response.arrayBuffer());
    bytes.received += body.byteLength;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: counted, bytes, network };
}

function browser(url: string, apiKey: string, fetch: ReturnType<typeof countingFetch>['fetch']): FuzzyService {
  return createFuzzyService({ indexedDB: new IDBFactory(), IDBKeyRange, sync: { url, apiKey, fetch, interval: 3_600_000 } });
}

async function call(service: FuzzyService, apiKey: string, method: string, path: string, body?: unknown): Promise<Response> {
  const response = await service.handle(
    new Request(new URL(path, 'http://browser.test/'), {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Evaluates one input every 20 ms on `service` until `done` settles; each answer's time, sorted. */
async function probe(service: FuzzyService, apiKey: string, agentID: string, done: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    const start = performance.now();
    await call(service, apiKey, 'POST', `agent/${agentID}`, { service: 4, food: 6 });
    times.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return times.sort((a, b) => a - b);
}

/** `fuzzbox serve` in a child process, so that the server's work does not stand in the browser's way. */
async function startServe(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node/cli.ts', 'serve', '--port', '0', '--data', dataDir, '--quiet'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((text) => text.includes('"listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    void exited.then(() => reject(new Error('fuzzbox serve exited before listening')));
  });
  return { url, stop: async () => void (child.kill('SIGTERM'), await exited) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-sync-bench-'));
const server = await startServe(dataDir);
try {
  const { apiKey } = (await (await fetch(`${server.url}account`, { method: 'POST' })).json()) as { apiKey: string };
  const first = countingFetch();
  first.network.online = false;
  const a = browser(server.url, apiKey, first.fetch);
  // offline (no round has run): an agent, LOGS logs in batches, feedback on FEEDBACK of them
  const { id } = (await (await call(a, apiKey, 'POST', 'agent', agent)).json()) as { id: string };
  const ids: string[] = [];
  for (let done = 0; done < LOGS; done += BATCH) {
    const inputs = Array.from({ length: Math.min(BATCH, LOGS - done) }, (_, i) => ({ service: (done + i) % 11, food: ((done + i) * 7) % 11 }));
    const response = await call(a, apiKey, 'POST', `agent/${id}?meta=true`, inputs);
    const answers = (await response.json()) as Array<{ meta: { reqID: string } }>;
    ids.push(...answers.map((answer) => answer.meta.reqID));
  }
  for (let i = 0; i < FEEDBACK; i++) await call(a, apiKey, 'POST', `evaluation/${ids[i * Math.floor(LOGS / FEEDBACK)]}/feedback`, { stars: i % 5 });
  // the probe evaluates on a local account of its own: the same database, and nothing of it to sync
  const probeKey = ((await (await call(a, apiKey, 'POST', 'account')).json()) as { apiKey: string }).apiKey;
  const probed = ((await (await call(a, probeKey, 'POST', 'agent', agent)).json()) as { id: string }).id;
  const idle = await probe(a, probeKey, probed, new Promise((resolve) => setTimeout(resolve, 1000)));
  console.log(`a browser's evaluation, alone: p50 ${ms(percentile(idle, 50))}, max ${ms(idle.at(-1)!)} (${idle.length} answers)`);

  first.network.online = true;
  first.bytes.sent = 0;
  first.bytes.received = 0;
  let start = performance.now();
  const pushing = a.sync!.now();
  const during = await probe(a, probeKey, probed, pushing);
  const pushed = await pushing;
  const pushMs = performance.now() - start;
  if (pushed.lastError || pushed.pending !== 0) throw new Error(`push failed: ${JSON.stringify(pushed)}`);
  console.log(
    `push ${LOGS.toLocaleString('en')} logs + ${FEEDBACK} feedback: ${(pushMs / 1000).toFixed(1)} s (${Math.round(LOGS / (pushMs / 1000)).toLocaleString('en')} logs/s); ` +
      `${(first.bytes.sent / LOGS).toFixed(0)} bytes sent per log, ${(first.bytes.received / LOGS).toFixed(1)} received`,
  );
  console.log(
    `  its own evaluations meanwhile: p50 ${ms(percentile(during, 50))}, p99 ${ms(percentile(during, 99))}, max ${ms(during.at(-1)!)} (${during.length} answers)`,
  );

  const second = countingFetch();
  const b = browser(server.url, apiKey, second.fetch);
  start = performance.now();
  const pulled = await b.sync!.now();
  const pullMs = performance.now() - start;
  if (pulled.lastError) throw new Error(`pull failed: ${pulled.lastError}`);
  console.log(
    `pull them into an empty browser: ${(pullMs / 1000).toFixed(1)} s (${Math.round(LOGS / (pullMs / 1000)).toLocaleString('en')} logs/s); ` +
      `${(second.bytes.received / LOGS).toFixed(0)} bytes received per log`,
  );
  const counts = async (service: FuzzyService) => ((await (await call(service, apiKey, 'GET', 'storage')).json()) as { counts: unknown }).counts;
  const onServer = (await (await fetch(`${server.url}storage`, { headers: { Authorization: `Bearer ${apiKey}` } })).json()) as { counts: unknown };
  if (JSON.stringify(onServer.counts) !== JSON.stringify(await counts(b)))
    throw new Error(`the second browser holds ${JSON.stringify(await counts(b))}, the server ${JSON.stringify(onServer.counts)}`);
  await a.close();
  await b.close();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
