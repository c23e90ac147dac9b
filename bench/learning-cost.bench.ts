// The cost of learning from a large log (issue 9 §4; targets: over 100,000 logged evaluations ≤ 3 s
// and ≤ 64 MB of heap; over 1,000,000 it completes): POST /agent/:id/optimize and one autopilot
// proposal, in Node, on fake-indexeddb (Dexie) and on PGlite, each store and size in a fresh
// process started with --expose-gc. Every evaluation carries autopilot's exploration and density
// and feedback on the metric (the heaviest case: every log is joined). The store is filled
// directly with the records the service itself writes (as bench/scale.ts does), then both
// operations go through the service as a request would.
//
// Time is one run; memory, a second run sampled every 25 ms after a full collection (what the
// operation holds, not garbage not yet collected): the JS heap (heapUsed) and typed arrays
// (arrayBuffers) above what was in use before. PGlite's own memory is a WebAssembly buffer, not
// in the JS heap; if it grows, that shows in typed arrays.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const sizes = (process.env.LEARNING_COST_SIZES ?? '100000,1000000').split(',').map(Number);
const stores = (process.env.LEARNING_COST_STORES ?? 'dexie,pglite').split(',');
const [, , role, store, size] = process.argv;

if (role === 'child') {
  const { measure } = await import('./learning-cost.js');
  console.log(JSON.stringify(await measure(store as 'dexie' | 'pglite', Number(size))));
} else {
  const file = fileURLToPath(import.meta.url);
  console.log('Learning over a large log: time, and the most memory it holds above what was in use before (sampled every 25 ms after a full collection)');
  console.log('| store | logged | fill | POST /optimize | its heap / typed arrays | autopilot proposal | its heap / typed arrays | rows read | proposed |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const backend of stores) {
    for (const count of sizes) {
      // a process per store and size: one run's garbage and JIT state never colour another's figures
      const output = execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', file, 'child', backend, String(count)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const row = JSON.parse(output.trim().split('\n').at(-1)!);
      const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
      const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
      console.log(
        `| ${backend} | ${count.toLocaleString('en-US')} | ${s(row.fillMs)} | ${s(row.optimize.ms)} | ${mb(row.optimize.heap)} / ${mb(row.optimize.arrays)} |` +
          ` ${s(row.propose.ms)} | ${mb(row.propose.heap)} / ${mb(row.propose.arrays)} | ${row.optimize.used.toLocaleString('en-US')} | ${row.propose.proposed ? 'yes' : 'no'} |`,
      );
    }
  }
  await sampleAccuracy();
}

/**
 * What reading only the newest N costs: the proposal POST /optimize makes from the newest N of
 * 100,000 logged evaluations against the one from all of them, judged by the world's true
 * expected profit (the rule the optimizer never sees) over 2,000 fixed situations.
 */
async function sampleAccuracy() {
  const { agent, batches, profit } = await import('./learning-cost.js');
  const { compileAgent, evaluate } = await import('../src/engine/index.js');
  const { optimizeAgent } = await import('../src/learn/index.js');
  const log = [...batches(100_000, { userID: 'U', agentID: 'A', versionID: 'V' })].flatMap(({ logs, feedback }) =>
    logs.map(({ input, crisp, returned, density }, i) => ({ input, crisp, returned, density, metric: feedback[i]!.data.profit! })),
  );
  const situations = Array.from({ length: 2000 }, (_, i) => ({ temperature: 10 + (30 * (i + 0.5)) / 2000 }));
  const trueProfit = (definition: Parameters<typeof compileAgent>[0]) => {
    const compiled = compileAgent(definition);
    return situations.reduce((sum, input) => sum + profit(input.temperature, evaluate(compiled, input).crisp.price!), 0) / situations.length;
  };
  const start = trueProfit(agent);
  console.log(`\nWhat the newest N of 100,000 logged evaluations cost in accuracy (in memory; true mean profit of the starting agent ${start.toFixed(2)})`);
  console.log('| learnt from | time | estimated before → after | true after | true gain | share of the gain from all |');
  console.log('|---|---|---|---|---|---|');
  let fromAll = NaN;
  for (const newest of [100_000, 20_000, 5_000, 2_000]) {
    const began = performance.now();
    const result = await optimizeAgent(agent, log.slice(-newest), { goal: 'maximize', seed: 1 });
    const seconds = (performance.now() - began) / 1000;
    if (result.status !== 'optimized') throw new Error(result.message);
    const after = trueProfit(result.definition);
    if (newest === 100_000) fromAll = after - start;
    console.log(
      `| newest ${newest.toLocaleString('en-US')} | ${seconds.toFixed(2)} s | ${result.before.toFixed(2)} → ${result.after.toFixed(2)} | ${after.toFixed(2)} |` +
        ` ${(after - start).toFixed(2)} | ${(((after - start) / fromAll) * 100).toFixed(0)}% |`,
    );
  }
}
