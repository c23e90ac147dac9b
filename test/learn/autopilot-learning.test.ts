// How well autopilot learns, through the real handler, in the worlds of test/learn/arena.ts: apps
// only evaluate (no parameter) and post feedback; the service varies answers, proposes, tries and
// adopts versions by itself. Each player runs its own service on IndexedDB (fake-indexeddb), so
// these run once, not per store: what depends on the store is in autopilot.test.ts.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import { createFuzzyService } from '../../src/index.js';
import { seededRandom } from '../../src/learn/random.js';
import { autopilotPlayer, oraclePlayer, play, staticPlayer, worlds, type ArenaWorld, type AutopilotPlayer } from './arena.js';

/** The mean metric of a version's plain answers on 2,000 situations, from the world's rule. */
async function plainly(world: ArenaWorld, player: AutopilotPlayer, versionID: string): Promise<number> {
  const compiled = compileAgent((await player.call('GET', `version/${versionID}`)).body);
  const random = seededRandom(5);
  let sum = 0;
  for (let i = 0; i < 2000; i++) {
    const situation = world.situation(random);
    sum += world.expected(situation, evaluate(compiled, situation).crisp, 1);
  }
  return sum / 2000;
}

describe('the fuzzy.ai pattern: evaluate and post feedback, nothing else', () => {
  // bench/autopilot.bench.ts compares every world over five seeds; here the claims that hold for each seed tried
  for (const [name, gain, gapClosed] of [
    ['two outputs', 0.25, 0.6],
    ['cliff', 0.25, 0.5],
  ] as const) {
    it(`improves the ${name} world by at least ${gain * 100}% within 1,000 evaluations, closing ${gapClosed * 100}% of the gap to the best answer per situation, never earning 2% less while learning, and says what it gained within ±30%`, async () => {
      const world = worlds.find((w) => w.name === name)!;
      for (const seed of [1, 2, 3]) {
        const fixed = await play(world, staticPlayer(world), 1000, seed);
        const best = await play(world, oraclePlayer(world), 1000, seed);
        const player = await autopilotPlayer(world, seed);
        const learnt = await play(world, player, 1000, seed);
        await player.service.idle();
        const versions = (await player.call('GET', `agent/${player.agentID}/version`)).body as Array<{ origin: string }>;
        // what autopilot says its versions gained together, against the world's rule
        const said = (await player.call('GET', `agent/${player.agentID}/autopilot`)).body.gain;
        const truth = (await plainly(world, player, said.versionID)) - (await plainly(world, player, said.since));
        expect(Math.abs(said.metrics.profit.value / truth - 1), `seed ${seed}: ${said.metrics.profit.value} against ${truth}`).toBeLessThan(0.3);
        await player.close();
        expect(versions[0]!.origin).toBe('created');
        expect(versions.slice(1).every((version) => version.origin === 'autopilot')).toBe(true);
        expect(learnt.final, `seed ${seed}`).toBeGreaterThan((1 + gain) * fixed.final);
        expect((learnt.final - fixed.final) / (best.final - fixed.final), `seed ${seed}`).toBeGreaterThan(gapClosed);
        expect(learnt.cumulative, `seed ${seed}`).toBeGreaterThan(0.98 * fixed.cumulative);
      }
    }, 600_000);
  }
});

describe('repeatable', () => {
  it('the same seed gives the same proposals, trials and versions, whatever the clock does', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    const run = async () => {
      const player = await autopilotPlayer(world, 2);
      const result = await play(world, player, 400, 2);
      const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
      const { body: agent } = await player.call('GET', `agent/${player.agentID}`);
      await player.close();
      const trials = state.trials.map(({ outcome, pValue, current, candidate }: Record<string, unknown>) => ({ outcome, pValue, current, candidate }));
      return { result, trials, rules: agent.rules, outputs: agent.outputs };
    };
    const first = await run();
    expect(first.trials.length).toBeGreaterThan(0);
    expect(await run()).toEqual(first);
  }, 120_000);
});

/** A world's autopilot player after `count` evaluations of `seed`, its background work done, with its autopilot state. */
async function playedAutopilot(name: string, seed: number, count: number) {
  const world = worlds.find((w) => w.name === name)!;
  const player = await autopilotPlayer(world, seed);
  await play(world, player, count, seed);
  await player.service.idle();
  const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
  return { world, player, state };
}

/**
 * Plays 10 evaluations at a time until a candidate is on trial (within 600): when the first comes
 * depends on every draw before it, so a fixed count would test whatever state that count left.
 */
async function untilCandidate(world: ArenaWorld, player: AutopilotPlayer, seed: number) {
  for (let round = 0; round < 60; round++) {
    await play(world, player, 10, seed * 100 + round, 0);
    await player.service.idle();
    const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
    if (state.candidate) return state;
  }
  throw new Error('no candidate on trial within 600 evaluations');
}

describe('versions, performance and rollback', () => {
  it("records each version's origin and evidence, its performance, and rolls back to any version", async () => {
    const { world, player, state } = await playedAutopilot('two outputs', 1, 700);
    expect(state.trials.length).toBeGreaterThanOrEqual(1);
    const adopted = state.trials.filter((trial: { outcome: string }) => trial.outcome === 'adopted').at(-1);
    // adopted at the first look when clearly better, at the last when ahead (src/learn/trial.ts)
    expect(adopted.pValue).toBeLessThan(0.5);
    // the gain the trial measured, with its interval, on every decided trial
    expect(adopted.gain.low).toBeLessThan(adopted.gain.value);
    expect(adopted.gain.value).toBeLessThan(adopted.gain.high);
    expect(adopted.gain.value).toBeGreaterThan(0);
    for (const trial of state.trials) expect(Number.isFinite(trial.gain?.value)).toBe(trial.outcome !== 'abandoned');
    const { body: report } = await player.call('GET', `agent/${player.agentID}/performance`);
    const [first, second] = report.versions;
    expect(first).toMatchObject({ origin: 'created', evidence: null });
    expect(second.origin).toBe('autopilot');
    expect(second.evidence.offPolicy.gain.low).toBeLessThan(second.evidence.offPolicy.gain.value);
    expect(first.evaluations).toBeGreaterThan(100);
    expect(first.feedback).toBe(first.evaluations);
    expect(first.metrics.profit.n).toBe(first.evaluations);
    expect(first.metrics.profit.low).toBeLessThan(first.metrics.profit.mean);
    expect(report.latestVersion).toBe(adopted.versionID);
    // what the adopted versions gained together, against the gain the world's rule gives: of the
    // right size after 700 evaluations (the ±30% of issue 9 is held at 1,000, in the fuzzy.ai
    // pattern's test above and over ten seeds in bench/autopilot.bench.ts; here, seed 1: +33%)
    expect(state.gain).toMatchObject({ since: first.id, versionID: adopted.versionID });
    const estimate = state.gain.metrics.profit;
    expect(estimate.low).toBeLessThan(estimate.value);
    expect(estimate.value).toBeLessThan(estimate.high);
    const truth = (await plainly(world, player, adopted.versionID)) - (await plainly(world, player, first.id));
    expect(Math.abs(estimate.value / truth - 1), `${estimate.value} against ${truth}`).toBeLessThan(0.4);

    const rolled = await player.call('POST', `agent/${player.agentID}/rollback`, { version: first.id });
    expect(rolled.status).toBe(200);
    expect(rolled.body.outputs).toEqual(world.agent.outputs);
    const versions = (await player.call('GET', `agent/${player.agentID}/version`)).body as Array<{ id: string; origin: string }>;
    expect(versions.at(-1)).toEqual(expect.objectContaining({ id: rolled.body.latestVersion, origin: 'rolled back' }));
    expect((await player.call('GET', `agent/${player.agentID}`)).body.latestVersion).toBe(rolled.body.latestVersion);
    // a version autopilot did not adopt is the latest: its estimate of what it gained is history
    expect((await player.call('GET', `agent/${player.agentID}/autopilot`)).body.gain).toBeNull();
    await player.close();
  }, 120_000);

  it('tries a candidate only on the evaluations it shared out: an app exploring itself meanwhile does not count', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    const player = await autopilotPlayer(world, 4);
    const before = await untilCandidate(world, player, 4);
    // the app explores on its own (always answered by the latest version) and posts ruinous profits
    for (let i = 0; i < 40; i++) {
      const { headers } = await player.call('POST', `agent/${player.agentID}?explore=0.3`, { temperature: 10 + (30 * i) / 40 });
      await player.call('POST', `evaluation/${headers.get('X-Evaluation-ID')}/feedback`, { profit: -1000 });
    }
    await play(world, player, 400, 6);
    await player.service.idle();
    const { body: after } = await player.call('GET', `agent/${player.agentID}/autopilot`);
    // the trial under way while the app explored is decided (with draws that narrow, a next one may not be in 400)
    expect(after.trials.length).toBeGreaterThan(before.trials.length);
    // every trial since holds autopilot's own answers only: no −1000 in either arm (a cliff's worst is about −16)
    for (const trial of after.trials.slice(before.trials.length).filter((t: { outcome: string }) => t.outcome !== 'abandoned')) {
      expect(trial.current.low, JSON.stringify(trial.current)).toBeGreaterThan(-50);
      expect(trial.candidate.low, JSON.stringify(trial.candidate)).toBeGreaterThan(-50);
    }
    await player.close();
  }, 120_000);

  it('carries on after the service stops: state is in the store, a new service on it decides the trial', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    const indexedDB = new IDBFactory();
    const first = await autopilotPlayer(world, 4, { indexedDB });
    const before = await untilCandidate(world, first, 4);
    await first.close();

    const service = createFuzzyService({ indexedDB, IDBKeyRange, random: seededRandom(9) });
    const second = await autopilotPlayer(world, 5, { service, key: first.key, agentID: first.agentID });
    const { body: resumed } = await second.call('GET', `agent/${first.agentID}/autopilot`);
    expect(resumed.candidate).toEqual(before.candidate);
    await play(world, second, 700, 5);
    await service.idle();
    const { body: after } = await second.call('GET', `agent/${first.agentID}/autopilot`);
    expect(after.trials.some((trial: { versionID: string }) => trial.versionID === before.candidate.versionID)).toBe(true);
    await second.close();
  }, 120_000);
});
