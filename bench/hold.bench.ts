// What one account's bulk work costs other accounts on `fuzzbox serve` (PGlite files), measured
// beside the same probe without that work (issue 32): another account's GET /agent or single
// evaluation, every 5 ms, while
//  1. one account pushes 10,000 tombstones (`deletion` lines; they froze PGlite for seconds), and
//  2. one account's autopilot digests 10,000 logs with feedback (pushed in one go), against the
//     same push to an agent without `performance` (autopilot off).
// Prints each probe's median, p99 and longest wait. TOMBSTONES and LOGS override the counts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../src/node/index.js';

const TOMBSTONES = Number(process.env.TOMBSTONES ?? 10_000);
const LOGS = Number(process.env.LOGS ?? 10_000);
const NDJSON = 'application/x-ndjson';

const tipping = (performance?: object) => ({
  name: 'tipping',
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
  ...(performance ? { performance } : {}),
});

const summary = (name: string, latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
  return { probe: name, n: sorted.length, medianMs: at(0.5), p99Ms: at(0.99), longestMs: at(1) };
};

const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-hold-'));
const server = await serve({ port: 0, dataDir });
const call = async (path: string, key: string | undefined, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, server.url), {
    ...init,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(init.headers ?? {}) },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  return { response, text };
};
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const signup = async () => (JSON.parse((await call('account', undefined, json({}))).text) as { apiKey: string }).apiKey;
const header = () => JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });

/** `probe` every 5 ms while `work` runs; its latencies. */
async function during(work: () => Promise<unknown>, probe: () => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      const started = performance.now();
      await probe();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await probing;
  }
  return latencies;
}

try {
  const prober = await signup();
  const probeAgent = (JSON.parse((await call('agent', prober, json(tipping()))).text) as { id: string }).id;
  const evaluateOne = () => call(`agent/${probeAgent}`, prober, json({ service: 6 }));
  const results = [];

  // 1. tombstones
  const pusher = await signup();
  const now = new Date().toISOString();
  const tombstones = [
    header(),
    ...Array.from({ length: TOMBSTONES }, () => JSON.stringify({ kind: 'deletion', id: `T${randomUUID().replace(/-/g, '').slice(0, 25)}`, deletedAt: now })),
  ].join('\n');
  results.push(
    summary(
      'GET /agent, idle',
      await during(
        () => new Promise((resolve) => setTimeout(resolve, 2000)),
        () => call('agent', prober),
      ),
    ),
  );
  results.push(
    summary(
      `GET /agent, during a push of ${TOMBSTONES} tombstones`,
      await during(
        () => call('sync/push', pusher, { method: 'POST', headers: { 'Content-Type': NDJSON }, body: tombstones }),
        () => call('agent', prober),
      ),
    ),
  );

  // 2. autopilot digesting LOGS logs with feedback, and the same without autopilot
  for (const on of [false, true]) {
    const key = await signup();
    const agent = (JSON.parse((await call('agent', key, json(tipping(on ? { score: 'maximize' } : undefined)))).text) as { id: string }).id;
    const ids: string[] = [];
    // 256 a request: X-Evaluation-ID names each (fetch refuses headers over 16 KiB)
    for (let done = 0; done < LOGS; done += 256) {
      const batch = Array.from({ length: Math.min(256, LOGS - done) }, (_, i) => ({ service: ((done + i) * 7) % 11 }));
      ids.push(...(await call(`agent/${agent}`, key, json(batch))).response.headers.get('X-Evaluation-ID')!.split(','));
    }
    const feedback = [
      header(),
      ...ids.map((id, i) =>
        JSON.stringify({ kind: 'feedback', id: randomUUID(), evaluationLog: id, data: { score: (i * 13) % 17 }, createdAt: new Date().toISOString() }),
      ),
    ].join('\n');
    const latencies = await during(async () => {
      await call('sync/push', key, { method: 'POST', headers: { 'Content-Type': NDJSON }, body: feedback });
      // autopilot's work runs after the push's answer: the probe goes on while it runs (`idle` is not reachable over HTTP)
      await new Promise((resolve) => setTimeout(resolve, on ? 20_000 : 2_000));
    }, evaluateOne);
    results.push(summary(`POST /agent/:id, during a push of ${LOGS} feedback, autopilot ${on ? 'on' : 'off'}`, latencies));
  }
  for (const result of results) console.log(JSON.stringify(result));
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
