// `npm run bench` (scale): flat costs with 1 k, 100 k and 1 M evaluations stored (bench/scale.ts),
// in Node on fake-indexeddb and in Chromium on real IndexedDB with a persistent profile (the
// default context keeps IndexedDB in memory, so durability's cost would not show). Prints one
// Markdown table for each. SCALE_NODE_SIZES / SCALE_BROWSER_SIZES (comma-separated) override the sizes.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { bundleForPage, chromiumArgs, chromiumPath, root, startStaticServer } from '../test/browser/harness.js';
import { measureAtScale, scaleTable, type ScaleRow } from './scale.js';

/** The figures mean little on a busy machine: every table says how busy it was. */
const load = () => `load average ${loadavg().map((value) => value.toFixed(1)).join(' ')}`;
const sizes = (variable: string, fallback: number[]) => process.env[variable]?.split(',').filter(Boolean).map(Number) ?? fallback;
// fake-indexeddb keeps everything in JavaScript objects: 1 M logs fit (about 1.5 GB) but take
// about 5 minutes to fill; Chromium about 6. SCALE_NODE_SIZES= (empty) skips Node.
const nodeSizes = sizes('SCALE_NODE_SIZES', [1_000, 100_000, 1_000_000]);
const browserSizes = sizes('SCALE_BROWSER_SIZES', [1_000, 100_000, 1_000_000]);

if (nodeSizes.length > 0) {
  console.log(`Node ${process.version}, fake-indexeddb; fan agent (1 input, 3 rules); median ms per request through handle()`);
  console.log(scaleTable(await measureAtScale({ indexedDB: new IDBFactory(), IDBKeyRange, sizes: nodeSizes, repeat: 100 })));
  console.log(`(${load()} at the end)`);
}

// The measurement as one ES module for the page, dependencies included.
const bundleDir = await bundleForPage('bench/scale.ts', 'scale.js');
writeFileSync(
  join(bundleDir, 'scale.html'),
  `<!doctype html><meta charset="utf-8">
<script type="module">
import { measureAtScale } from './scale.js';
const report = (path, body) => fetch(path, { method: 'POST', body: JSON.stringify(body) });
measureAtScale({ sizes: ${JSON.stringify(browserSizes)}, repeat: 100, estimate: () => navigator.storage.estimate(), progress: (message) => report('/progress', message) })
  .then((rows) => report('/results', rows), (error) => report('/results', { error: String(error?.stack ?? error) }));
</script>`,
);
const server = await startStaticServer({ '/': relative(root, bundleDir) });
const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-scale-profile-'));
const browser = spawn(chromiumPath(), [...chromiumArgs, '--headless', `--user-data-dir=${profile}`, `${server.origin}/scale.html`], { stdio: 'ignore' });
try {
  let rows: ScaleRow[] | undefined;
  for (let seen = 0, deadline = Date.now() + 60 * 60_000; !rows && Date.now() < deadline; await sleep(500)) {
    for (const { body } of server.posted.slice(seen).filter(({ path }) => path === '/progress')) console.error(`  chromium: ${JSON.parse(body)}`);
    seen = server.posted.length;
    const report = server.posted.find(({ path }) => path === '/results');
    if (!report) continue;
    const parsed = JSON.parse(report.body) as ScaleRow[] | { error: string };
    if ('error' in parsed) throw new Error(`the benchmark page failed: ${parsed.error}`);
    rows = parsed;
  }
  if (!rows) throw new Error('the benchmark page reported nothing in an hour');
  const version = execFileSync(chromiumPath(), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  console.log(`\n${version}, persistent profile, IndexedDB in the page (the worker hop adds a constant: bench/browser.bench.ts); bytes from navigator.storage.estimate()`);
  console.log(scaleTable(rows));
  console.log(`(${load()} at the end)`);
} finally {
  const exited = once(browser, 'exit');
  browser.kill();
  await exited;
  await server.close();
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
