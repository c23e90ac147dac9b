// Simulated worlds for proving the optimizer. Each world's rule (how the metric follows from the
// situation and the agent's answer) is hidden from the agent: the optimizer only ever sees logged
// inputs, returned outputs and the metric, exactly as the REST service stores them.
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { AgentDefinition, Inputs, Outputs } from '../../src/engine/types.js';
import type { LoggedEvaluation } from '../../src/learn/dataset.js';
import { explore } from '../../src/learn/explore.js';
import { gaussian, type Random } from '../../src/learn/random.js';
import type { Goal } from '../../src/learn/optimize.js';

export interface World {
  readonly name: string;
  readonly metric: string;
  readonly goal: Goal;
  /** a deliberately poor agent with sensible structure (the right rules) and wrong numbers */
  readonly agent: AgentDefinition;
  situation(random: Random): Inputs;
  /** the metric the world answers with, noise included */
  outcome(situation: Inputs, answer: Outputs, random: Random): number;
}

const uniform = (random: Random, min: number, max: number) => min + (max - min) * random();

/**
 * A lemonade stand setting its price by the temperature. Customers come in proportion to the heat
 * and buy less as the price rises, sales = potential × exp(−(price) / tolerance(T)), so the profit
 * (price − cost) × sales peaks at price = cost + tolerance(T): from 0.80 at 10 °C to 2.30 at 40 °C.
 * The starting agent prices everything between 0.20 and about 1.10.
 */
export const lemonade: World = {
  name: 'lemonade stand',
  metric: 'profit',
  goal: 'maximize',
  agent: {
    inputs: { temperature: { cold: [10, 25], warm: [10, 25, 40], hot: [25, 40] } },
    outputs: { price: { low: [0, 0.2, 0.5], medium: [0.2, 0.5, 0.8], high: [0.5, 0.8, 3] } },
    rules: ['IF temperature IS cold THEN price IS low', 'IF temperature IS warm THEN price IS medium', 'IF temperature IS hot THEN price IS high'],
  },
  situation: (random) => ({ temperature: uniform(random, 10, 40) }),
  outcome: ({ temperature }, { price }, random) => {
    const heat = temperature! - 10;
    const potential = 40 + 4 * heat;
    const tolerance = 0.5 + 0.05 * heat;
    const sales = potential * Math.exp(-price! / tolerance);
    return (price! - 0.3) * sales + gaussian(random) * 2;
  },
};

/**
 * Irrigation: how much water to give a field given its soil moisture and the temperature. The plants'
 * need is 0.25 L per % of moisture below 60 plus 0.3 L per °C above 10; the loss to minimise is the
 * plants' stress, squared distance from that need, plus the water's price. The starting agent
 * gives far too little water when it is hot and dry.
 */
export const irrigation: World = {
  name: 'irrigation',
  metric: 'loss',
  goal: 'minimize',
  agent: {
    inputs: {
      moisture: { dry: [0, 50], moist: [0, 50, 100], wet: [50, 100] },
      temperature: { cool: [10, 35], hot: [15, 40] },
    },
    outputs: { water: { none: [0, 0, 2], some: [1, 2.5, 4], plenty: [2.5, 5, 20] } },
    rules: [
      'IF moisture IS wet THEN water IS none',
      'IF moisture IS moist AND temperature IS cool THEN water IS none',
      'IF moisture IS moist AND temperature IS hot THEN water IS some',
      'IF moisture IS dry AND temperature IS cool THEN water IS some',
      'IF moisture IS dry AND temperature IS hot THEN water IS plenty',
    ],
  },
  situation: (random) => ({ moisture: uniform(random, 0, 100), temperature: uniform(random, 10, 40) }),
  outcome: ({ moisture, temperature }, { water }, random) => {
    const need = Math.max(0, 0.25 * (60 - moisture!)) + 0.3 * (temperature! - 10);
    return (water! - need) ** 2 / 4 + 0.2 * water! + gaussian(random) * 0.5;
  },
};

/**
 * Cooling a server room: 2 fans are right below 70% load, 8 from there on, and the loss is the squared
 * miss. The starting agent's outputs are right but its input sets hand over from "light" to "heavy"
 * around 35% load: only moving the input sets can fix that.
 */
export const cooling: World = {
  name: 'cooling',
  metric: 'loss',
  goal: 'minimize',
  agent: {
    inputs: { load: { light: [0, 0, 20, 50], heavy: [20, 50, 100, 100] } },
    outputs: { fans: { few: [0, 2, 4], many: [6, 8, 10] } },
    rules: ['IF load IS light THEN fans IS few', 'IF load IS heavy THEN fans IS many'],
  },
  situation: (random) => ({ load: uniform(random, 0, 100) }),
  outcome: ({ load }, { fans }, random) => (fans! - (load! < 70 ? 2 : 8)) ** 2 + gaussian(random),
};

/** The best answer of the Takagi–Sugeno world: a plane in x and y with a bend in x, which no plane follows exactly. */
export const bestAnswer = ({ x, y }: Inputs) => 2 * x! - y! + 15 + 0.08 * (x! - 5) ** 2;

/**
 * A world whose loss is the squared distance of the answer from bestAnswer: the plane that loses
 * least is the least-squares plane of the best answers over the situations. The agent's plane
 * starts with the wrong tilts and height.
 */
export const plane: World = {
  name: 'plane',
  metric: 'loss',
  goal: 'minimize',
  agent: {
    inputs: { x: { all: [0, 0, 10, 10] }, y: { all: [0, 0, 10, 10] } },
    outputs: { z: { plane: { type: 'linear', coefficients: { x: 1, y: 0 }, constant: 18 } } },
    rules: ['IF x IS all AND y IS all THEN z IS plane'],
    operators: { ranges: { z: [0, 40] } },
  },
  situation: (random) => ({ x: uniform(random, 0, 10), y: uniform(random, 0, 10) }),
  outcome: (situation, { z }, random) => (z! - bestAnswer(situation)) ** 2 + gaussian(random),
};

/**
 * Cooling a server room by its load: 2 fans are right below 70% load, 8 from there on. The agent's
 * input sets are Gaussians, and "heavy" is centred at 45% where the hand-over should be about 70%.
 */
export const gaussianCooling: World = {
  name: 'Gaussian cooling',
  metric: 'loss',
  goal: 'minimize',
  agent: {
    inputs: {
      load: { light: { type: 'gaussian', mean: 0, standardDeviation: 25 }, heavy: { type: 'gaussian', mean: 45, standardDeviation: 15 } },
    },
    outputs: { fans: { few: [0, 2, 4], many: [6, 8, 10] } },
    rules: ['IF load IS light THEN fans IS few', 'IF load IS heavy THEN fans IS many'],
    operators: { ranges: { load: [0, 100] } },
  },
  situation: (random) => ({ load: uniform(random, 0, 100) }),
  outcome: ({ load }, { fans }, random) => (fans! - (load! < 70 ? 2 : 8)) ** 2 + gaussian(random),
};

/** Evaluates `definition` in `count` situations, returning answers moved by `exploration` noise, and logs each outcome. */
export function explorePlaying(world: World, definition: AgentDefinition, count: number, exploration: number, random: Random): LoggedEvaluation[] {
  const compiled = compileAgent(definition);
  return Array.from({ length: count }, () => {
    const input = world.situation(random);
    const { crisp } = evaluate(compiled, input);
    const returned = explore(crisp, compiled.outputs, exploration, random);
    return { input, crisp, returned, metric: world.outcome(input, returned, random) };
  });
}

/** The mean outcome of `definition` answering plainly (no exploration) in the given situations. */
export function meanOutcome(world: World, definition: AgentDefinition, situations: readonly Inputs[], random: Random): number {
  const compiled = compileAgent(definition);
  const total = situations.reduce((sum, input) => sum + world.outcome(input, evaluate(compiled, input).crisp, random), 0);
  return total / situations.length;
}
