// The lemonade stand of fuzzy.ai's own published app, github.com/fuzzy-ai/lemonade-stand (commit
// f0ae793): the seller and buyer agents verbatim from src/agents.coffee (JSON as published, rules
// as published, the seller without a name and with its `performance`), the protocol of
// src/simulation.coffee reproduced exactly. The code around them is ours.
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { AgentDefinition, Inputs } from '../../src/engine/types.js';
import type { Random } from '../../src/learn/random.js';
import type { ArenaWorld } from './arena.js';

/** src/agents.coffee, module.exports.seller */
export const seller = {
  inputs: {
    numBuyers: { 'very low': [0, 5], low: [0, 5, 10], medium: [5, 10, 15], high: [10, 15, 20], 'very high': [15, 20] },
    temperature: { 'very low': [0, 25], low: [0, 25, 50], medium: [25, 50, 75], high: [50, 75, 100], 'very high': [75, 100] },
    sunny: { false: [0, 0.5], true: [0.5, 1] },
  },
  outputs: {
    price: { 'very low': [0, 1.25], low: [0, 1.25, 2.5], medium: [1.25, 2.5, 3.75], high: [2.5, 3.75, 5], 'very high': [3.75, 5] },
  },
  performance: { profit: 'maximize' as const },
  rules: [
    'numBuyers DECREASES price WITH 0.10',
    'temperature DECREASES price WITH 1.0',
    'IF sunny IS true THEN price IS low WITH 0.50',
    'IF sunny IS false THEN price IS high  WITH 0.50',
  ],
};

/** src/agents.coffee, module.exports.buyer */
export const buyer: AgentDefinition & { name: string } = {
  name: 'Buyer',
  inputs: {
    price: { veryLow: [0, 1.25], low: [0, 1.25, 2.5], medium: [1.25, 2.5, 3.75], high: [2.5, 3.75, 5], veryHigh: [3.75, 5] },
    numBuyers: { 'very low': [0, 5], low: [0, 5, 10], medium: [5, 10, 15], high: [10, 15, 20], 'very high': [15, 20] },
    temperature: { 'very low': [0, 25], low: [0, 25, 50], medium: [25, 50, 75], high: [50, 75, 100], 'very high': [75, 100] },
    sunny: { false: [0, 0.5], true: [0.5, 1] },
  },
  outputs: {
    willBuy: { hellNo: [0, 0.25], no: [0, 0.25, 0.5], maybe: [0.25, 0.5, 0.75], yes: [0.5, 0.75, 1], omgYes: [0.75, 1] },
  },
  rules: [
    'price DECREASES willBuy WITH 1.0',
    'numBuyers DECREASES willBuy WITH 0.10',
    'temperature DECREASES willBuy WITH 0.75',
    'IF sunny IS true THEN willBuy IS no WITH 0.5',
    'IF sunny IS false THEN willBuy IS yes WITH 0.5',
  ],
};

/** simulation.coffee's defaults: `buyers` 100 a run (a day here), `threshold` 0.5, `cost` 0.50 */
export const BUYERS_PER_DAY = 100;
const THRESHOLD = 0.5;
const COST = 0.5;

const cents = (value: number) => Math.round(value * 100) / 100;
const buyerAgent = compileAgent(buyer);

/**
 * What one sale attempt earns (attemptSale in simulation.coffee): the seller's price rounded to
 * cents, the buyer agent asked with that price and the situation, a sale when its willBuy is above
 * the threshold, profit = price − cost rounded to cents, else 0.
 */
export function profitOf(situation: Inputs, price: number): number {
  const asked = cents(price);
  const { willBuy } = evaluate(buyerAgent, { price: asked, ...situation }).crisp;
  return willBuy! > THRESHOLD ? cents(asked - COST) : 0;
}

/**
 * The situations of `days` days, as simulation.coffee draws them: each day starts at temperature 32,
 * not sunny; before each buyer i (0 to 99) the weather is redrawn with probability ½
 * (Math.round(Math.random()) is 1), temperature = round(100 × random), sunny = round(random), and the
 * seller is sent numBuyers = 100 − i, unclamped although its sets cover 0 to 20. The app ran one day
 * per process; the days here follow each other on one agent.
 */
export function lemonadeDays(random: Random, count: number): Inputs[] {
  const situations: Inputs[] = [];
  let temperature = 32;
  let sunny = 0;
  for (let n = 0; n < count; n++) {
    const i = n % BUYERS_PER_DAY;
    if (i === 0) [temperature, sunny] = [32, 0];
    if (Math.round(random())) {
      temperature = Math.round(random() * 100);
      sunny = Math.round(random());
    }
    situations.push({ numBuyers: BUYERS_PER_DAY - i, temperature, sunny });
  }
  return situations;
}

/** The lemonade stand as a world of the arena: outcomes are deterministic, the buyer is the rule. */
export const lemonadeStand: ArenaWorld = {
  name: 'lemonade stand',
  metric: 'profit',
  agent: seller,
  asPublished: true,
  // a situation on its own, for the final answers: a buyer of the day with the weather as redrawn
  situation: (random) => ({ numBuyers: 1 + Math.floor(random() * BUYERS_PER_DAY), temperature: Math.round(random() * 100), sunny: Math.round(random()) }),
  sequence: lemonadeDays,
  ranges: { numBuyers: [1, BUYERS_PER_DAY], temperature: [0, 100], sunny: [0, 1] },
  expected: (situation, { price }) => profitOf(situation, price!),
  noise: () => 0,
};
