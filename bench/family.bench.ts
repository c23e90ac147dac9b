// Autopilot on worlds nobody chose (test/learn/family.ts): FAMILY_WORLDS worlds (default 40) drawn
// from a first seed picked now and printed (FAMILY_SEED=… repeats a run), 10 days of 120
// evaluations each, played by: the starting agent; fuzzbox on autopilot (evaluate + feedback only,
// through the real handler); the best fixed answer in hindsight; UCB1 over answers × buckets of the
// inputs; LinUCB over answers × quadratic features of the situation (both configured once for the
// whole family, on other worlds); the best answer per situation. Scored on what is served,
// exploration and trials included: the last two days, and all ten. Reported as distributions over
// the worlds, never as means.
import {
  autopilotPlayer,
  banditPlayer,
  bestFixedPlayer,
  linearBanditPlayer,
  oraclePlayer,
  play,
  servedParts,
  staticPlayer,
  type ArenaWorld,
  type Play,
  type Player,
} from '../test/learn/arena.js';
import { FAMILY_DAY, randomWorlds, type FamilyWorld } from '../test/learn/family.js';

const COUNT = Number(process.env.FAMILY_WORLDS ?? 40);
const FIRST = Number(process.env.FAMILY_SEED ?? 1 + Math.floor(Math.random() * 1_000_000));
const DAYS = 10;
const EVALUATIONS = DAYS * FAMILY_DAY;
const RUN_SEED = 1;
/** worlds the bandits' one configuration is chosen on (other seeds than those reported) */
const TUNING = Number(process.env.FAMILY_TUNING_WORLDS ?? 8);

const sum = (values: ArrayLike<number>, from = 0, to = values.length) => {
  let total = 0;
  for (let i = from; i < to; i++) total += values[i]!;
  return total;
};
const lastTwoDays = (result: Play) => sum(result.served, EVALUATIONS - 2 * FAMILY_DAY) / 2;
const allDays = (result: Play) => sum(result.served) / DAYS;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  return sorted[below]! + (sorted[Math.min(below + 1, sorted.length - 1)]! - sorted[below]!) * (at - below);
};
const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(0)}%`;

/** answers per output and slices per input so that a bandit's arms stay within what 1,200 evaluations can try */
const levelsFor = (world: ArenaWorld) => (Object.keys(world.agent.outputs).length > 1 ? 5 : 10);
const bucketsFor = (world: ArenaWorld) => [6, 4, 3, 2][Object.keys(world.agent.inputs).length - 1]!;
const ucb = (c: number) => (world: ArenaWorld) => banditPlayer(world, { levels: levelsFor(world), buckets: bucketsFor(world), c, greedy: 'mean' });
const linUCB = (alpha: number) => (world: ArenaWorld) => linearBanditPlayer(world, { levels: levelsFor(world), alpha });

/**
 * One configuration for the whole family, as a developer would deploy a bandit without knowing the
 * world: of `choices`, the one whose last two days close the largest share of each tuning world's
 * gap from the starting agent to the best answer per situation, summed.
 */
async function configureOnce<S>(worlds: readonly FamilyWorld[], choices: readonly S[], player: (settings: S) => (world: ArenaWorld) => Player): Promise<S> {
  const gaps = [];
  for (const world of worlds) {
    gaps.push({
      start: lastTwoDays(await play(world, staticPlayer(world), EVALUATIONS, RUN_SEED)),
      best: lastTwoDays(await play(world, oraclePlayer(world), EVALUATIONS, RUN_SEED)),
    });
  }
  let chosen: S = choices[0]!;
  let chosenShare = -Infinity;
  for (const settings of choices) {
    let share = 0;
    for (const [w, world] of worlds.entries())
      share += (lastTwoDays(await play(world, player(settings)(world), EVALUATIONS, RUN_SEED)) - gaps[w]!.start) / (gaps[w]!.best - gaps[w]!.start);
    if (share > chosenShare) [chosen, chosenShare] = [settings, share];
  }
  return chosen;
}

console.log(`worlds: ${COUNT} plausible ones from seed ${FIRST} on (FAMILY_SEED=${FIRST} repeats them); ${DAYS} days of ${FAMILY_DAY} evaluations`);
const tuningWorlds = randomWorlds(FIRST + 10_000_000, TUNING);
const c = await configureOnce(tuningWorlds, [0.1, 0.25, 0.5, 1], ucb);
const alpha = await configureOnce(tuningWorlds, [0.5, 1, 2, 4], linUCB);
console.log(`configured once on ${TUNING} other worlds (seeds from ${tuningWorlds[0]!.seed}): UCB c = ${c}, LinUCB alpha = ${alpha}`);

const names = ['starting agent', 'autopilot', 'best fixed', 'UCB bandit', 'LinUCB', 'best per situation'] as const;
const rows: Array<{ world: FamilyWorld; results: Record<string, Play>; ms: number }> = [];
for (const world of randomWorlds(FIRST, COUNT)) {
  const results: Record<string, Play> = {};
  results['starting agent'] = await play(world, staticPlayer(world), EVALUATIONS, RUN_SEED);
  const start = performance.now();
  const auto = await autopilotPlayer(world, RUN_SEED);
  results.autopilot = await play(world, auto, EVALUATIONS, RUN_SEED);
  const ms = performance.now() - start;
  const { parts } = await servedParts(world, auto, RUN_SEED, EVALUATIONS, FAMILY_DAY);
  await auto.close();
  results['best fixed'] = await play(world, bestFixedPlayer(world, RUN_SEED, EVALUATIONS), EVALUATIONS, RUN_SEED);
  results['UCB bandit'] = await play(world, ucb(c)(world), EVALUATIONS, RUN_SEED);
  results.LinUCB = await play(world, linUCB(alpha)(world), EVALUATIONS, RUN_SEED);
  results['best per situation'] = await play(world, oraclePlayer(world), EVALUATIONS, RUN_SEED);
  rows.push({ world, results, ms });
  const start2 = lastTwoDays(results['starting agent']);
  console.log(
    `${world.name.padEnd(14)} ${JSON.stringify(world.traits)}  last two days against the start: ` +
      names
        .slice(1)
        .map((name) => `${name} ${percent(lastTwoDays(results[name]!) / Math.abs(start2) - Math.sign(start2))}`)
        .join(', ') +
      `; autopilot over all ten days ${percent(allDays(results.autopilot) / Math.abs(allDays(results['starting agent'])) - Math.sign(allDays(results['starting agent'])))}` +
      `; autopilot's last two days against the start, per day: versions ${((parts.versions[DAYS - 1]! + parts.versions[DAYS - 2]!) / 2).toPrecision(3)}, ` +
      `trials ${((parts.trials[DAYS - 1]! + parts.trials[DAYS - 2]!) / 2).toPrecision(3)}, draws ${((parts.exploration[DAYS - 1]! + parts.exploration[DAYS - 2]!) / 2).toPrecision(3)} (${(ms / 1000).toFixed(0)} s)`,
  );
}

const gain = (row: (typeof rows)[number], name: string, score: (result: Play) => number) => {
  const start = score(row.results['starting agent']!);
  return (score(row.results[name]!) - start) / Math.abs(start);
};
console.log(`\nover ${rows.length} worlds, gain over the starting agent (what was served; median, 10th percentile, worst):`);
for (const name of names.slice(1)) {
  const last = rows.map((row) => gain(row, name, lastTwoDays));
  const all = rows.map((row) => gain(row, name, allDays));
  console.log(
    `${name.padEnd(20)} last two days ${percent(quantile(last, 0.5))}, p10 ${percent(quantile(last, 0.1))}, worst ${percent(Math.min(...last))}; ` +
      `all ten days ${percent(quantile(all, 0.5))}, p10 ${percent(quantile(all, 0.1))}, worst ${percent(Math.min(...all))}; ` +
      `more than 2% below the start over all ten days in ${all.filter((g) => g < -0.02).length}`,
  );
}
for (const baseline of ['starting agent', 'best fixed', 'UCB bandit', 'LinUCB', 'best per situation']) {
  const ahead = (score: (result: Play) => number) => rows.filter((row) => score(row.results.autopilot!) > score(row.results[baseline]!)).length;
  console.log(
    `autopilot ahead of ${baseline.padEnd(18)} in ${ahead(lastTwoDays)} of ${rows.length} worlds over the last two days, ${ahead(allDays)} over all ten`,
  );
}
console.log(
  `autopilot's run: median ${(
    quantile(
      rows.map((row) => row.ms),
      0.5,
    ) / 1000
  ).toFixed(0)} s for ${EVALUATIONS} evaluations`,
);
