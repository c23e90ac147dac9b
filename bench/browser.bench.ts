// `npm run bench` (browser): in each engine (Chromium, Firefox ESR, WebKitGTK; test/browser/engines.ts),
// the built worker, and the same handler run in the page, in one run:
//   1. one evaluation's round trip through the worker vs calling handle() in the page (median, p95)
//   2. evaluations per second through the worker with 32 requests in flight
//   3. one batch of 4096 evaluations, every log stored, through the worker
//   4. one evaluation from another client of the worker (a frame: to the worker, a tab like any
//      other) while this page keeps the worker busy with batches of 4096, against the same alone
// Beside each, that engine's floor on this machine, with none of fuzzbox's code: a worker that
// answers at once, the same worker storing each request's body in IndexedDB before it answers
// (what any worker that keeps a log per answer pays), a postMessage round trip, and 4096 bare
// IndexedDB adds in one transaction.
// Targets: (issue 31) the worker's evaluation ≤ the empty worker's round trip + 1.5 ms, median,
// and 32 in flight ≥ 80 % of the empty worker's rate; (issue 4) the batch ≤ 300 ms; (issue 8) the
// load adds ≤ 50 ms to the other client's evaluation, median.
// `npx tsx bench/browser.bench.ts [chromium,firefox,webkit] [another-tab]` (after `npm run build`)
// runs some engines, or part 4 alone.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative } from 'node:path';
import { engines } from '../test/browser/engines.js';
import { bundleForPage, requireBuild, root, startStaticServer } from '../test/browser/harness.js';

requireBuild('dist/fuzzbox-sw.js', 'dist/client.js');

// The whole service as one ES module for the page, dependencies included.
const bundleDir = await bundleForPage('src/index.ts', 'fuzzbox.js');

/** `another-tab`: only part 4, the other client under load. */
const only = process.argv.includes('another-tab') ? 'another-tab' : undefined;

/** Every part's figures (the whole run). */
type Figures = Extract<Awaited<ReturnType<typeof benchmark>>, { hop: unknown }>;

async function benchmark(only: string | null) {
  const agent = {
    name: 'fan',
    inputs: { temperature: { cold: [0, 10, 20], warm: [10, 20, 30], hot: [20, 30, 40] } },
    outputs: { fan: { slow: [0, 25, 50], medium: [25, 50, 75], fast: [50, 75, 100] } },
    rules: ['temperature INCREASES fan'],
  };
  const single = 1_000;
  const inFlight = 32;
  const concurrentTotal = 3_200;
  const batchSize = 4096;
  const inputs = (i: number) => ({ temperature: (i * 7.3) % 40 });
  const json = { 'Content-Type': 'application/json' };

  type Send = (method: string, path: string, body?: unknown, key?: string) => Promise<Response>;
  const viaWorker: Send = (method, path, body, key) =>
    fetch(path, { method, headers: { ...json, ...(key ? { Authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
  const { createFuzzyService } = (await import('/bench/fuzzbox.js' as string)) as typeof import('../src/index.js');
  const inPage = createFuzzyService({ indexedDB, IDBKeyRange, dbName: 'bench-in-page' });
  const viaPage: Send = (method, path, body, key) =>
    inPage.handle(
      new Request(new URL(path, location.href), {
        method,
        headers: { ...json, ...(key ? { Authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      }),
    );

  async function setUp(send: Send) {
    const key = (await (await send('POST', '/account', {})).json()).apiKey as string;
    const id = (await (await send('POST', '/agent', agent, key)).json()).id as string;
    const evaluate = async (body: unknown) => {
      const response = await send('POST', `/agent/${id}`, body, key);
      if (response.status !== 200) throw new Error(`evaluation answered ${response.status}: ${await response.text()}`);
      return response.json();
    };
    for (let i = 0; i < 300; i++) await evaluate(inputs(i)); // warm-up: JIT, caches, database
    return evaluate;
  }

  async function roundTrips(call: (i: number) => Promise<unknown>, count = single) {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await call(i);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)]!, p95: times[Math.floor(times.length * 0.95)]! };
  }

  async function perSecond(call: (i: number) => Promise<unknown>) {
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < concurrentTotal) await call(next++);
      }),
    );
    return concurrentTotal / ((performance.now() - start) / 1000);
  }

  async function batches(evaluate: (body: unknown) => Promise<unknown>) {
    const times: number[] = [];
    for (let run = 0; run < 5; run++) {
      const batch = Array.from({ length: batchSize }, (_, i) => inputs(i + run));
      const start = performance.now();
      const outputs = (await evaluate(batch)) as unknown[];
      times.push(performance.now() - start);
      if (outputs.length !== batchSize) throw new Error(`the batch returned ${outputs.length} outputs`);
    }
    times.sort((a, b) => a - b);
    return { median: times[2]!, best: times[0]! };
  }

  /**
   * A frame controlled by /floor/worker.js, a worker that answers /floor/version at once, answers
   * /floor/log once it has stored the request's body in IndexedDB, and echoes messages.
   */
  async function floorWorker() {
    const registration = await navigator.serviceWorker.register('/floor/worker.js', { scope: '/floor/' });
    const worker = (registration.installing ?? registration.waiting ?? registration.active)!;
    while (worker.state !== 'activated') await new Promise((changed) => worker.addEventListener('statechange', changed, { once: true }));
    const frame = document.createElement('iframe');
    const loaded = new Promise((done) => frame.addEventListener('load', done, { once: true }));
    frame.src = '/floor/frame.html';
    document.body.append(frame);
    await loaded;
    const view = frame.contentWindow as Window & typeof globalThis;
    if (view.navigator.serviceWorker.controller === null) throw new Error('the floor worker does not control its frame');
    const echo = () =>
      new Promise((answered) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = answered;
        worker.postMessage('ping', [channel.port2]);
      });
    const logged = (i: number) =>
      view.fetch('/floor/log', { method: 'POST', headers: json, body: JSON.stringify(inputs(i)) }).then((response) => response.json());
    return { hop: () => view.fetch('/floor/version').then((response) => response.json()), logged, echo };
  }

  /** 4096 records shaped like evaluation logs, one IndexedDB add each, one strict transaction, no library. */
  async function bareAdds() {
    const db = await new Promise<IDBDatabase>((opened, failed) => {
      const request = indexedDB.open('bench-bare-indexeddb', 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore('evaluations', { keyPath: 'reqID' }).createIndex('[userID+agentID]', ['userID', 'agentID']);
      };
      request.onsuccess = () => opened(request.result);
      request.onerror = () => failed(request.error);
    });
    const id = 'V'.repeat(26);
    return batches(async (inputs) => {
      const createdAt = new Date().toISOString();
      await new Promise((committed, failed) => {
        const transaction = db.transaction('evaluations', 'readwrite', { durability: 'strict' });
        const store = transaction.objectStore('evaluations');
        for (const input of inputs as Array<Record<string, number>>) {
          store.add({ reqID: crypto.randomUUID(), userID: id, agentID: id, versionID: id, input, crisp: { fan: 50 }, createdAt });
        }
        transaction.oncomplete = committed;
        transaction.onerror = () => failed(transaction.error);
      });
      return inputs;
    });
  }

  /**
   * Another client's single evaluations, alone and while this page sends batches of 4096 two at a
   * time: a batch computes in slices between which the worker answers others (docs/REST.md, "Cost
   * of a request"), so the other client waits at most about a slice and a short write.
   */
  async function anotherTabUnderLoad(evaluateHere: (body: unknown) => Promise<unknown>) {
    const frame = document.createElement('iframe');
    const loaded = new Promise((done) => frame.addEventListener('load', done, { once: true }));
    frame.src = '/';
    document.body.append(frame);
    await loaded;
    const view = frame.contentWindow as Window & typeof globalThis;
    if (view.navigator.serviceWorker.controller === null) throw new Error('the other client is not controlled by the worker');
    const viaOtherClient: Send = (method, path, body, key) =>
      view.fetch(path, { method, headers: { ...json, ...(key ? { Authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
    const evaluateThere = await setUp(viaOtherClient);
    const alone = await roundTrips((i) => evaluateThere(inputs(i)), 200);
    let loading = true;
    let batchesDone = 0;
    const load = async () => {
      for (let run = 0; loading; run++) {
        await evaluateHere(Array.from({ length: batchSize }, (_, i) => inputs(i + run)));
        batchesDone++;
      }
    };
    const loaders = [load(), load()];
    await new Promise((settled) => setTimeout(settled, 300));
    const underLoad = await roundTrips((i) => evaluateThere(inputs(i)), 200);
    loading = false;
    await Promise.all(loaders);
    return { alone, underLoad, batchesDone };
  }

  const { registerFuzzyWorker } = (await import('/dist/client.js' as string)) as typeof import('../src/client/index.js');
  await registerFuzzyWorker('/fuzzbox-sw.js');
  const worker = await setUp(viaWorker);
  if (only === 'another-tab') return { anotherTab: await anotherTabUnderLoad(worker) };
  const inPageService = await setUp(viaPage);
  const floor = await floorWorker();
  // GET /version touches no storage: what Chromium's page → worker → page hop costs here.
  const hop = () => fetch('/version').then((response) => response.json());
  return {
    hop: await roundTrips(hop),
    hopPerSecond: await perSecond(hop),
    floorHop: await roundTrips(floor.hop),
    floorHopPerSecond: await perSecond(floor.hop),
    floorLogged: await roundTrips(floor.logged),
    floorLoggedPerSecond: await perSecond(floor.logged),
    echo: await roundTrips(floor.echo),
    echoPerSecond: await perSecond(floor.echo),
    workerTrip: await roundTrips((i) => worker(inputs(i))),
    pageTrip: await roundTrips((i) => inPageService(inputs(i))),
    workerPerSecond: await perSecond((i) => worker(inputs(i))),
    pagePerSecond: await perSecond((i) => inPageService(inputs(i))),
    workerBatch: await batches(worker),
    pageBatch: await batches(inPageService),
    bareBatch: await bareAdds(),
    anotherTab: await anotherTabUnderLoad(worker),
  };
}

// The page runs the benchmark by itself and POSTs its figures back: with no DevTools protocol
// attached (as playwright would), no request pays for being reported to a debugger.
writeFileSync(
  join(bundleDir, 'bench.html'),
  `<!doctype html><meta charset="utf-8">
<script type="importmap">{ "imports": {
  "workbox-window": "/vendor/workbox-window.mjs",
  "workbox-window/build/workbox-window.prod.mjs": "/vendor/workbox-window.mjs"
} }</script>
<script>window.__name = (target) => target; /* tsx keeps function names with this helper */</script>
<script type="module">
const benchmark = ${benchmark.toString()};
const query = new URLSearchParams(location.search);
const report = (figures) => fetch(query.get('report'), { method: 'POST', body: JSON.stringify(figures) });
benchmark(query.get('only')).then(report, (error) => report({ error: String(error?.stack ?? error) }));
</script>`,
);

// The floor: no fuzzbox code at all, just what Chromium charges for a worker hop.
mkdirSync(join(bundleDir, 'floor'));
writeFileSync(join(bundleDir, 'floor/frame.html'), '<!doctype html><meta charset="utf-8"><title>floor</title>');
writeFileSync(
  join(bundleDir, 'floor/worker.js'),
  `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
// /floor/log: the body read and added to IndexedDB (relaxed durability, as fuzzbox's logs) before
// the answer; requests that arrive during a commit share the next one, as fuzzbox's do
let database;
const opened = () => (database ??= new Promise((opened, failed) => {
  const request = indexedDB.open('floor', 1);
  request.onupgradeneeded = () => request.result.createObjectStore('logs', { autoIncrement: true });
  request.onsuccess = () => opened(request.result);
  request.onerror = () => failed(request.error);
}));
let waiting = [];
let writing = false;
async function commit() {
  writing = true;
  const db = await opened();
  while (waiting.length > 0) {
    const jobs = waiting;
    waiting = [];
    await new Promise((done) => {
      const transaction = db.transaction('logs', 'readwrite', { durability: 'relaxed' });
      for (const job of jobs) transaction.objectStore('logs').add(job.body);
      transaction.oncomplete = done;
      transaction.commit?.();
    });
    for (const job of jobs) job.stored();
  }
  writing = false;
}
async function stored(request) {
  const body = JSON.parse(await request.text());
  await new Promise((stored) => {
    waiting.push({ body, stored });
    if (!writing) void commit();
  });
  return new Response('{"fan":50}', { headers: { 'Content-Type': 'application/json' } });
}
self.addEventListener('fetch', (event) => {
  if (event.request.url.endsWith('/floor/version')) event.respondWith(new Response('{"version":"floor"}', { headers: { 'Content-Type': 'application/json' } }));
  if (event.request.url.endsWith('/floor/log')) event.respondWith(stored(event.request));
});
self.addEventListener('message', (event) => event.ports[0].postMessage(event.data));`,
);

const server = await startStaticServer({
  '/': 'test/browser/fixtures',
  '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js',
  '/dist/': 'dist',
  '/vendor/workbox-window.mjs': 'node_modules/workbox-window/build/workbox-window.prod.mjs',
  '/bench/': relative(root, bundleDir),
  '/floor/': relative(root, join(bundleDir, 'floor')),
});

async function pageReport(path: string): Promise<Figures | Pick<Figures, 'anotherTab'>> {
  for (const deadline = Date.now() + 600_000; Date.now() < deadline; await sleep(100)) {
    const report = server.posted.find((posted) => posted.path === path);
    if (!report) continue;
    const parsed = JSON.parse(report.body) as Figures | { error: string };
    if ('error' in parsed) throw new Error(`the benchmark page failed: ${parsed.error}`);
    return parsed;
  }
  throw new Error('the benchmark page reported nothing in 10 minutes');
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const trip = ({ median, p95 }: { median: number; p95: number }) => `median ${ms(median)}, p95 ${ms(p95)}`;
const rate = (value: number) => `${value.toFixed(0)}/s`;

function printAll(figures: Figures) {
  console.log(`one evaluation, fetch() → worker:        ${trip(figures.workerTrip)}`);
  console.log(`one evaluation, handle() in the page:    ${trip(figures.pageTrip)}`);
  console.log(`  the worker adds ${ms(figures.workerTrip.median - figures.pageTrip.median)} to the page's handle() at the median;`);
  console.log(`  ${ms(figures.workerTrip.median - figures.floorHop.median)} over the empty worker's round trip (target ≤ 1.5 ms)`);
  console.log(`  fuzzbox's worker, GET /version (no storage):               ${trip(figures.hop)}`);
  console.log(`  floor: a worker answering at once, no fuzzbox code:          ${trip(figures.floorHop)}`);
  console.log(`  floor: that worker storing each body in IndexedDB first:     ${trip(figures.floorLogged)}`);
  console.log(`  floor: postMessage round trip to that worker:                ${trip(figures.echo)}`);
  console.log(`  ${ms(figures.workerTrip.median - figures.floorLogged.median)} over the storing worker's round trip`);
  const share = (100 * figures.workerPerSecond) / figures.floorHopPerSecond;
  console.log(
    `32 in flight, fetch() → worker:          ${rate(figures.workerPerSecond)} evaluations, ${share.toFixed(0)} % of the empty worker's rate (target ≥ 80 %)`,
  );
  console.log(`32 in flight, handle() in the page:      ${rate(figures.pagePerSecond)} evaluations`);
  console.log(`  fuzzbox's worker, GET /version (no storage):               ${rate(figures.hopPerSecond)}`);
  console.log(`  floor: a worker answering at once, no fuzzbox code:          ${rate(figures.floorHopPerSecond)}`);
  console.log(`  floor: that worker storing each body in IndexedDB first:     ${rate(figures.floorLoggedPerSecond)}`);
  console.log(`  floor: postMessage round trips to that worker:               ${rate(figures.echoPerSecond)}`);
  console.log(`  ${((100 * figures.workerPerSecond) / figures.floorLoggedPerSecond).toFixed(0)} % of the storing worker's rate`);
  console.log(
    `batch of 4096 with logs, fetch() → worker: median of 5 ${ms(figures.workerBatch.median)}, best ${ms(figures.workerBatch.best)} (target ≤ 300 ms)`,
  );
  console.log(`batch of 4096 with logs, in the page:      median of 5 ${ms(figures.pageBatch.median)}, best ${ms(figures.pageBatch.best)}`);
  console.log(
    `  floor: 4096 log-shaped records, bare IndexedDB adds in one strict transaction: median of 5 ${ms(figures.bareBatch.median)}, best ${ms(figures.bareBatch.best)}`,
  );
}

/** The engines to run: the command line's (`chromium,firefox,webkit`), else every one installed. */
const chosen = process.argv.slice(2).find((arg) => /^[a-z,]+$/.test(arg) && arg !== 'another-tab');
const toRun = engines.filter((engine) => (chosen ? chosen.split(',').includes(engine.name) : true));

try {
  for (const engine of toRun) {
    const path = `/results/${engine.name}`;
    const browser = await engine.open(`${server.origin}/bench/bench.html?report=${encodeURIComponent(path)}${only ? `&only=${only}` : ''}`);
    try {
      const figures = await pageReport(path);
      console.log(`\n### ${engine.version()}, no automation attached; fan agent (3 sets per variable, 3 rules); every log stored in IndexedDB`);
      if (!only) printAll(figures as Figures);
      const { alone, underLoad, batchesDone } = figures.anotherTab;
      console.log(`another tab's one evaluation, alone:                     ${trip(alone)}`);
      console.log(`  while this tab sends batches of 4096 (${batchesDone} done): ${trip(underLoad)}`);
      console.log(`  the load adds ${ms(underLoad.median - alone.median)} at the median, ${ms(underLoad.p95 - alone.p95)} at p95 (target ≤ 50 ms)`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  rmSync(bundleDir, { recursive: true, force: true });
}
