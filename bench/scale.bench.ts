// `npm run bench` (scale): flat costs with 1 k, 100 k and 1 M evaluations stored (bench/scale.ts),
// in Node on fake-indexeddb and in Chromium on real IndexedDB with a persistent profile (the
// default context keeps IndexedDB in memory, so durability's cost would not show). Every size is
// filled first, the storage left to settle, then the sizes are measured in interleaved blocks of
// rounds (after a warm-up block each), so the machine's load weighs on all of them alike and the
// last column, the largest size over the smallest, is measured in one state. Prints one Markdown
// table for each, and one for the PostgreSQL store on PGlite files. SCALE_NODE_SIZES /
// SCALE_PGLITE_SIZES / SCALE_BROWSER_SIZES (comma-separated; empty skips) and
// SCALE_ROUNDS override the defaults.
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { chromium, type Page } from 'playwright-core';
import { bundleForPage, chromiumArgs, chromiumPath } from '../test/browser/harness.js';
import { pgliteBackend } from './scale-postgres.js';
import { OPERATIONS, openScaleStore, scaleTable, type Samples, type ScaleResult, type ScaleStore } from './scale.js';

// fake-indexeddb keeps everything in JavaScript objects: 1.1 M logs and as many control records
// need more than Node's default heap. Run again with a larger one.
if (getHeapStatistics().heap_size_limit < 7 * 2 ** 30) {
  const run = spawnSync(process.execPath, [...process.execArgv, '--max-old-space-size=8192', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

/** The figures mean little on a busy machine: every table says how busy it was. */
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`;
const sizes = (variable: string, fallback: number[]) => process.env[variable]?.split(',').filter(Boolean).map(Number) ?? fallback;
const nodeSizes = sizes('SCALE_NODE_SIZES', [1_000, 100_000, 1_000_000]);
const pgliteSizes = sizes('SCALE_PGLITE_SIZES', [1_000, 100_000, 1_000_000]);
const browserSizes = sizes('SCALE_BROWSER_SIZES', [1_000, 100_000, 1_000_000]);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 200);
/** Rounds per block: each size runs a block in turn. */
const BLOCK = 10;

/** What measures one size: a store in this process, or one in a page. */
interface Subject {
  size: number;
  fill(): Promise<number>;
  fillControl(): Promise<void>;
  measure(rounds: number): Promise<Samples>;
  bytesPerEvaluation(): Promise<number | null>;
}

/** Fills every subject, waits for `settled`, then measures them in turns of BLOCK rounds, starting with a different one each turn. */
async function measureAll(subjects: Subject[], settled: () => Promise<void>, label: string): Promise<ScaleResult[]> {
  const fills: number[] = [];
  for (const subject of subjects) {
    fills.push(await subject.fill());
    console.error(`  ${label}: ${subject.size} stored in ${fills.at(-1)!.toFixed(0)} s (${load()})`);
  }
  await settled();
  for (const subject of subjects) await subject.fillControl();
  await settled();
  for (const subject of subjects) await subject.measure(BLOCK); // warm-up, not counted
  const samples = subjects.map(() => Object.fromEntries(OPERATIONS.map((name) => [name, [] as number[]])) as Samples);
  for (let block = 0; block < Math.ceil(ROUNDS / BLOCK); block++) {
    for (let turn = 0; turn < subjects.length; turn++) {
      const index = (block + turn) % subjects.length;
      const measured = await subjects[index]!.measure(BLOCK);
      for (const name of OPERATIONS) samples[index]![name].push(...measured[name]);
    }
  }
  return Promise.all(
    subjects.map(async (subject, index) => ({
      size: subject.size,
      fillSeconds: fills[index]!,
      samples: samples[index]!,
      bytesPerEvaluation: await subject.bytesPerEvaluation(),
    })),
  );
}

if (nodeSizes.length > 0) {
  const stores: ScaleStore[] = [];
  for (const size of nodeSizes) stores.push(await openScaleStore({ indexedDB: new IDBFactory(), IDBKeyRange, size }));
  const results = await measureAll(stores, () => sleep(1000), 'node');
  console.log(`Node ${process.version}, fake-indexeddb; fan agent (1 input, 3 rules); median ms per request through handle(), ${ROUNDS} rounds interleaved`);
  console.log(scaleTable(results));
  console.log(`(${load()} at the end)`);
  for (const store of stores) await store.close();
}

if (pgliteSizes.length > 0) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-scale-pglite-'));
  const stores: ScaleStore[] = [];
  try {
    for (const size of pgliteSizes) stores.push(await openScaleStore({ size, backend: () => pgliteBackend(join(dataDir, String(size))) }));
    const results = await measureAll(stores, () => sleep(1000), 'pglite');
    console.log(
      `\nThe PostgreSQL store on PGlite files (what \`fuzzbox serve\` runs on without a server); control: a plain table; ${ROUNDS} rounds interleaved`,
    );
    console.log(scaleTable(results));
    console.log(`(${load()} at the end)`);
  } finally {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (browserSizes.length > 0) {
  // The measurement as one ES module for the page, dependencies included; served cross-origin
  // isolated, so performance.now() is precise to 5 µs rather than 100.
  const bundleDir = await bundleForPage('bench/scale.ts', 'scale.js');
  writeFileSync(join(bundleDir, 'scale.html'), '<!doctype html><meta charset="utf-8"><title>scale</title>');
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    const file = join(bundleDir, request.url === '/scale.js' ? 'scale.js' : 'scale.html');
    response
      .writeHead(200, {
        'Content-Type': file.endsWith('.js') ? 'text/javascript' : 'text/html',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      })
      .end(readFileSync(file));
  };
  // one server, hence one origin, per size: Chromium keeps one LevelDB per origin
  const servers = browserSizes.map(() => createServer(serve));
  for (const server of servers) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-scale-profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), headless: true, args: chromiumArgs });
  try {
    const subjects: Subject[] = [];
    for (const [index, size] of browserSizes.entries()) {
      const page: Page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(servers[index]!.address() as AddressInfo).port}/scale.html`);
      if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the benchmark page is not cross-origin isolated');
      await page.evaluate(async (size) => {
        const module = '/scale.js'; // the bundle, loaded by URL: not a path TypeScript resolves
        const { openScaleStore } = await import(module);
        (globalThis as any).scale = await openScaleStore({ size, estimate: navigator.storage.estimate.bind(navigator.storage) });
      }, size);
      subjects.push({
        size,
        fill: () => page.evaluate(() => (globalThis as any).scale.fill()),
        fillControl: () => page.evaluate(() => (globalThis as any).scale.fillControl()),
        measure: (rounds) => page.evaluate((rounds) => (globalThis as any).scale.measure(rounds), rounds),
        bytesPerEvaluation: () => page.evaluate(() => (globalThis as any).scale.bytesPerEvaluation()),
      });
    }
    const results = await measureAll(subjects, () => leveldbSettled(join(profile, 'Default', 'IndexedDB')), 'chromium');
    const version = spawnSync(chromiumPath(), ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(
      `\n${version}, persistent profile, IndexedDB in the page (the worker hop adds a constant: bench/browser.bench.ts); ${ROUNDS} rounds interleaved; bytes from navigator.storage.estimate()`,
    );
    console.log(scaleTable(results));
    console.log(`(${load()} at the end)`);
  } finally {
    await context.close();
    for (const server of servers) server.close();
    rmSync(bundleDir, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Waits until no LevelDB under `dir` has logged anything (a compaction, a flush) for 20 s, at most
 * 5 minutes: what is measured is the steady state, not the bulk fill's compactions.
 */
async function leveldbSettled(dir: string): Promise<void> {
  const started = Date.now();
  const lastChange = () => Math.max(...readdirSync(dir).map((name) => statSync(join(dir, name, 'LOG'), { throwIfNoEntry: false })?.mtimeMs ?? 0));
  while (Date.now() - lastChange() < 20_000 && Date.now() - started < 5 * 60_000) await sleep(1000);
  console.error(`  chromium: LevelDB settled after ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
