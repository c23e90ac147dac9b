// compareAgents: what one version gains over another, estimated from a log both answered with
// autopilot's exploration, against the gain computed from the world's hidden rule.
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { AgentDefinition } from '../../src/engine/types.js';
import type { LoggedEvaluation } from '../../src/learn/dataset.js';
import { compareAgents } from '../../src/learn/optimize.js';
import { exploreTruncated, NARROWEST_SPREAD } from '../../src/learn/policy.js';
import { seededRandom } from '../../src/learn/random.js';
import { worlds, type ArenaWorld } from './arena.js';

const world = (name: string) => worlds.find((w) => w.name === name)!;

/** The arena's lemonade agent with its price sets moved to better prices: below the cliff where there is one. */
function better(w: ArenaWorld): AgentDefinition {
  const { performance: _none, ...agent } = w.agent;
  const price =
    w.name === 'cliff'
      ? { low: [0.5, 0.7, 0.8], medium: [0.6, 0.75, 0.9], high: [1.6, 1.9, 2.2] }
      : { low: [0.6, 0.9, 1.2], medium: [1.2, 1.5, 1.8], high: [1.9, 2.2, 2.5] };
  return { ...agent, outputs: { ...agent.outputs, price } };
}

/** `first` answers the first `share` of the log, `second` the rest, each with autopilot's exploration. */
function logOf(w: ArenaWorld, first: AgentDefinition, second: AgentDefinition, size: number, seed: number, share = 0.5): LoggedEvaluation[] {
  const random = seededRandom(seed);
  return Array.from({ length: size }, (_, i) => {
    const compiled = compileAgent(i < size * share ? first : second);
    const input = w.situation(random);
    const { crisp } = evaluate(compiled, input);
    const { returned, density } = exploreTruncated(crisp, compiled.outputs, NARROWEST_SPREAD, random);
    return { input, crisp, returned, density, metric: w.expected(input, returned, 0) + w.noise(random) };
  });
}

/** The true gain of `after`'s plain answers over `before`'s, from the world's rule, over fresh situations. */
function trueGain(w: ArenaWorld, before: AgentDefinition, after: AgentDefinition): number {
  const random = seededRandom(99);
  const [a, b] = [compileAgent(before), compileAgent(after)];
  let sum = 0;
  for (let i = 0; i < 4000; i++) {
    const situation = w.situation(random);
    sum += w.expected(situation, evaluate(b, situation).crisp, 0) - w.expected(situation, evaluate(a, situation).crisp, 0);
  }
  return sum / 4000;
}

describe('compareAgents', () => {
  for (const name of ['heavy tails', 'two outputs', 'cliff']) {
    it(`estimates what a version gained over one that served before it within ±30%, its interval above 0 (${name})`, async () => {
      const w = world(name);
      const truth = trueGain(w, w.agent, better(w));
      expect(truth).toBeGreaterThan(3);
      for (const seed of [1, 2, 3]) {
        const estimate = (await compareAgents(w.agent, better(w), logOf(w, w.agent, better(w), 1000, seed)))!;
        expect(Math.abs(estimate.gain.value / truth - 1), `seed ${seed}: ${estimate.gain.value} against ${truth}`).toBeLessThan(0.3);
        expect(estimate.gain.low).toBeGreaterThan(0);
      }
    }, 60_000);
  }

  // far optimum: the earlier version's answers lie far below the later one's, so where it served few
  // evaluations the model's estimate of it leans on the later ones; one correction averaged over the
  // whole log left most of that error (seed 2: −57%); a correction per situation brings it within ±30%
  it("estimates it as well when the earlier version served only a tenth of the log, as autopilot's first version does", async () => {
    for (const name of ['heavy tails', 'two outputs', 'far optimum']) {
      const w = world(name);
      const truth = trueGain(w, w.agent, better(w));
      for (const seed of [1, 2, 3]) {
        const estimate = (await compareAgents(w.agent, better(w), logOf(w, w.agent, better(w), 1000, seed, 0.1)))!;
        expect(Math.abs(estimate.gain.value / truth - 1), `${name}, seed ${seed}: ${estimate.gain.value} against ${truth}`).toBeLessThan(0.3);
      }
    }
  }, 60_000);

  it('finds no gain between a version and itself, with no uncertainty: both sides move together', async () => {
    const w = world('heavy tails');
    const estimate = (await compareAgents(w.agent, w.agent, logOf(w, w.agent, w.agent, 1000, 4)))!;
    // adding the two sides' variances, as if independent, gave ±1.39 here
    expect(estimate.gain).toEqual({ value: 0, low: 0, high: 0 });
    expect(estimate.before.high - estimate.before.low).toBeGreaterThan(0.1);
  });

  it('is not moved by one wild metric value', async () => {
    const w = world('heavy tails');
    const log = logOf(w, w.agent, better(w), 1000, 5);
    const plain = (await compareAgents(w.agent, better(w), log))!.gain.value;
    log[900] = { ...log[900]!, metric: 1e6 };
    const wild = (await compareAgents(w.agent, better(w), log))!.gain.value;
    expect(Math.abs(wild - plain)).toBeLessThan(0.1 * Math.abs(plain));
  });

  it('needs densities and enough evaluations', async () => {
    const w = world('heavy tails');
    const log = logOf(w, w.agent, better(w), 1000, 6);
    expect(
      await compareAgents(
        w.agent,
        better(w),
        log.map(({ density: _none, ...entry }) => entry),
      ),
    ).toBeUndefined();
    expect(await compareAgents(w.agent, better(w), log.slice(0, 49))).toBeUndefined();
  });
});
