// Optimizing agents whose sets are named by their kind learns their numbers: a Takagi–Sugeno
// agent's linear coefficients come close to the least-squares plane of the world's best answers,
// and a misplaced Gaussian input set moves toward where the world needs it.

import { describe, expect, it } from 'vitest';
import type { AgentDefinition, Inputs, TermDefinition } from '../../src/engine/types.js';
import { optimizeAgent } from '../../src/learn/index.js';
import { gaussian, seededRandom, type Random } from '../../src/learn/random.js';
import { autopilotPlayer, play, staticPlayer, type ArenaWorld } from './arena.js';
import { bestAnswer, explorePlaying, gaussianCooling, meanOutcome, plane, type World } from './worlds.js';

const uniform = (random: Random, min: number, max: number) => min + (max - min) * random();

/** The least-squares plane [constant, x, y] of the best answers at these situations, by the normal equations. */
function leastSquaresPlane(situations: readonly Inputs[]): [number, number, number] {
  const rows = situations.map(({ x, y }) => [1, x!, y!]);
  const targets = situations.map(bestAnswer);
  const a = [0, 1, 2].map((i) => [0, 1, 2].map((j) => rows.reduce((sum, row) => sum + row[i]! * row[j]!, 0)));
  const b = [0, 1, 2].map((i) => rows.reduce((sum, row, k) => sum + row[i]! * targets[k]!, 0));
  // Gaussian elimination with partial pivoting on the 3 × 3 system
  for (let col = 0; col < 3; col++) {
    const pivot = [col, col + 1, col + 2].filter((r) => r < 3).reduce((best, r) => (Math.abs(a[r]![col]!) > Math.abs(a[best]![col]!) ? r : best));
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    for (let r = col + 1; r < 3; r++) {
      const factor = a[r]![col]! / a[col]![col]!;
      for (let c = col; c < 3; c++) a[r]![c]! -= factor * a[col]![c]!;
      b[r]! -= factor * b[col]!;
    }
  }
  const solution = [0, 0, 0];
  for (let r = 2; r >= 0; r--) solution[r] = (b[r]! - [0, 1, 2].slice(r + 1).reduce((sum, c) => sum + a[r]![c]! * solution[c]!, 0)) / a[r]![r]!;
  return solution as [number, number, number];
}

const planeOf = (definition: AgentDefinition): [number, number, number] => {
  const term = definition.outputs.z!.plane as Extract<TermDefinition, { type: 'linear' }>;
  return [term.constant ?? 0, term.coefficients.x!, term.coefficients.y!];
};

describe('optimizing terms named by their kind', () => {
  it('brings a Takagi–Sugeno plane close to the least-squares plane of the best answers', async () => {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      let agent = plane.agent;
      const situations: Inputs[] = [];
      // two rounds of explore → optimize, the second exploring more narrowly: one round moves the agent
      // by about the exploration's spread, and a narrower one tells nearby answers apart more finely
      for (const exploration of [0.1, 0.05]) {
        const log = explorePlaying(plane, agent, 2000, exploration, random);
        situations.push(...log.map((entry) => entry.input));
        const result = await optimizeAgent(agent, log, { goal: 'minimize', seed, estimationPoints: 1000 });
        if (result.status !== 'optimized') throw new Error(result.message);
        expect(result.changes.every((change) => change.kind !== 'set')).toBe(true);
        agent = result.definition;
      }
      const truth = leastSquaresPlane(situations);
      const [start, learnt] = [planeOf(plane.agent), planeOf(agent)];
      // each tilt within 0.15 of the truth (it started 1 away), the height at the inputs' middle within 0.5
      expect(Math.abs(learnt[1] - truth[1]), `seed ${seed}: ${learnt} against ${truth}`).toBeLessThan(0.15);
      expect(Math.abs(learnt[2] - truth[2]), `seed ${seed}: ${learnt} against ${truth}`).toBeLessThan(0.15);
      const atMiddle = (p: readonly number[]) => p[0]! + 5 * p[1]! + 5 * p[2]!;
      expect(Math.abs(atMiddle(learnt) - atMiddle(truth)), `seed ${seed}`).toBeLessThan(0.5);
      expect(Math.abs(atMiddle(start) - atMiddle(truth))).toBeGreaterThan(2);
    }
  }, 120_000);

  it('moves a misplaced Gaussian input set toward where the world needs it, and estimates a gain that is there', async () => {
    const heavyMean = (definition: AgentDefinition) => (definition.inputs.load!.heavy as { mean: number }).mean;
    // the heavy mean that loses least, all else as given: the world's expected loss on a grid of means
    const fresh = Array.from({ length: 2000 }, (_, i) => ({ load: (i + 0.5) / 20 }));
    const lossWith = (mean: number) => {
      const agent = {
        ...gaussianCooling.agent,
        inputs: { load: { ...gaussianCooling.agent.inputs.load!, heavy: { type: 'gaussian', mean, standardDeviation: 15 } as const } },
      };
      return meanOutcome(gaussianCooling, agent, fresh, () => 0.5);
    };
    const grid = Array.from({ length: 51 }, (_, i) => 40 + i);
    const best = grid.reduce((b, mean) => (lossWith(mean) < lossWith(b) ? mean : b));
    expect(best).toBeGreaterThan(60);
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      const log = explorePlaying(gaussianCooling, gaussianCooling.agent, 600, 0.15, random);
      const result = await optimizeAgent(gaussianCooling.agent, log, { goal: 'minimize', seed, tuneInputs: true });
      if (result.status !== 'optimized') throw new Error(result.message);
      const moved = heavyMean(result.definition);
      expect(Math.abs(moved - best), `seed ${seed}: ${moved}, best ${best}`).toBeLessThan(0.5 * Math.abs(45 - best));
      expect(result.changes).toContainEqual({
        kind: 'term',
        side: 'inputs',
        variable: 'load',
        set: 'heavy',
        type: 'gaussian',
        parameter: 'mean',
        from: 45,
        to: moved,
      });
      // the estimate says it gains, and it does on fresh plain answers
      expect(result.before - result.after).toBeGreaterThan(0);
      const [before, after] = [gaussianCooling.agent, result.definition].map((agent) => meanOutcome(gaussianCooling, agent, fresh, seededRandom(7)));
      expect(after!, `seed ${seed}`).toBeLessThan(0.7 * before!);
    }
  }, 120_000);
});

/**
 * The Takagi–Sugeno plane through the service: an app only evaluates and posts its score (the
 * negated squared miss) as feedback. Three inputs, so that autopilot keeps tuning the agent's own
 * numbers for the first 675 evaluations rather than proposing a table agent (src/learn/cells.ts).
 */
const planeArena: ArenaWorld = {
  name: 'Takagi–Sugeno plane',
  metric: 'score',
  agent: {
    inputs: { x: { all: [0, 0, 10, 10] }, y: { all: [0, 0, 10, 10] }, w: { all: [0, 0, 10, 10] } },
    outputs: { z: { plane: { type: 'linear', coefficients: { x: 1, y: 0, w: 0.5 }, constant: 15 } } },
    rules: ['IF x IS all AND y IS all AND w IS all THEN z IS plane'],
    operators: { ranges: { z: [0, 40] } },
    performance: { score: 'maximize' },
  },
  situation: (random) => ({ x: uniform(random, 0, 10), y: uniform(random, 0, 10), w: uniform(random, 0, 10) }),
  expected: (situation, { z }) => -((z! - bestAnswer(situation)) ** 2),
  noise: (random) => gaussian(random),
};

describe('autopilot on terms named by their kind', () => {
  it('proposes, tries and adopts versions whose linear coefficients moved, and they lose less', async () => {
    const player = await autopilotPlayer(planeArena, 1);
    const fixed = await play(planeArena, staticPlayer(planeArena), 500, 1);
    const learnt = await play(planeArena, player, 500, 1);
    await player.service.idle();
    const { body: state } = await player.call('GET', `agent/${player.agentID}/autopilot`);
    const { body: agent } = await player.call('GET', `agent/${player.agentID}`);
    const { body: versions } = await player.call('GET', `agent/${player.agentID}/version`);
    await player.close();
    const adopted = state.trials.filter((trial: { outcome: string }) => trial.outcome === 'adopted');
    expect(adopted.length).toBeGreaterThan(0);
    expect(versions.find((version: { id: string }) => version.id === agent.latestVersion).origin).toBe('autopilot');
    // the latest version is the agent's own structure with other numbers: a plane that moved
    expect(agent.rules).toEqual(planeArena.agent.rules);
    const term = agent.outputs.z.plane as Extract<TermDefinition, { type: 'linear' }>;
    expect(term.type).toBe('linear');
    expect(term.coefficients).not.toEqual({ x: 1, y: 0, w: 0.5 });
    expect(learnt.final, `${JSON.stringify(term)}: ${learnt.final} against ${fixed.final}`).toBeGreaterThan(fixed.final + 0.3 * Math.abs(fixed.final));
  }, 300_000);
});

describe('structure with terms named by their kind', () => {
  it('tunes a Takagi–Sugeno agent’s own numbers where a table agent (triangles) could not answer for its weighed output', async () => {
    const oneInput: World = {
      ...plane,
      agent: {
        inputs: { x: { all: [0, 0, 10, 10] } },
        outputs: { z: { plane: { type: 'linear', coefficients: { x: 1 }, constant: 18 } } },
        rules: ['IF x IS all THEN z IS plane'],
        operators: { ranges: { z: [0, 40] } },
      },
      situation: (random) => ({ x: 10 * random() }),
      outcome: ({ x }, answer, random) => plane.outcome({ x: x!, y: 5 }, answer, random),
    };
    const log = explorePlaying(oneInput, oneInput.agent, 400, 0.1, seededRandom(1));
    const result = await optimizeAgent(oneInput.agent, log, { goal: 'minimize', seed: 1, structure: true });
    if (result.status !== 'optimized') throw new Error(result.message);
    expect(result.definition.rules).toEqual(oneInput.agent.rules);
    expect(result.changes.some((change) => change.kind === 'term' && change.parameter === 'coefficients')).toBe(true);
    expect(result.after).toBeLessThan(result.before);
  });
});
