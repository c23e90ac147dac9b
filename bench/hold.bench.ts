// What one account's bulk work costs other accounts on `fuzzbox serve`, on PGlite files and on a
// PostgreSQL server, each probe beside the same probe without that work in the same run (issue 32):
// another account's GET /agent or single evaluation, every 5 ms, while
//  1. nothing else runs (the floor),
//  2. one account pushes 10,000 tombstones (`deletion` lines; they froze PGlite for seconds),
//  3. one account pushes 10,000 feedback on its agent's logs and autopilot digests them (a
//     proposal over the newest 2,000), against the same push to an agent without `performance`
//     (autopilot off), probed for as long.
// Prints each probe's median, p99 and longest wait, and the longest the server's event loop was
// held meanwhile (the server runs in this process). TOMBSTONES and LOGS override the counts,
// STORES the stores (default "pglite,postgres").
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { serve } from '../src/node/index.js';
import { startPostgres } from '../test/support/postgres-server.js';

const TOMBSTONES = Number(process.env.TOMBSTONES ?? 10_000);
const LOGS = Number(process.env.LOGS ?? 10_000);
const STORES = (process.env.STORES ?? 'pglite,postgres').split(',');
const NDJSON = 'application/x-ndjson';
/** The longest autopilot may take to digest the logs before the bench gives up waiting. */
const DIGEST_MOST_MS = 120_000;

const tipping = (performance?: object) => ({
  name: 'tipping',
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
  ...(performance ? { performance } : {}),
});

const round = (ms: number) => Math.round(ms * 10) / 10;

const summary = (store: string, name: string, latencies: number[], loopHeldMs: number) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return { store, probe: name, n: sorted.length, medianMs: at(0.5), p99Ms: at(0.99), longestMs: at(1), loopHeldMs: round(loopHeldMs), load: loadavg()[0] };
};

/** `probe` every 5 ms while `work` runs; its latencies, and the longest the event loop was held. */
async function during(work: () => Promise<unknown>, probe: () => Promise<unknown>): Promise<{ latencies: number[]; loopHeldMs: number }> {
  const latencies: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
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
    loop.disable();
  }
  return { latencies, loopHeldMs: loop.max / 1e6 };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(store: string, database: string | undefined) {
  const dataDir = database ? undefined : mkdtempSync(join(tmpdir(), 'fuzzbox-hold-'));
  const server = await serve({ port: 0, ...(database ? { database } : { dataDir }) });
  const results = [];
  try {
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
    const push = (key: string, lines: string) => call('sync/push', key, { method: 'POST', headers: { 'Content-Type': NDJSON }, body: lines });

    const prober = await signup();
    const probeAgent = (JSON.parse((await call('agent', prober, json(tipping()))).text) as { id: string }).id;
    const listAgents = () => call('agent', prober);
    const evaluateOne = () => call(`agent/${probeAgent}`, prober, json({ service: 6 }));

    const idle = await during(() => pause(2000), listAgents);
    results.push(summary(store, 'GET /agent, nothing else running', idle.latencies, idle.loopHeldMs));
    const pusher = await signup();
    const now = new Date().toISOString();
    const tombstones = [
      header(),
      ...Array.from({ length: TOMBSTONES }, () => JSON.stringify({ kind: 'deletion', id: `T${randomUUID().replace(/-/g, '').slice(0, 25)}`, deletedAt: now })),
    ].join('\n');
    const pushed = await during(() => push(pusher, tombstones), listAgents);
    results.push(summary(store, `GET /agent, during a push of ${TOMBSTONES} tombstones`, pushed.latencies, pushed.loopHeldMs));

    // autopilot on digests the push until its state shows the feedback used; off is probed as long
    let digestMs = 0;
    for (const on of [true, false]) {
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
      const { latencies, loopHeldMs } = await during(async () => {
        const started = performance.now();
        await push(key, feedback);
        if (!on) return pause(digestMs);
        // autopilot's work runs after the push's answer (`idle` is not reachable over HTTP)
        while (performance.now() - started < DIGEST_MOST_MS) {
          const state = JSON.parse((await call(`agent/${agent}/autopilot`, key)).text) as { usedFeedback: number };
          if (state.usedFeedback > 0) break;
          await pause(100);
        }
        digestMs = performance.now() - started;
      }, evaluateOne);
      results.push(
        summary(
          store,
          `POST /agent/:id, during a push of ${LOGS} feedback, autopilot ${on ? `on (digested in ${Math.round(digestMs)} ms)` : 'off'}`,
          latencies,
          loopHeldMs,
        ),
      );
    }
  } finally {
    await server.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

for (const store of STORES) {
  const postgres = store === 'postgres' ? await startPostgres('fuzzbox_hold') : undefined;
  try {
    for (const result of await measure(store, postgres?.url)) console.log(JSON.stringify(result));
  } finally {
    postgres?.stop();
  }
}
