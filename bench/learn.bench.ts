// Time to optimize an agent over 1,000 and 10,000 logged evaluations (target: 10,000 in under 5 s),
// first with optimizeAgent on an in-memory log, then through POST /agent/:id/optimize on
// fake-indexeddb (reading the log and its feedback included). The logs come from the simulated
// worlds of the tests: explored evaluations (noise 0.15 of the output range) with their outcomes.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createFuzzyService } from '../src/index.js';
import { optimizeAgent, seededRandom, type LoggedEvaluation } from '../src/learn/index.js';
import { explorePlaying, irrigation, lemonade, type World } from '../test/learn/worlds.js';

const sizes = [1_000, 10_000];
const runs = 3;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

console.log(`optimizeAgent, in memory (median of ${runs} runs; progress = onProgress calls)`);
for (const world of [lemonade, irrigation]) {
  for (const size of sizes) {
    const log: LoggedEvaluation[] = explorePlaying(world, world.agent, size, 0.15, seededRandom(size));
    const times: number[] = [];
    let calls = 0;
    let last = { done: 0, total: 0 };
    let estimate = '';
    for (let run = 0; run < runs; run++) {
      calls = 0;
      const start = performance.now();
      const result = await optimizeAgent(world.agent, log, {
        goal: world.goal,
        onProgress: (progress) => {
          calls++;
          last = progress;
        },
      });
      times.push(performance.now() - start);
      if (result.status !== 'optimized') throw new Error(result.message);
      estimate = `${world.metric} ${result.before.toFixed(2)} → ${result.after.toFixed(2)}, ${result.changes.length} numbers moved`;
    }
    console.log(
      `${world.name.padEnd(15)} ${size.toLocaleString('en-US').padStart(6)} evaluations: ${seconds(median(times))}` +
        ` (fastest ${seconds(Math.min(...times))}), progress ${calls}× up to ${last.done}/${last.total}; ${estimate}`,
    );
  }
}

/** Logs `size` explored evaluations of `world` with feedback through handle(), then times the optimization. */
async function throughService(world: World, size: number): Promise<{ ms: number; progress: number; used: number }> {
  let progress = 0;
  const service = createFuzzyService({
    indexedDB: new IDBFactory(),
    IDBKeyRange,
    random: seededRandom(7),
    onOptimizeProgress: () => void progress++,
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await service.handle(
      new Request(`http://bench.test/${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return { body: await response.json(), ids: response.headers.get('X-Evaluation-ID') };
  };
  const { apiKey: key } = await service.createAccount('bench');
  const { body: agent } = await call('POST', 'agent', key, { name: world.name, ...world.agent });
  const random = seededRandom(size);
  for (let offset = 0; offset < size; offset += 4096) {
    const situations = Array.from({ length: Math.min(4096, size - offset) }, () => world.situation(random));
    const { body: answers, ids } = await call('POST', `agent/${agent.id}?explore=0.15`, key, situations);
    const reqIDs = ids!.split(',');
    for (let i = 0; i < reqIDs.length; i += 256) {
      await Promise.all(
        reqIDs
          .slice(i, i + 256)
          .map((reqID, j) => call('POST', `evaluation/${reqID}/feedback`, key, { [world.metric]: world.outcome(situations[i + j]!, answers[i + j], random) })),
      );
    }
  }
  const start = performance.now();
  const { body: result } = await call('POST', `agent/${agent.id}/optimize`, key, { metric: world.metric, goal: world.goal, dryRun: true });
  const ms = performance.now() - start;
  await service.close();
  return { ms, progress, used: result.evaluationsUsed };
}

console.log('\nPOST /agent/:id/optimize through handle(), fake-indexeddb (one run; reading log and feedback included)');
for (const size of sizes) {
  const { ms, progress, used } = await throughService(lemonade, size);
  console.log(`${lemonade.name.padEnd(15)} ${used.toLocaleString('en-US').padStart(6)} evaluations: ${seconds(ms)}, onOptimizeProgress ${progress}×`);
}
