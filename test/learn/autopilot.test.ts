// Autopilot through the real handler, on each store: how it varies answers, switches, rolls back,
// and keeps its state when several services share one store. How well it learns:
// autopilot-learning.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import { createFuzzyService } from '../../src/index.js';
import { explorationDensity, NARROWEST_SPREAD, WIDEST_SPREAD } from '../../src/learn/policy.js';
import { seededRandom } from '../../src/learn/random.js';
import { initialState, STATE_FRESH_MS } from '../../src/core/autopilot.js';
import type { FuzzboxStore } from '../../src/store/store.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';
import { autopilotPlayer, play, worlds } from './arena.js';

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const withPerformance = () => ({ ...tippingAgent(), performance: { stars: 'maximize' as const } });

describe('autopilot policy', () => {
  it('varies answers of an agent with performance inside the range, logging what was returned and its density', async () => {
    t = await createTestService({ random: seededRandom(3) });
    const key = await t.signup();
    const agent = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    const tips: number[] = [];
    for (let i = 0; i < 40; i++) {
      const { status, body, headers } = await t.call('POST', `agent/${agent.id}`, { key, body: { service: i % 2 ? 10 : 5 } });
      expect(status).toBe(200);
      expect(body.tip).toBeGreaterThanOrEqual(0);
      expect(body.tip).toBeLessThanOrEqual(30);
      tips.push(body.tip);
      const log = (await t.call('GET', `evaluation/${headers.get('X-Evaluation-ID')}`, { key })).body;
      expect(log.returned).toEqual(body);
      expect(log.density).toBeCloseTo(explorationDensity(log.crisp, log.returned, compileAgent(agent).outputs, WIDEST_SPREAD), 9);
    }
    expect(new Set(tips).size).toBe(40);
    // service 10 answers near the top of the range: truncated, never clamped onto the end
    expect(tips.filter((tip) => tip === 30)).toHaveLength(0);
  });

  it('draws each output with the spread autopilot set for it, and says so', async () => {
    t = await createTestService({ random: seededRandom(4) });
    const { apiKey: key, userID } = await t.service.createAccount('spread');
    const agent = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    expect((await t.call('GET', `agent/${agent.id}/autopilot`, { key })).body.spread).toEqual({ tip: WIDEST_SPREAD });
    await t.call('PUT', `agent/${agent.id}/autopilot`, { key, body: { enabled: true } });
    const stored = (await t.store.readAutopilot(userID, agent.id))!;
    await t.store.writeAutopilot(userID, { ...stored, spread: { tip: NARROWEST_SPREAD }, revision: (stored.revision ?? 0) + 1 });
    await sleep(STATE_FRESH_MS + 50);
    expect((await t.call('GET', `agent/${agent.id}/autopilot`, { key })).body.spread).toEqual({ tip: NARROWEST_SPREAD });
    const moves: number[] = [];
    for (let i = 0; i < 200; i++) {
      const { headers } = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } });
      const log = (await t.call('GET', `evaluation/${headers.get('X-Evaluation-ID')}`, { key })).body;
      expect(log.density).toBeCloseTo(explorationDensity(log.crisp, log.returned, compileAgent(agent).outputs, NARROWEST_SPREAD), 9);
      moves.push((log.returned.tip - log.crisp.tip) / 30);
    }
    // the draws' own spread: NARROWEST_SPREAD of the range (the answer at service 5 is far from either end)
    const deviation = Math.sqrt(moves.reduce((sum, move) => sum + move * move, 0) / moves.length);
    expect(deviation).toBeGreaterThan(0.88 * NARROWEST_SPREAD);
    expect(deviation).toBeLessThan(1.12 * NARROWEST_SPREAD);
  });

  it('answers plainly when switched off, and for agents without performance', async () => {
    t = await createTestService({ random: seededRandom(3) });
    const key = await t.signup();
    const plain = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
    const piloted = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    const expected = evaluate(compileAgent(plain), { service: 5 }).crisp;
    expect((await t.call('POST', `agent/${plain.id}`, { key, body: { service: 5 } })).body).toEqual(expected);
    expect((await t.call('GET', `agent/${plain.id}/autopilot`, { key })).body).toMatchObject({ enabled: true, active: false });

    const off = await t.call('PUT', `agent/${piloted.id}/autopilot`, { key, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, active: false });
    const answer = await t.call('POST', `agent/${piloted.id}`, { key, body: { service: 5 } });
    expect(answer.body).toEqual(expected);
    expect((await t.call('GET', `evaluation/${answer.headers.get('X-Evaluation-ID')}`, { key })).body).not.toHaveProperty('density');
    expect((await t.call('PUT', `agent/${piloted.id}/autopilot`, { key, body: { enabled: true } })).body.active).toBe(true);
    expect((await t.call('POST', `agent/${piloted.id}`, { key, body: { service: 5 } })).body).not.toEqual(expected);
  });

  it('a rollback restores the whole definition of the version it goes back to, its operators too', async () => {
    t = await createTestService();
    const key = await t.signup();
    const operators = { and: 'product', or: 'probabilisticSum', implication: 'product' };
    const first = (await t.call('POST', 'agent', { key, body: { ...tippingAgent(), operators } })).body;
    const productAnswer = (await t.call('POST', `agent/${first.id}`, { key, body: { service: 4 } })).body;
    await t.call('PUT', `agent/${first.id}`, { key, body: tippingAgent() });
    const rolled = await t.call('POST', `agent/${first.id}/rollback`, { key, body: { version: first.latestVersion } });
    expect(rolled.status).toBe(200);
    const agent = (await t.call('GET', `agent/${first.id}`, { key })).body;
    expect(agent.operators).toEqual(operators);
    expect((await t.call('GET', `version/${agent.latestVersion}`, { key })).body.operators).toEqual(operators);
    expect((await t.call('POST', `agent/${first.id}`, { key, body: { service: 4 } })).body).toEqual(productAnswer);
  });

  it('refuses a bad switch or rollback with a 400 that changes nothing', async () => {
    t = await createTestService();
    const key = await t.signup();
    const agent = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    const before = await t.snapshot();
    for (const body of [{ enabled: 'yes' }, {}, { enabled: true, extra: 1 }, []]) {
      const { status, body: error } = await t.call('PUT', `agent/${agent.id}/autopilot`, { key, body });
      expect(status).toBe(400);
      expect(error.status).toBe('error');
      expect(error.message).toMatch(/enabled/);
    }
    for (const body of [{}, { version: 3 }, { version: 'nope' }]) {
      const { status, body: error } = await t.call('POST', `agent/${agent.id}/rollback`, { key, body });
      expect(status).toBe(400);
      expect(error.message).toMatch(/version/);
    }
    const other = (await t.call('POST', 'agent', { key, body: tippingAgent('other') })).body;
    const before2 = await t.snapshot();
    expect((await t.call('POST', `agent/${agent.id}/rollback`, { key, body: { version: other.latestVersion } })).status).toBe(400);
    expect(await t.snapshot()).toBe(before2);
    expect(before2).not.toBe(before);
    expect((await t.call('GET', 'agent/nope/autopilot', { key })).status).toBe(404);
  });
});

/** `store` with some methods replaced: `wrap` gets the original, bound, and returns the replacement. */
function storeWith(store: FuzzboxStore, replaced: Partial<{ [K in keyof FuzzboxStore]: (original: FuzzboxStore[K]) => FuzzboxStore[K] }>): FuzzboxStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const bound = value.bind(target);
      const wrap = (replaced as Record<PropertyKey, ((original: unknown) => unknown) | undefined>)[property];
      return wrap ? wrap(bound) : bound;
    },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('one store, several services (processes, tabs)', () => {
  it("a write of autopilot's state over a revision someone else wrote is refused with Conflict", async () => {
    t = await createTestService();
    const { apiKey: key, userID } = await t.service.createAccount('writer');
    const agent = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    await t.call('PUT', `agent/${agent.id}/autopilot`, { key, body: { enabled: false } });
    const stored = (await t.store.readAutopilot(userID, agent.id))!;
    expect(stored.revision).toBe(1);
    await t.store.writeAutopilot(userID, { ...stored, enabled: true, revision: 2 });
    await expect(t.store.writeAutopilot(userID, { ...stored, usedFeedback: 7, revision: 2 })).rejects.toMatchObject({ name: 'Conflict' });
    expect(await t.store.readAutopilot(userID, agent.id)).toMatchObject({ enabled: true, usedFeedback: 0, revision: 2 });
    // a write over a revision of a record that is not there is as stale
    const other = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    await expect(t.store.writeAutopilot(userID, { ...stored, agentID: other.id, revision: 2 })).rejects.toMatchObject({ name: 'Conflict' });
    expect(await t.store.readAutopilot(userID, other.id)).toBeUndefined();
  });

  it("a switch made while another service's background step searches stands, and so does the step's work", async () => {
    t = await createTestService({ random: seededRandom(3) });
    const key = await t.signup();
    const agent = (await t.call('POST', 'agent', { key, body: withPerformance() })).body;
    // the other service's background steps wait at the log until released
    let [release, reached] = [() => {}, () => {}];
    const gate = new Promise<void>((resolve) => (release = resolve));
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const other = createFuzzyService({
      store: storeWith(t.store, {
        readLearningLog:
          (read) =>
          async (...args) => (reached(), await gate, read(...args)),
      }),
      random: seededRandom(4),
    });
    const call = async (method: string, path: string, body: unknown) => {
      const init = { method, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: JSON.stringify(body) };
      const response = await other.handle(new Request(`http://other.test/${path}`, init));
      const answer = { body: await response.json(), id: response.headers.get('X-Evaluation-ID') };
      expect(response.status, JSON.stringify(answer.body)).toBe(200);
      return answer;
    };
    for (let i = 0; i < 50; i++) {
      const { body, id } = await call('POST', `agent/${agent.id}`, { service: i % 10 });
      await call('POST', `evaluation/${id}/feedback`, { stars: 5 - Math.abs(body.tip - 15) / 3 });
    }
    await atGate;
    expect((await t.call('PUT', `agent/${agent.id}/autopilot`, { key, body: { enabled: false } })).body.enabled).toBe(false);
    release();
    await other.idle();
    const state = (await t.call('GET', `agent/${agent.id}/autopilot`, { key })).body;
    expect(state).toMatchObject({ enabled: false, usedFeedback: 50, candidate: null });
    const plain = evaluate(compileAgent(agent), { service: 5 }).crisp;
    expect((await call('POST', `agent/${agent.id}`, { service: 5 })).body).toEqual(plain);
    // switched on through the first service: the other reads it within STATE_FRESH_MS and varies its answers again
    await t.call('PUT', `agent/${agent.id}/autopilot`, { key, body: { enabled: true } });
    await sleep(STATE_FRESH_MS + 50);
    expect((await call('POST', `agent/${agent.id}`, { service: 5 })).body).not.toEqual(plain);
  });

  it('an adoption written down by a step that stopped before promoting its version is promoted by the next step', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    t = await createTestService();
    // a service whose worker is stopped at its first promotion, after it wrote the adoption down
    let adopted: string | undefined;
    const stopping = createFuzzyService({
      store: storeWith(t.store, {
        promoteVersion: () => async (_userID, _id, versionID) => {
          adopted ??= versionID;
          throw new Error('the worker was stopped');
        },
      }),
      random: seededRandom(3004),
    });
    const first = await autopilotPlayer(world, 4, { service: stopping });
    for (let round = 1; !adopted && round <= 50; round++) await play(world, first, 20, round);
    expect(adopted).toBeDefined();
    const { body: before } = await first.call('GET', `agent/${first.agentID}/autopilot`);
    const trial = before.trials.find((entry: { versionID: string }) => entry.versionID === adopted);
    expect(trial).toMatchObject({ outcome: 'adopted' });
    expect((await first.call('GET', `agent/${first.agentID}`)).body.latestVersion).toBe(trial.basedOn);

    const second = await autopilotPlayer(world, 5, { service: t.service, key: first.key, agentID: first.agentID });
    await play(world, second, 10, 5);
    await t.service.idle();
    expect((await second.call('GET', `agent/${first.agentID}`)).body.latestVersion).toBe(adopted);
  }, 300_000);

  it('a candidate proposed as a person switches autopilot off, or as another step writes the state, leaves no version behind', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    t = await createTestService();
    const store = t.store;
    // the person's switch, then another step's work, land just before the step stores its candidate
    const raced: Array<'switch' | 'proposal'> = [];
    const racing = createFuzzyService({
      store: storeWith(store, {
        addCandidateVersion: (add) => async (userID, id, basedOn, body, parsedRules, provenance, decide) => {
          // the first proposal may come before any state was stored
          const stored = (await store.readAutopilot(userID, id)) ?? initialState({ id, userID });
          if (raced.length === 0) {
            raced.push('switch');
            await store.writeAutopilot(userID, { ...stored, enabled: false, revision: (stored.revision ?? 0) + 1 });
          } else if (raced.length === 1) {
            raced.push('proposal');
            // what another step that searched writes down: the feedback it saw
            await store.writeAutopilot(userID, { ...stored, feedbackSeen: (stored.feedbackSeen ?? 0) + 1, revision: (stored.revision ?? 0) + 1 });
          }
          return add(userID, id, basedOn, body, parsedRules, provenance, decide);
        },
      }),
      random: seededRandom(3004),
    });
    const player = await autopilotPlayer(world, 4, { service: racing });
    for (let round = 1; raced.length === 0 && round <= 50; round++) await play(world, player, 20, round);
    expect(raced).toEqual(['switch']);
    // every version autopilot made is the candidate on trial or one a trial decided
    const unaccounted = async () => {
      const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
      const known = new Set<string>([state.candidate?.versionID, ...state.trials.map((trial: { versionID: string }) => trial.versionID)]);
      const versions = (await player.call('GET', `agent/${player.agentID}/version`)).body as Array<{ id: string; origin: string }>;
      return versions.filter((version) => version.origin === 'autopilot' && !known.has(version.id)).map((version) => version.id);
    };
    expect((await player.call('GET', `agent/${player.agentID}/autopilot`)).body).toMatchObject({ enabled: false, candidate: null });
    expect(await unaccounted()).toEqual([]);
    // switched on again: the next proposal finds that another step wrote the state since it read it
    await player.call('PUT', `agent/${player.agentID}/autopilot`, { enabled: true });
    for (let round = 51; raced.length === 1 && round <= 100; round++) await play(world, player, 20, round);
    expect(raced).toEqual(['switch', 'proposal']);
    expect(await unaccounted()).toEqual([]);
  }, 300_000);

  it('a trial decided as a person switches autopilot off is not written down, and its version not promoted', async () => {
    const world = worlds.find((w) => w.name === 'cliff')!;
    t = await createTestService();
    const store = t.store;
    // the person's switch lands just before the step writes its decision down
    let decided: { versionID: string; basedOn: string } | undefined;
    const racing = createFuzzyService({
      store: storeWith(store, {
        writeAutopilot: (write) => async (userID, record) => {
          const stored = await store.readAutopilot(userID, record.agentID);
          if (!decided && stored && record.trials.length > stored.trials.length) {
            decided = record.trials.at(-1)!;
            await store.writeAutopilot(userID, { ...stored, enabled: false, revision: (stored.revision ?? 0) + 1 });
          }
          return write(userID, record);
        },
      }),
      random: seededRandom(3004),
    });
    const player = await autopilotPlayer(world, 4, { service: racing });
    for (let round = 1; !decided && round <= 50; round++) await play(world, player, 20, round);
    expect(decided).toBeDefined();
    const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
    expect(state).toMatchObject({ enabled: false, candidate: { versionID: decided!.versionID } });
    expect(state.trials.some((trial: { versionID: string }) => trial.versionID === decided!.versionID)).toBe(false);
    expect((await player.call('GET', `agent/${player.agentID}`)).body.latestVersion).toBe(decided!.basedOn);
  }, 300_000);
});
