// Exploring and optimizing through the REST interface: real fetch() calls, msw routing them to
// the service's handle(), over each backend's store (test/support/service.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/engine/types.js';
import { seededRandom } from '../../src/learn/random.js';
import { describeChange, type Change } from '../../src/learn/tuning.js';
import { optimizeResultSchema } from '../../src/schema/optimize.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';
import { cooling, gaussianCooling, irrigation, lemonade, type World } from './worlds.js';

let t: TestService;
afterEach(() => t?.close());

async function start(seed = 1, options: Parameters<typeof createTestService>[0] = {}) {
  t = await createTestService({ random: seededRandom(seed), ...options });
  return t.signup('learner');
}

async function createAgent(key: string, definition: AgentDefinition, name = 'agent'): Promise<string> {
  const { status, body } = await t.call('POST', 'agent', { key, body: { name, ...definition } });
  expect(status).toBe(200);
  return body.id;
}

/** Evaluates a batch and returns the outputs the app received with each evaluation's id. */
async function evaluateBatch(key: string, id: string, situations: object[], query = '') {
  const { status, body, headers } = await t.call('POST', `agent/${id}${query}`, { key, body: situations });
  expect(status, JSON.stringify(body)).toBe(200);
  const ids = headers.get('X-Evaluation-ID')!.split(',');
  return (body as Record<string, number>[]).map((outputs, i) => ({ outputs, reqID: ids[i]! }));
}

/** `count` explored evaluations in the world, each answered with its outcome as feedback. */
async function playExplored(key: string, id: string, world: World, count: number, random: () => number) {
  const situations = Array.from({ length: count }, () => world.situation(random));
  const answers = await evaluateBatch(key, id, situations, '?explore=0.15');
  const posted = await Promise.all(
    answers.map(({ outputs, reqID }, i) =>
      t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { [world.metric]: world.outcome(situations[i]!, outputs, random) } }),
    ),
  );
  for (const { status } of posted) expect(status).toBe(200);
}

describe('?explore=', () => {
  it('returns noisy outputs, logs both what the engine computed and what was returned', async () => {
    const key = await start(5);
    const id = await createAgent(key, tippingAgent());
    const plain = await evaluateBatch(key, id, [{ service: 5 }]);
    const plainLog = await t.call('GET', `evaluation/${plain[0]!.reqID}`, { key });
    expect(plainLog.body).not.toHaveProperty('returned');
    expect(plain[0]!.outputs).toEqual(plainLog.body.crisp);

    const explored = await evaluateBatch(
      key,
      id,
      Array.from({ length: 2000 }, () => ({ service: 5 })),
      '?explore=0.1',
    );
    const log = await t.call('GET', `evaluation/${explored[7]!.reqID}`, { key });
    expect(log.body.crisp).toEqual(plainLog.body.crisp);
    expect(log.body.returned).toEqual(explored[7]!.outputs);
    expect(log.body.returned.tip).not.toBe(log.body.crisp.tip);
    // service 5 gives a tip of exactly 15 (only "good" fires, a symmetric triangle at 15); noise
    // of sd 0.1 × 30 = 3 around 15 stays clear of the range ends 0 and 30
    const deviations = explored.map(({ outputs }) => outputs.tip! - 15);
    const sd = Math.sqrt(deviations.reduce((s, d) => s + d * d, 0) / deviations.length);
    expect(Math.abs(sd - 3)).toBeLessThan(0.15);
  });

  it('repeats exactly with the same seeded random', async () => {
    const answers: number[][] = [];
    for (let run = 0; run < 2; run++) {
      const key = await start(42);
      const id = await createAgent(key, tippingAgent());
      answers.push((await evaluateBatch(key, id, [{ service: 2 }, { service: 8 }], '?explore=0.3')).map(({ outputs }) => outputs.tip!));
      await t.close();
    }
    expect(answers[1]).toEqual(answers[0]);
  });

  it('refuses a scale outside (0, 0.5] with a 400 that changes nothing', async () => {
    const key = await start();
    const id = await createAgent(key, tippingAgent());
    const before = await t.snapshot();
    for (const scale of ['0', '-0.1', '0.51', 'abc', '', 'Infinity']) {
      const { status, body } = await t.call('POST', `agent/${id}?explore=${scale}`, { key, body: { service: 3 } });
      expect(status).toBe(400);
      expect(body.message).toContain('?explore=');
    }
    expect(await t.snapshot()).toBe(before);
  });
});

describe('POST /agent/:id/optimize, proven through fetch()', () => {
  for (const world of [lemonade, irrigation]) {
    for (const seed of [1, 2, 3, 4, 5]) {
      it(`${world.goal}s the ${world.name}'s ${world.metric} by at least 20% (seed ${seed})`, async () => {
        const key = await start(seed);
        const random = seededRandom(100 + seed);
        const id = await createAgent(key, world.agent);
        await playExplored(key, id, world, 500, random);
        const optimized = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: world.metric, goal: world.goal, dryRun: false } });
        expect(optimized.status, JSON.stringify(optimized.body)).toBe(200);
        expect(optimizeResultSchema.parse(optimized.body)).toEqual(optimized.body);
        expect(optimized.body.evaluationsUsed).toBe(500);

        // 500 fresh situations, answered plainly by the optimized agent (now the latest version)
        // and, for comparison, by a copy of the starting agent; the same outcome noise for both
        const situations = Array.from({ length: 500 }, () => world.situation(random));
        const starting = await createAgent(key, world.agent, 'starting copy');
        const mean = async (agentID: string) => {
          const noise = seededRandom(1000 + seed);
          const answers = await evaluateBatch(key, agentID, situations);
          return answers.reduce((sum, { outputs }, i) => sum + world.outcome(situations[i]!, outputs, noise), 0) / answers.length;
        };
        const [before, after] = [await mean(starting), await mean(id)];
        const gain = world.goal === 'maximize' ? after - before : before - after;
        expect(gain, `${before} → ${after}`).toBeGreaterThanOrEqual(0.2 * Math.abs(before));
      });
    }
  }
});

describe('POST /agent/:id/optimize', () => {
  async function explored(world: World = lemonade, count = 200) {
    const key = await start();
    const id = await createAgent(key, world.agent);
    await playExplored(key, id, world, count, seededRandom(3));
    return { key, id };
  }

  it('saves the proposal as a new version, as a PUT would, and changes nothing when run again', async () => {
    const progress: Array<{ agentID: string; done: number; total: number }> = [];
    const key = await start(1, { onOptimizeProgress: (p) => progress.push(p) });
    const id = await createAgent(key, lemonade.agent);
    await playExplored(key, id, lemonade, 200, seededRandom(3));
    const agent = (await t.call('GET', `agent/${id}`, { key })).body;

    const first = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ basedOn: agent.latestVersion, metric: 'profit', goal: 'maximize', evaluationsUsed: 200 });
    expect(first.body.after).toBeGreaterThan(first.body.before);
    expect(first.body.changes.length).toBeGreaterThan(0);
    const now = (await t.call('GET', `agent/${id}`, { key })).body;
    expect(now.latestVersion).toBe(first.body.versionID);
    expect(now.updatedAt > agent.updatedAt).toBe(true);
    expect({ inputs: now.inputs, outputs: now.outputs, rules: now.rules }).toEqual(first.body.definition);
    const version = (await t.call('GET', `version/${first.body.versionID}`, { key })).body;
    expect(version.rules).toEqual(first.body.definition.rules);
    expect(version.parsed_rules).toHaveLength(lemonade.agent.rules.length);
    // every change names a number that really moved, from its old value to its new one
    for (const change of first.body.changes) {
      if (change.kind === 'set') {
        expect(agent[change.side][change.variable][change.set][change.point]).toBe(change.from);
        expect(now[change.side][change.variable][change.set][change.point]).toBe(change.to);
      }
    }
    expect(progress[0]).toEqual({ agentID: id, done: 0, total: expect.any(Number) });
    expect(progress.at(-1)!.done).toBe(progress.at(-1)!.total);

    const second = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize' } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ basedOn: first.body.versionID, before: first.body.after, after: first.body.after, changes: [] });
    expect(second.body.definition).toEqual(first.body.definition);
    const versions = (await t.call('GET', `agent/${id}/version`, { key })).body;
    expect(versions.map((v: { id: string }) => v.id)).toEqual([agent.latestVersion, first.body.versionID, second.body.versionID]);
  });

  it("learns from this agent's evaluations only, counting each evaluation once", async () => {
    const key = await start();
    const small = await createAgent(key, lemonade.agent, 'small');
    const large = await createAgent(key, lemonade.agent, 'large');
    await playExplored(key, small, lemonade, 60, seededRandom(1));
    await playExplored(key, large, lemonade, 300, seededRandom(2));
    // a second value for the same metric on one evaluation replaces the first
    const { reqID } = (await evaluateBatch(key, small, [{ temperature: 20 }], '?explore=0.1'))[0]!;
    await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { profit: 1 } });
    await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { data: { profit: 2, cups: 3 } } });
    // someone else's feedback is never read
    const other = await t.signup('other');
    const theirs = await createAgent(other, lemonade.agent);
    await playExplored(other, theirs, lemonade, 100, seededRandom(3));
    const dryRun = { metric: 'profit', goal: 'maximize', dryRun: true };
    expect((await t.call('POST', `agent/${small}/optimize`, { key, body: dryRun })).body.evaluationsUsed).toBe(61);
    expect((await t.call('POST', `agent/${large}/optimize`, { key, body: dryRun })).body.evaluationsUsed).toBe(300);
    expect((await t.call('POST', `agent/${theirs}/optimize`, { key: other, body: dryRun })).body.evaluationsUsed).toBe(100);
  });

  it('names each moved number of a term by its member, from its old value to its new one', async () => {
    const key = await start();
    const id = await createAgent(key, gaussianCooling.agent);
    await playExplored(key, id, gaussianCooling, 150, seededRandom(4));
    const agent = (await t.call('GET', `agent/${id}`, { key })).body;
    const { status, body } = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'loss', goal: 'minimize', tuneInputs: true } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(optimizeResultSchema.parse(body)).toEqual(body);
    const now = (await t.call('GET', `agent/${id}`, { key })).body;
    const terms = body.changes.filter((change: { kind: string }) => change.kind === 'term');
    expect(terms.length).toBeGreaterThan(0);
    for (const change of terms) {
      expect(agent[change.side][change.variable][change.set].type).toBe(change.type);
      expect(agent[change.side][change.variable][change.set][change.parameter]).toBe(change.from);
      expect(now[change.side][change.variable][change.set][change.parameter]).toBe(change.to);
    }
    // the version's evidence says each change in words
    const report = (await t.call('GET', `agent/${id}/performance`, { key })).body;
    const evidence = report.versions.find((version: { id: string }) => version.id === body.versionID).evidence;
    expect(evidence.changes).toEqual(body.changes.map((change: Change) => describeChange(change)));
    expect(evidence.changes).toContain(`load: gaussian "heavy" mean 45 → ${now.inputs.load.heavy.mean}`);
  });

  it('moves input sets only when asked to', async () => {
    const key = await start();
    const id = await createAgent(key, cooling.agent);
    await playExplored(key, id, cooling, 300, seededRandom(4));
    const sides = async (body: object) => {
      const { status, body: result } = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'loss', goal: 'minimize', dryRun: true, ...body } });
      expect(status).toBe(200);
      return new Set(result.changes.filter((c: { kind: string }) => c.kind === 'set').map((c: { side: string }) => c.side));
    };
    expect(await sides({})).toEqual(new Set(['outputs']));
    expect((await sides({ tuneInputs: true })).has('inputs')).toBe(true);
  });

  it('only proposes on a dry run', async () => {
    const { key, id } = await explored();
    const before = await t.snapshot();
    const dry = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize', dryRun: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.versionID).toBeNull();
    expect(dry.body.changes.length).toBeGreaterThan(0);
    expect(await t.snapshot()).toBe(before);
  });

  it('answers 409 with how many more evaluations it needs', async () => {
    const { key, id } = await explored(lemonade, 30);
    const before = await t.snapshot();
    const { status, body } = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize' } });
    expect(status).toBe(409);
    // lemonade needs 50 (test/learn/optimize.test.ts works the number out); 30 are there
    expect(body).toMatchObject({ status: 'error', error: 'Conflict' });
    expect(body.message).toContain('20 more');
    expect(await t.snapshot()).toBe(before);
  });

  it('answers 409 when nothing was explored', async () => {
    const key = await start();
    const id = await createAgent(key, lemonade.agent);
    const random = seededRandom(2);
    const situations = Array.from({ length: 60 }, () => lemonade.situation(random));
    const answers = await evaluateBatch(key, id, situations);
    for (const [i, { outputs, reqID }] of answers.entries()) {
      await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { profit: lemonade.outcome(situations[i]!, outputs, random) } });
    }
    const { status, body } = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize' } });
    expect(status).toBe(409);
    expect(body.message).toContain('?explore=');
  });

  it('answers 400 for a metric no feedback carries, and for a malformed body', async () => {
    const { key, id } = await explored(lemonade, 60);
    const before = await t.snapshot();
    const unknown = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'revenue', goal: 'maximize' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('"revenue"');
    expect(unknown.body.message).toContain('profit');
    for (const body of [
      { metric: 'profit', goal: 'max' },
      { goal: 'maximize' },
      { metric: '', goal: 'minimize' },
      { metric: 'profit', goal: 'maximize', dryRun: 'yes' },
      { metric: 'profit', goal: 'maximize', tuneInputs: 1 },
      [],
      'profit',
    ]) {
      const answer = await t.call('POST', `agent/${id}/optimize`, { key, body: typeof body === 'string' ? JSON.stringify(body) : body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.issues.length).toBeGreaterThan(0);
    }
    expect(await t.snapshot()).toBe(before);
  });

  it("answers 404 for another account's agent and 410 for a deleted one", async () => {
    const { key, id } = await explored(lemonade, 60);
    const other = await t.signup('other');
    const foreign = await t.call('POST', `agent/${id}/optimize`, { key: other, body: { metric: 'profit', goal: 'maximize' } });
    expect(foreign.status).toBe(404);
    expect((await t.call('DELETE', `agent/${id}`, { key })).status).toBe(200);
    const gone = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric: 'profit', goal: 'maximize' } });
    expect(gone.status).toBe(410);
  });

  it('refuses to save over a version written while it optimized', async () => {
    t = await createTestService();
    const { userID, apiKey: key } = await t.service.createAccount();
    const first = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
    const second = (await t.call('PUT', `agent/${first.id}`, { key, body: tippingAgent('second') })).body;
    const before = await t.snapshot();
    const body = tippingAgent('optimised');
    await expect(t.store.updateAgentFrom(userID, first.id, first.latestVersion, body, [])).rejects.toMatchObject({ name: 'Conflict', status: 409 });
    expect(await t.snapshot()).toBe(before);
    const saved = await t.store.updateAgentFrom(userID, first.id, second.latestVersion, body, []);
    expect(saved).toMatchObject({ name: 'optimised', versionCount: 3 });
    expect((await t.call('GET', `agent/${first.id}/version`, { key })).body).toHaveLength(3);
  });
});
