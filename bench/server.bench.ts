// `fuzzbox serve` throughput and latency over real HTTP (fetch with keep-alive, one process for
// client and server), with the logs in PGlite files and in a PostgreSQL server started for the
// run (Debian's, as in the tests): one request at a time, 32 at once, and batches of 4096.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type FuzzboxServer } from '../src/node/index.js';
import { startPostgres } from '../test/support/postgres-server.js';

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

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed(run: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

async function measure(label: string, server: FuzzboxServer): Promise<void> {
  const { apiKey: key } = (await (await fetch(`${server.url}account`, { method: 'POST' })).json()) as { apiKey: string };
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const { id } = (await (await fetch(`${server.url}agent`, { method: 'POST', headers, body: JSON.stringify(agent) })).json()) as { id: string };
  // node:http rather than fetch: a batch's X-Evaluation-ID (4096 ids, 150 KB) is over fetch's 16 KB header limit
  const evaluate = (body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const request = httpRequest(`${server.url}agent/${id}`, { method: 'POST', headers, agent: keepAlive, maxHeaderSize: 1 << 20 });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
      });
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });
  const input = (i: number) => ({ service: i % 11, food: (i * 7) % 11 });
  for (let i = 0; i < 50; i++) await evaluate(input(i)); // warm-up

  const single: number[] = [];
  const singleTotal = await timed(async () => {
    for (let i = 0; i < 400; i++) single.push(await timed(() => evaluate(input(i))));
  });
  single.sort((a, b) => a - b);
  console.log(
    `${label}: one at a time: ${((400 / singleTotal) * 1000).toFixed(0)} evaluations/s; p50 ${ms(percentile(single, 50))}, p95 ${ms(percentile(single, 95))}, p99 ${ms(percentile(single, 99))}`,
  );

  const concurrent: number[] = [];
  const perClient = 40;
  const concurrentTotal = await timed(async () => {
    await Promise.all(
      Array.from({ length: 32 }, async (_, c) => {
        for (let i = 0; i < perClient; i++) concurrent.push(await timed(() => evaluate(input(c * perClient + i))));
      }),
    );
  });
  concurrent.sort((a, b) => a - b);
  console.log(
    `${label}: 32 at once: ${(((32 * perClient) / concurrentTotal) * 1000).toFixed(0)} evaluations/s; p50 ${ms(percentile(concurrent, 50))}, p95 ${ms(percentile(concurrent, 95))}, p99 ${ms(percentile(concurrent, 99))}`,
  );

  const batch = Array.from({ length: 4096 }, (_, i) => input(i));
  const batches: number[] = [];
  for (let i = 0; i < 8; i++) batches.push(await timed(() => evaluate(batch)));
  batches.sort((a, b) => a - b);
  console.log(
    `${label}: batch of 4096: median ${ms(percentile(batches, 50))} (${((4096 / percentile(batches, 50)) * 1000).toFixed(0)} evaluations/s), best ${ms(batches[0]!)}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'fuzzbox-bench-'));
const postgres = await startPostgres('fuzzbox_bench');
try {
  const onPostgres = await serve({ port: 0, database: postgres.url });
  await measure('PostgreSQL (pg pool of 10)', onPostgres);
  await onPostgres.close();
  const onPGlite = await serve({ port: 0, dataDir: join(dir, 'data') });
  await measure('PGlite (files)', onPGlite);
  await onPGlite.close();
} finally {
  keepAlive.destroy();
  postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
