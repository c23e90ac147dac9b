// A family of worlds nobody chose: each seed draws a world (its inputs, outputs, how the outcome
// follows from the situation and the answer, its noise, drift and how situations follow each other)
// and a plausible starting agent that a person could have written for it, with the right rules'
// directions most of the time and numbers off. The learner never sees the world's rule.
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { AgentDefinition, Inputs, Outputs } from '../../src/engine/types.js';
import { gaussian, seededRandom, type Random } from '../../src/learn/random.js';
import type { ArenaWorld } from './arena.js';

/** evaluations per day: the family's runs are 10 days of 120 */
export const FAMILY_DAY = 120;

type Shape = 'peak' | 'cliff' | 'noisy cliff' | 'ridge' | 'interacting';
type Noise = 'gaussian' | 'heavy-tailed' | 'bernoulli';
type Flow = 'independent' | 'lasting' | 'daily';

/** The share of what there is to earn that a person's starting agent earns at least. */
const ENOUGH = 0.2;

/** What a drawn world is, in words, for the reports. */
export interface FamilyWorld extends ArenaWorld {
  readonly seed: number;
  /** whether the starting agent earns ENOUGH: randomWorlds leaves out the worlds where no guess of the person's does */
  readonly plausible: boolean;
  readonly traits: { inputs: number; outside: number; binary: number; outputs: number; shape: Shape; noise: Noise; flow: Flow; drift: boolean };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, min: number, max: number) => min + (max - min) * random();
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const round = (value: number) => Number(value.toPrecision(3));

const INPUT_NAMES = ['demand', 'temperature', 'stock', 'weekend'];
const OUTPUT_NAMES = ['price', 'effort'];

/**
 * The world of `seed`. In shares of each range (situation s ∈ [0, 1] per input, answer a ∈ [0, 1]
 * per output), the best answer a*(s) is a line in the situation plus, for some, a product of two
 * inputs, between 0.1 and 0.9; the outcome is height(s) × shape(a − a*), height rising with
 * the situation; shapes: a smooth peak; a cliff (earnings rise up to a* and fall to a loss past
 * it), exact or with the edge moving by noise; a ridge (two outputs trade off along a line); two
 * outputs whose best values interact.
 */
export function randomWorld(seed: number): FamilyWorld {
  const random = seededRandom(seed * 7919 + 17);
  const inputCount = 1 + Math.floor(random() * 4);
  const outputCount = random() < 0.6 ? 1 : 2;
  const shape: Shape =
    outputCount === 1 ? pick(random, ['peak', 'cliff', 'noisy cliff'] as const) : pick(random, ['peak', 'ridge', 'interacting', 'cliff'] as const);
  const noise: Noise = pick(random, ['gaussian', 'gaussian', 'heavy-tailed', 'bernoulli'] as const);
  const flow: Flow = pick(random, ['independent', 'lasting', 'daily'] as const);
  const drift = random() < 0.3;

  const inputs = INPUT_NAMES.slice(0, inputCount).map((name) => {
    const binary = random() < 0.2;
    const max = binary ? 1 : pick(random, [10, 40, 100]);
    // the person's sets cover only part of what is sent (numBuyers 100 against sets up to 20)
    const outside = !binary && random() < 0.3;
    const covered = outside ? round(max * between(random, 0.2, 0.6)) : max;
    return { name, binary, max, outside, covered };
  });
  const outputs = OUTPUT_NAMES.slice(0, outputCount).map((name) => ({ name, max: pick(random, [1, 5, 10, 100]) }));

  // the best answer per output: a line in the (capped) situation, plus a product of two inputs for some
  const line = outputs.map(() => ({
    base: between(random, 0.2, 0.6),
    slopes: inputs.map(() => (random() < 0.75 ? between(random, -0.4, 0.4) : 0)),
    product: inputCount > 1 && random() < 0.4 ? between(random, -0.3, 0.3) : 0,
    drift: drift ? between(random, -0.25, 0.25) : 0,
  }));
  const heightSlopes = inputs.map(() => between(random, 0, 1.5));
  const scale = pick(random, [1, 10, 100]);
  const width = between(random, 0.12, 0.3);
  const noiseLevel = between(random, 0.1, 0.5);
  const ridgeWeight = between(random, 0.2, 0.8);
  const coupling = between(random, -0.8, 0.8);
  const persistence = between(random, 0.3, 0.9);

  const shares = (situation: Inputs) => inputs.map(({ name, max }) => clamp(situation[name]! / max, 0, 1));
  const best = (s: number[], progress: number) =>
    line.map(({ base, slopes, product, drift: shift }) => {
      const value =
        base + slopes.reduce((sum, slope, j) => sum + slope * (s[j]! - 0.5), 0) + product * (s[0]! - 0.5) * ((s[1] ?? 0.5) - 0.5) * 4 + shift * progress;
      return clamp(value, 0.1, 0.9);
    });
  const height = (s: number[]) =>
    (scale * (1 + heightSlopes.reduce((sum, slope, j) => sum + slope * s[j]!, 0))) / (1 + heightSlopes.reduce((a, b) => a + b, 0) / 2);
  const peak = (miss: number) => Math.exp(-(miss * miss) / (2 * width * width));
  /** shape(a − a*), at most 1 */
  const shapeValue = (a: number[], target: number[], edge = 0): number => {
    switch (shape) {
      case 'peak':
        return a.reduce((product, value, o) => product * peak(value - target[o]!), 1);
      case 'cliff':
      case 'noisy cliff': {
        // earn in proportion up to the edge, lose past it; a second output, if any, is a peak
        const limit = target[0]! + edge;
        const first = a[0]! <= limit ? a[0]! / limit : -0.3;
        return a.length > 1 ? first * peak(a[1]! - target[1]!) : first;
      }
      case 'ridge': {
        // only the sum matters much: a long valley of good answers, its best point towards target
        const along = a[0]! + a[1]! - target[0]! - target[1]!;
        const across = a[0]! - a[1]! - (target[0]! - target[1]!);
        return peak(along) * (1 - ridgeWeight * across * across);
      }
      case 'interacting': {
        // the second output's best value moves with the first's
        const second = target[1]! + coupling * (a[0]! - target[0]!);
        return peak(a[0]! - target[0]!) * peak(a[1]! - second);
      }
    }
  };
  const answerShares = (answer: Outputs) => outputs.map(({ name, max }) => clamp(answer[name]! / max, 0, 1));
  // Bernoulli outcomes are never below 0: a loss past a cliff is then no success
  const floor = noise === 'bernoulli' ? 0 : -Infinity;
  const expected = (situation: Inputs, answer: Outputs, progress: number, edge = 0) => {
    const s = shares(situation);
    return Math.max(floor, height(s) * shapeValue(answerShares(answer), best(s, progress), edge));
  };
  // the largest outcome: Bernoulli outcomes are that or 0, with the chance expected / that
  const top = (scale * (1 + heightSlopes.reduce((a, b) => a + b, 0))) / (1 + heightSlopes.reduce((a, b) => a + b, 0) / 2);

  /** the least, at the start and at the end of a run, of an agent's mean outcome over `situations` against the mean height there */
  const earning = (definition: AgentDefinition, situations: readonly Inputs[]) => {
    const compiled = compileAgent(definition);
    const meanAt = (progress: number) => situations.reduce((sum, situation) => sum + expected(situation, evaluate(compiled, situation).crisp, progress), 0);
    return Math.min(meanAt(0), meanAt(1)) / situations.reduce((sum, situation) => sum + height(shares(situation)), 0);
  };
  const draw = (r: Random): Inputs => Object.fromEntries(inputs.map(({ name, binary, max }) => [name, binary ? Math.round(r()) : round(r() * max)]));

  // the person's agent: low/medium/high (no/yes for 0/1) over what they expect, one rule per set,
  // the direction right three times in four, the output's sets a little off where the best is
  const agentInputs: AgentDefinition['inputs'] = Object.fromEntries(
    inputs.map(({ name, binary, covered }): [string, Record<string, number[]>] => [
      name,
      binary
        ? { no: [0, 0.5], yes: [0.5, 1] }
        : { low: [0, round(covered / 2)], medium: [0, round(covered / 2), covered], high: [round(covered / 2), covered] },
    ]),
  );
  // a person would notice an agent that loses: their guess of where the best answers lie is redrawn,
  // lower each time, until it earns a fifth of what is there to earn on average over 200 situations
  // (cliffs punish guessing high)
  const agentOutputsAt = (lower: number) =>
    Object.fromEntries(
      outputs.map(({ name, max }) => {
        const centre = clamp(between(random, 0.3, 0.6) - lower, 0.15, 0.8);
        const spread = between(random, 0.1, 0.25);
        const at = (share: number) => round(clamp(share, 0, 1) * max);
        return [
          name,
          {
            low: [0, at(centre - spread), at(centre)],
            medium: [at(centre - spread), at(centre), at(centre + spread)],
            high: [at(centre), at(centre + spread), max],
          },
        ];
      }),
    );
  const rules: string[] = [];
  for (const [o, { name: output }] of outputs.entries()) {
    const slopes = line[o]!.slopes;
    const mattering = inputs.filter((_, j) => Math.abs(slopes[j]!) > 0.1);
    for (const input of mattering.length > 0 ? mattering : inputs.slice(0, 1)) {
      const j = inputs.indexOf(input);
      const rises = slopes[j]! >= 0 === random() < 0.75;
      const [lowTerm, highTerm] = input.binary ? ['no', 'yes'] : ['low', 'high'];
      rules.push(`IF ${input.name} IS ${lowTerm} THEN ${output} IS ${rises ? 'low' : 'high'}`);
      if (!input.binary) rules.push(`IF ${input.name} IS medium THEN ${output} IS medium`);
      rules.push(`IF ${input.name} IS ${highTerm} THEN ${output} IS ${rises ? 'high' : 'low'}`);
    }
  }
  const sample = Array.from({ length: 200 }, () => draw(random));
  let agent: AgentDefinition & { performance: Record<string, 'maximize'> } = {
    inputs: agentInputs,
    outputs: agentOutputsAt(0),
    rules,
    performance: { value: 'maximize' },
  };
  for (let attempt = 1; attempt <= 15 && earning(agent, sample) < ENOUGH; attempt++) agent = { ...agent, outputs: agentOutputsAt(0.04 * attempt) };
  const edgeNoise = shape === 'noisy cliff' ? between(random, 0.03, 0.1) : 0;
  const world: FamilyWorld = {
    name: `world ${seed}`,
    seed,
    plausible: earning(agent, sample) >= ENOUGH,
    metric: 'value',
    agent,
    traits: {
      inputs: inputCount,
      outside: inputs.filter((i) => i.outside).length,
      binary: inputs.filter((i) => i.binary).length,
      outputs: outputCount,
      shape,
      noise,
      flow,
      drift,
    },
    ranges: Object.fromEntries(inputs.map(({ name, max }) => [name, [0, max] as const])),
    situation: draw,
    sequence: (r, count) => {
      const situations: Inputs[] = [];
      let current = draw(r);
      for (let i = 0; i < count; i++) {
        if (flow === 'independent' || (flow === 'lasting' && r() > persistence) || (flow === 'daily' && i % FAMILY_DAY === 0)) current = draw(r);
        situations.push(current);
      }
      return situations;
    },
    expected,
    noise: (r, value) => {
      if (noise === 'bernoulli') return (r() < clamp(value! / top, 0, 1) ? top : 0) - value!;
      if (noise === 'heavy-tailed') {
        const chi = gaussian(r) ** 2 + gaussian(r) ** 2;
        return (noiseLevel * scale * gaussian(r)) / Math.sqrt(chi / 2);
      }
      return noiseLevel * scale * gaussian(r);
    },
  };
  if (edgeNoise === 0) return world;
  // a noisy cliff: nobody knows exactly where the edge is (Gaussian around a*), so the expected
  // outcome averages over it: the loss begins before a*, and grows with the answer
  const edges = Array.from({ length: 9 }, (_, i) => edgeNoise * (-2 + i / 2));
  const weights = edges.map((edge) => Math.exp(-(edge * edge) / (2 * edgeNoise * edgeNoise)));
  const total = weights.reduce((a, b) => a + b, 0);
  return {
    ...world,
    expected: (situation, answer, progress) => edges.reduce((sum, edge, i) => sum + (weights[i]! / total) * expected(situation, answer, progress, edge), 0),
  };
}

/** `count` plausible worlds, from seed `first` on. */
export function randomWorlds(first: number, count: number): FamilyWorld[] {
  const worlds: FamilyWorld[] = [];
  for (let seed = first; worlds.length < count; seed++) {
    const world = randomWorld(seed);
    if (world.plausible) worlds.push(world);
  }
  return worlds;
}
