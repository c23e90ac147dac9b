// Learning on autopilot against the alternatives, in the worlds of test/learn/arena.ts (their rule
// hidden from every player), same situations and noise for every player of a world and seed:
// the starting agent; fuzzbox on autopilot (evaluate + feedback only, through the real handler);
// fuzzbox driven by hand (?explore=0.15, then POST /optimize, five rounds); the best fixed answer in
// hindsight; UCB1 over answers per output in 6 buckets per input, tuned per world on other seeds,
// and configured once for every world (tuned on other seeds over all of them); the best answer per situation.
// Then the cost of one optimization over 100,000 logged evaluations.
import { compileAgent, evaluate } from '../src/engine/index.js';
import type { Inputs, Outputs } from '../src/engine/types.js';
import { compareAgents, optimizeAgent, seededRandom, situationAdjusted, type LoggedEvaluation } from '../src/learn/index.js';
import type { Interval } from '../src/learn/offpolicy.js';
import { exploreTruncated, WIDEST_SPREAD } from '../src/learn/policy.js';
import {
  autopilotPlayer,
  banditPlayer,
  bestFixedPlayer,
  oraclePlayer,
  play,
  staticPlayer,
  tuneBandit,
  tuneBanditForAll,
  worlds,
  type ArenaWorld,
  type Play,
} from '../test/learn/arena.js';

const EVALUATIONS = Number(process.env.AUTOPILOT_EVALUATIONS ?? 1000);
const SEEDS = Number(process.env.AUTOPILOT_SEEDS ?? 5);
/** a comma-separated list of world names to play (default: all) */
const WORLDS = process.env.AUTOPILOT_WORLDS?.split(',');

/** fuzzbox by hand: rounds of explored evaluations with feedback, each followed by POST /agent/:id/optimize. */
async function byHandPlayer(world: ArenaWorld, seed: number) {
  const { performance: _none, ...agent } = world.agent;
  const player = await autopilotPlayer({ ...world, agent: agent as ArenaWorld['agent'] }, seed);
  const round = EVALUATIONS / 5;
  let count = 0;
  let last = '';
  return {
    async answer(situation: Inputs): Promise<Outputs> {
      const { body, headers } = await player.call('POST', `agent/${player.agentID}?explore=0.15`, situation);
      last = headers.get('X-Evaluation-ID')!;
      return body;
    },
    async learn(_situation: Inputs, _answer: Outputs, outcome: number) {
      await player.call('POST', `evaluation/${last}/feedback`, { [world.metric]: outcome });
      if (++count % round === 0) await player.call('POST', `agent/${player.agentID}/optimize`, { metric: world.metric, goal: 'maximize' });
    },
    greedy: player.greedy,
    close: player.close,
  };
}

const rows: Array<{ world: string; results: Record<string, Play[]> }> = [];
const names = ['starting agent', 'autopilot', 'by hand', 'best fixed', 'UCB bandit', 'UCB, one configuration', 'best per situation'] as const;
const estimates: Array<{ world: string; offPolicy: Interval; trial: Interval | undefined; trueGain: number }> = [];
/** per world and seed: what autopilot says its adopted versions gained together (GET /agent/:id/autopilot's gain), and the truth */
const totals: Array<{ world: string; seed: number; estimate: Interval; trueGain: number }> = [];
// the bandit as a developer would deploy it, not knowing the world: one configuration, chosen over every world
const banditForAll = await tuneBanditForAll(worlds, EVALUATIONS, [101, 102, 103]);
console.log(`every world: UCB configured once as ${JSON.stringify(banditForAll)}`);
for (const world of worlds.filter(({ name }) => !WORLDS || WORLDS.includes(name))) {
  const results: Record<string, Play[]> = Object.fromEntries(names.map((name) => [name, []]));
  // the bandit at its best for this world: answers per output, bonus and final answer chosen on seeds never reported
  const bandit = await tuneBandit(world, EVALUATIONS, [101, 102, 103]);
  console.log(`${world.name}: UCB tuned to ${JSON.stringify(bandit)}`);
  for (let seed = 1; seed <= SEEDS; seed++) {
    results['starting agent']!.push(await play(world, staticPlayer(world), EVALUATIONS, seed));
    const auto = await autopilotPlayer(world, seed);
    results.autopilot!.push(await play(world, auto, EVALUATIONS, seed));
    // every adopted version's off-policy estimated gain against its true gain
    const { body: report } = await auto.call('GET', `agent/${auto.agentID}/performance`);
    const { body: state } = await auto.call('GET', `agent/${auto.agentID}/autopilot`);
    console.log(
      `autopilot's spread at the end (${world.name}, seed ${seed}): ${Object.entries(state.spread as Record<string, number>)
        .map(([output, share]) => `${output} ${share.toFixed(3)}`)
        .join(', ')}`,
    );
    // the expected metric of a version's plain answers on 500 situations, in the world as it was after `evaluations`
    const truth = async (id: string, evaluations: number) => {
      const { body } = await auto.call('GET', `version/${id}`);
      const compiled = compileAgent(body);
      const random = seededRandom(seed + 77);
      let sum = 0;
      for (let i = 0; i < 500; i++) {
        const situation = world.situation(random);
        sum += world.expected(situation, evaluate(compiled, situation).crisp, Math.min(1, evaluations / EVALUATIONS));
      }
      return sum / 500;
    };
    for (const trial of state.trials.filter((t: { outcome: string }) => t.outcome === 'adopted')) {
      const version = report.versions.find((v: { id: string }) => v.id === trial.versionID);
      const gain = version?.evidence?.offPolicy?.gain as Interval | undefined;
      if (gain === undefined) continue;
      // in the world as it was when the proposal was made: after evaluationsUsed evaluations (the window is never full here)
      const used = version.evidence.evaluationsUsed as number;
      estimates.push({
        world: world.name,
        offPolicy: gain,
        trial: trial.gain,
        trueGain: (await truth(trial.versionID, used)) - (await truth(trial.basedOn, used)),
      });
    }
    if (state.gain)
      totals.push({
        world: world.name,
        seed,
        estimate: state.gain.metrics[world.metric],
        trueGain: (await truth(state.gain.versionID, EVALUATIONS)) - (await truth(state.gain.since, EVALUATIONS)),
      });
    await auto.close();
    const hand = await byHandPlayer(world, seed);
    results['by hand']!.push(await play(world, hand, EVALUATIONS, seed));
    await hand.close();
    results['best fixed']!.push(await play(world, bestFixedPlayer(world, seed, EVALUATIONS), EVALUATIONS, seed));
    results['UCB bandit']!.push(await play(world, banditPlayer(world, bandit), EVALUATIONS, seed));
    results['UCB, one configuration']!.push(await play(world, banditPlayer(world, banditForAll), EVALUATIONS, seed));
    results['best per situation']!.push(await play(world, oraclePlayer(world), EVALUATIONS, seed));
  }
  rows.push({ world: world.name, results });
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
console.log(
  `${EVALUATIONS} evaluations, ${SEEDS} seeds. Each cell: mean metric while learning (cumulative) / mean expected metric of the final answers on 300 fresh situations`,
);
console.log(`| world | ${names.join(' | ')} |`);
console.log(`|---|${names.map(() => '---').join('|')}|`);
for (const { world, results } of rows) {
  console.log(
    `| ${world} | ${names.map((name) => `${mean(results[name]!.map((r) => r.cumulative)).toFixed(1)} / ${mean(results[name]!.map((r) => r.final)).toFixed(1)}`).join(' | ')} |`,
  );
}
console.log('\ntargets (issue 9, §3):');
for (const { world, results } of rows) {
  const start = results['starting agent']!;
  const auto = results.autopilot!;
  const bandit = results['UCB bandit']!;
  const banditOnce = results['UCB, one configuration']!;
  const best = results['best per situation']!;
  const perSeed = auto.map((a, i) => ({
    beatsBanditFinal: a.final > bandit[i]!.final,
    beatsBanditCumulative: a.cumulative > bandit[i]!.cumulative,
    beatsBanditOnceFinal: a.final > banditOnce[i]!.final,
    notBelowStatic: a.cumulative >= 0.98 * start[i]!.cumulative,
    gain: a.final / start[i]!.final - 1,
    gapClosed: (a.final - start[i]!.final) / (best[i]!.final - start[i]!.final),
  }));
  const count = (key: 'beatsBanditFinal' | 'beatsBanditCumulative' | 'beatsBanditOnceFinal' | 'notBelowStatic') => perSeed.filter((s) => s[key]).length;
  console.log(
    `${world.padEnd(12)} beats UCB (final answers) ${count('beatsBanditFinal')}/${SEEDS}, (while learning) ${count('beatsBanditCumulative')}/${SEEDS};` +
      ` beats UCB configured once (final answers) ${count('beatsBanditOnceFinal')}/${SEEDS};` +
      ` while learning ≥ 98% of the static agent ${count('notBelowStatic')}/${SEEDS};` +
      ` gain ≥ 25% ${perSeed.filter((s) => s.gain >= 0.25).length}/${SEEDS} (${perSeed.map((s) => `${(s.gain * 100).toFixed(0)}%`).join(' ')});` +
      ` gap to best per situation closed ≥ 60% ${perSeed.filter((s) => s.gapClosed >= 0.6).length}/${SEEDS} (${perSeed.map((s) => `${(s.gapClosed * 100).toFixed(0)}%`).join(' ')})`,
  );
}
const relative = (estimate: Interval | undefined, truth: number) =>
  estimate ? `${estimate.value.toFixed(2)} (${((estimate.value / truth - 1) * 100).toFixed(0)}%)` : 'none';
for (const { world, offPolicy, trial, trueGain } of estimates) {
  console.log(
    `adopted version (${world}): true gain ${trueGain.toFixed(2)}; off-policy estimate ${relative(offPolicy, trueGain)}; measured by its trial ${relative(trial, trueGain)}`,
  );
}
const within = (pick: (e: (typeof estimates)[number]) => Interval | undefined) =>
  estimates.filter((e) => Math.abs(pick(e)!.value / e.trueGain - 1) <= 0.3).length;
const covers = (pick: (e: (typeof estimates)[number]) => Interval | undefined) =>
  estimates.filter((e) => pick(e)!.low <= e.trueGain && e.trueGain <= pick(e)!.high).length;
const large = estimates.filter((e) => e.trueGain >= 3);
console.log(
  `estimated gain within ±30% of the true gain, of ${estimates.length} adopted versions: off-policy (at the proposal) ${within((e) => e.offPolicy)}, measured by the trial ${within((e) => e.trial)};` +
    ` its 95% interval covers the true gain: off-policy ${covers((e) => e.offPolicy)}, trial ${covers((e) => e.trial)};` +
    ` of the ${large.length} with a true gain ≥ 3, within ±30%: off-policy ${large.filter((e) => Math.abs(e.offPolicy.value / e.trueGain - 1) <= 0.3).length}, trial ${large.filter((e) => Math.abs(e.trial!.value / e.trueGain - 1) <= 0.3).length}`,
);
const totalWithin = totals.filter((t) => Math.abs(t.estimate.value / t.trueGain - 1) <= 0.3);
for (const { world, seed, estimate, trueGain } of totals) {
  console.log(
    `autopilot's gain (${world}, seed ${seed}): true ${trueGain.toFixed(2)}; estimated ${estimate.value.toFixed(2)} [${estimate.low.toFixed(2)}, ${estimate.high.toFixed(2)}] (${((estimate.value / trueGain - 1) * 100).toFixed(0)}%)`,
  );
}
console.log(
  `what autopilot gained, latest version against the one it started from (GET /agent/:id/autopilot's gain), of ${totals.length} runs: within ±30% of the true gain ${totalWithin.length}` +
    ` (${[...new Set(totals.map((t) => t.world))].map((world) => `${world} ${totalWithin.filter((t) => t.world === world).length}/${totals.filter((t) => t.world === world).length}`).join(', ')});` +
    ` its 95% interval covers the true gain ${totals.filter((t) => t.estimate.low <= t.trueGain && t.trueGain <= t.estimate.high).length}`,
);

// Cost: one proposal over 100,000 logged evaluations, in memory (autopilot reads its WINDOW of the newest).
const world = worlds[0]!;
const compiled = compileAgent(world.agent);
const random = seededRandom(7);
const log: LoggedEvaluation[] = Array.from({ length: 100_000 }, () => {
  const input = world.situation(random);
  const { crisp } = evaluate(compiled, input);
  const { returned, density } = exploreTruncated(crisp, compiled.outputs, WIDEST_SPREAD, random);
  return { input, crisp, returned, density, metric: world.expected(input, returned, 0) + world.noise(random) };
});
globalThis.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let peak = heapBefore;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
const started = performance.now();
const result = await optimizeAgent(world.agent, log, { goal: 'maximize', estimationPoints: 1000 });
const seconds = (performance.now() - started) / 1000;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().heapUsed);
console.log(
  `\noptimizeAgent over 100,000 logged evaluations (all of them as neighbours, 1,000 estimation points): ${seconds.toFixed(2)} s,` +
    ` heap growth ${((peak - heapBefore) / 2 ** 20).toFixed(0)} MB (the log itself, as objects: ${(heapBefore / 2 ** 20).toFixed(0)} MB in use before); ${result.status}`,
);

// Autopilot's background work over a full window (the newest 2,000 evaluations), as the service
// runs it: in all, and the longest slice between two yields (a request waits at most about that).
async function slices(work: (yieldControl: () => Promise<void>) => Promise<unknown>): Promise<string> {
  let last = performance.now();
  let longest = 0;
  const began = performance.now();
  await work(async () => {
    longest = Math.max(longest, performance.now() - last);
    await new Promise((resolve) => setTimeout(resolve, 0));
    last = performance.now();
  });
  longest = Math.max(longest, performance.now() - last);
  return `${(performance.now() - began).toFixed(0)} ms in all, the longest slice between yields ${longest.toFixed(0)} ms`;
}
{
  const window = log.slice(-2000);
  const proposal = (yieldControl: () => Promise<void>) =>
    optimizeAgent(world.agent, window, { goal: 'maximize', seed: 1, estimationPoints: 1000, sliceMs: 20, structure: true, halfLife: 500, yieldControl });
  console.log(`a proposal over 2,000 logged evaluations (autopilot's options: a table search, 1,000 estimation points): ${await slices(proposal)}`);
  const better = { ...world.agent, outputs: { price: { low: [0.6, 0.9, 1.2], medium: [1.2, 1.5, 1.8], high: [1.9, 2.2, 2.5] } } };
  console.log(
    `compareAgents over 2,000 logged evaluations (autopilot's gain): ${await slices((yieldControl) => compareAgents(world.agent, better, window, { yieldControl, sliceMs: 20 }))}`,
  );
  const trial = (yieldControl: () => Promise<void>) => situationAdjusted(log.slice(-2200, -200), log.slice(-200), world.agent, yieldControl);
  console.log(`a trial's values relative to the situation and the draw (2,000 before, 200 in it): ${await slices(trial)}`);
}
