// The lemonade stand of fuzzy.ai's published app (test/learn/lemonade.ts: both agents and the
// protocol as published), 12 days of 100 buyers, played by: the seller as created; fuzzbox on
// autopilot (evaluate + feedback only, through the real handler); the best fixed price in
// hindsight; UCB1 over 19 prices × weather buckets and LinUCB over prices × quadratic features of
// the situation, both tuned on other seeds for what they serve in the last two days; the best
// price for each buyer. Scored on what is served, exploration and trials included. The seeds are
// picked at run time and printed (LEMONADE_SEED=… repeats a run; the bandits are tuned on seeds 101–103).
// Then where autopilot's gap goes (docs/LEARNING.md, "The lemonade stand"), and how long requests
// wait behind its background work when the app does not wait for it.
import { seededRandom } from '../src/learn/random.js';
import {
  autopilotPlayer,
  banditPlayer,
  banditSettings,
  bestFixedPlayer,
  linearBanditPlayer,
  oraclePlayer,
  play,
  situationsOf,
  staticPlayer,
  tuneBandit,
  tuneLinearBandit,
  servedParts,
  type AutopilotPlayer,
  type ServedParts,
  type Play,
  type Score,
} from '../test/learn/arena.js';
import { BUYERS_PER_DAY, lemonadeStand as world } from '../test/learn/lemonade.js';

const DAYS = Number(process.env.LEMONADE_DAYS ?? 12);
const SEEDS = Number(process.env.LEMONADE_SEEDS ?? 5);
/** the first seed played, picked now and printed (LEMONADE_SEED=… repeats a run), so that no fixed list of seeds is developed against */
const FIRST = Number(process.env.LEMONADE_SEED ?? 1000 + Math.floor(Math.random() * 1_000_000));
const seeds = Array.from({ length: SEEDS }, (_, i) => FIRST + i);
const EVALUATIONS = DAYS * BUYERS_PER_DAY;
const sum = (values: ArrayLike<number>, from = 0, to = values.length) => {
  let total = 0;
  for (let i = from; i < to; i++) total += values[i]!;
  return total;
};
/** profit per day over the last two days */
const lastTwoDays: Score = (result) => sum(result.served, EVALUATIONS - 2 * BUYERS_PER_DAY) / 2;
const perDay = (served: ArrayLike<number>) => Array.from({ length: DAYS }, (_, d) => sum(served, d * BUYERS_PER_DAY, (d + 1) * BUYERS_PER_DAY));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};

const tuning = [101, 102, 103];
// the bandit: 19 prices × 5 temperature × 2 sunny buckets (numBuyers, mostly far above the seller's 0..20, ignored), or with 6 buckets of each input
const bucketChoices = [{ temperature: 5, sunny: 2 }, 6];
const ucb = await tuneBandit(
  world,
  EVALUATIONS,
  tuning,
  lastTwoDays,
  banditSettings.filter(({ levels }) => levels === 10).flatMap((settings) => bucketChoices.map((buckets) => ({ ...settings, levels: 19, buckets }))),
);
const linear = await tuneLinearBandit(world, EVALUATIONS, tuning, lastTwoDays);
console.log(`seeds ${FIRST}–${FIRST + SEEDS - 1} (LEMONADE_SEED=${FIRST} repeats them)`);
console.log(`UCB tuned on seeds ${tuning.join(', ')} to ${JSON.stringify(ucb)}; LinUCB to ${JSON.stringify(linear)}`);

const names = ['seller as created', 'autopilot', 'best fixed price', 'UCB bandit', 'LinUCB', 'best price per buyer'] as const;
const results: Record<string, Play[]> = Object.fromEntries(names.map((name) => [name, []]));
const players: AutopilotPlayer[] = [];
for (const seed of seeds) {
  results['seller as created']!.push(await play(world, staticPlayer(world), EVALUATIONS, seed));
  const auto = await autopilotPlayer(world, seed);
  results.autopilot!.push(await play(world, auto, EVALUATIONS, seed));
  players.push(auto);
  results['best fixed price']!.push(await play(world, bestFixedPlayer(world, seed, EVALUATIONS), EVALUATIONS, seed));
  results['UCB bandit']!.push(await play(world, banditPlayer(world, ucb), EVALUATIONS, seed));
  results.LinUCB!.push(await play(world, linearBanditPlayer(world, linear), EVALUATIONS, seed));
  results['best price per buyer']!.push(await play(world, oraclePlayer(world), EVALUATIONS, seed));
}

console.log(`\nprofit per day (mean over seeds ${FIRST}–${FIRST + SEEDS - 1}; what was served, exploration and trials included)`);
console.log(`${'day'.padEnd(22)}${Array.from({ length: DAYS }, (_, d) => String(d + 1).padStart(6)).join('')}  last 2 days  all days`);
for (const name of names) {
  const days = results[name]!.map((result) => perDay(result.served));
  const mean = (d: number) => sum(days.map((day) => day[d]!)) / days.length;
  const last = sum(results[name]!.map(lastTwoDays)) / SEEDS;
  const all = sum(results[name]!.map((result) => sum(result.served))) / SEEDS / DAYS;
  console.log(
    `${name.padEnd(22)}${Array.from({ length: DAYS }, (_, d) => mean(d).toFixed(0).padStart(6)).join('')}  ${last.toFixed(1).padStart(11)}  ${all.toFixed(1).padStart(8)}`,
  );
}
const start = results['seller as created']!.map(lastTwoDays);
const startAll = results['seller as created']!.map((result) => sum(result.served));
console.log('\nper seed, last two days against the seller as created (and all days):');
for (const name of names.slice(1)) {
  const gains = results[name]!.map(
    (result, s) => `${((lastTwoDays(result) / start[s]! - 1) * 100).toFixed(0)}% (${((sum(result.served) / startAll[s]! - 1) * 100).toFixed(0)}%)`,
  );
  console.log(`${name.padEnd(22)}${gains.join('  ')}`);
}
const autoLast = results.autopilot!.map(lastTwoDays);
console.log(
  `autopilot ahead of UCB in ${results['UCB bandit']!.filter((r, s) => autoLast[s]! > lastTwoDays(r)).length} of ${SEEDS} seeds, of LinUCB in ${results.LinUCB!.filter((r, s) => autoLast[s]! > lastTwoDays(r)).length}`,
);

// ---- where the gap goes ----
console.log('\nwhere autopilot goes against the seller as created, profit per day (mean over seeds):');
const decompositions: ServedParts[] = [];
for (const [s, player] of players.entries()) decompositions.push(await servedParts(world, player, seeds[s]!, EVALUATIONS, BUYERS_PER_DAY));
for (const part of ['versions', 'trials', 'exploration'] as const) {
  const label = { versions: "the latest version's plain answers", trials: 'the candidate on trial', exploration: "autopilot's draws" }[part];
  console.log(
    `${label.padEnd(36)}${Array.from({ length: DAYS }, (_, d) => (sum(decompositions.map((x) => x.parts[part][d]!)) / SEEDS).toFixed(1).padStart(7)).join('')}`,
  );
}
for (const [s, { trials, spread, versionCount, trialServed }] of decompositions.entries()) {
  const said = trials.map((t: { outcome: string; gain: number }) => `${t.outcome[0]}${t.gain >= 0 ? '+' : ''}${t.gain.toFixed(0)}`).join(' ');
  console.log(
    `seed ${seeds[s]}: ${versionCount} versions, ${trials.length} trials (outcome, true gain per day of its plain answers): ${said}; ${trialServed} answers by candidates; spread at the end ${JSON.stringify(spread)}`,
  );
}
const allTrials = decompositions.flatMap((x) => x.trials);
const truly = (outcome: string, better: boolean) =>
  allTrials.filter((t: { outcome: string; gain: number }) => t.outcome === outcome && t.gain > 0 === better).length;
console.log(
  `trials: ${allTrials.length}; dropped ${truly('dropped', true)} truly better, ${truly('dropped', false)} not; adopted ${truly('adopted', true)} truly better, ${truly('adopted', false)} not; ` +
    `median true gain of the dropped ${median(allTrials.filter((t: { outcome: string }) => t.outcome === 'dropped').map((t: { gain: number }) => t.gain)).toFixed(1)} per day`,
);
const situations = situationsOf(world, seededRandom(9), EVALUATIONS);
console.log(
  `numBuyers above the seller's sets (20): ${((situations.filter((s) => s.numBuyers! > 20).length / situations.length) * 100).toFixed(0)}% of buyers; weather changed before ${((situations.filter((s, i) => i > 0 && (s.temperature !== situations[i - 1]!.temperature || s.sunny !== situations[i - 1]!.sunny)).length / situations.length) * 100).toFixed(0)}% of buyers`,
);
for (const player of players) await player.close();

// ---- requests waiting behind the background work ----
/** Plays the days without waiting for autopilot between requests: each evaluation and feedback timed. */
async function latencies(seed: number) {
  const player = await autopilotPlayer(world, seed);
  const times: number[] = [];
  for (const situation of situationsOf(world, seededRandom(seed), EVALUATIONS)) {
    let at = performance.now();
    const { body, headers } = await player.call('POST', `agent/${player.agentID}`, situation);
    times.push(performance.now() - at);
    at = performance.now();
    await player.call('POST', `evaluation/${headers.get('X-Evaluation-ID')}/feedback`, { profit: world.expected(situation, body, 0) });
    times.push(performance.now() - at);
  }
  await player.service.idle();
  await player.close();
  return times.sort((a, b) => a - b);
}
const times = await latencies(FIRST);
const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
console.log(
  `\nNode, requests back to back, not waiting for autopilot: ${times.length} requests, median ${q(0.5)} ms, p99 ${q(0.99)} ms, longest ${times.at(-1)!.toFixed(1)} ms`,
);
