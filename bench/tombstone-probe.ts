// Another client's latency while one pushes many tombstones to the default server (PGlite):
// `node --import tsx bench/tombstone-probe.ts [lines]`. Prints the push's time and the probe's
// worst and median latency (GET /agent of another account, every 5 ms meanwhile).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../src/node/index.js';

const lines = Number(process.argv[2] ?? 10_000);
const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-tombstones-'));
const server = await serve({ port: 0, dataDir });
try {
  const signup = async () => ((await (await fetch(`${server.url}account`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json()) as { apiKey: string }).apiKey;
  const [pusher, prober] = [await signup(), await signup()];
  const now = new Date().toISOString();
  const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: now });
  const body = [header, ...Array.from({ length: lines }, (_, i) => JSON.stringify({ kind: 'deletion', id: `T${String(i).padStart(25, '0')}`, deletedAt: now }))].join('\n');
  const latencies: number[] = [];
  let pushing = true;
  const probe = (async () => {
    while (pushing) {
      const started = performance.now();
      await (await fetch(`${server.url}agent`, { headers: { Authorization: `Bearer ${prober}` } })).text();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const started = performance.now();
  const response = await fetch(`${server.url}sync/push`, { method: 'POST', headers: { Authorization: `Bearer ${pusher}`, 'Content-Type': 'application/x-ndjson' }, body });
  const answer = await response.text();
  const pushMs = performance.now() - started;
  pushing = false;
  await probe;
  latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({ lines, status: response.status, answer: answer.slice(0, 120), pushMs: Math.round(pushMs), probes: latencies.length, probeMaxMs: Math.round(latencies.at(-1)!), probeMedianMs: Math.round(latencies[latencies.length >> 1]!) }));
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
