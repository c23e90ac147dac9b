import type { AgentBody } from '../src/schema/index.js';

/**
 * The classic tipping problem: how much to tip, given how good the service and the food were.
 * Scores run from 0 to 10, the tip is a percentage of the bill.
 */
export const sampleAgent: AgentBody = {
  name: 'Tipping advisor',
  inputs: {
    service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] },
    food: { bad: [1, 4], tasty: [6, 9] },
  },
  outputs: {
    tip: { low: [0, 5, 10], average: [10, 15, 20], generous: [20, 25, 30] },
  },
  rules: [
    'IF service IS poor OR food IS bad THEN tip IS low',
    'IF service IS good THEN tip IS average',
    'IF service IS excellent OR food IS tasty THEN tip IS generous',
  ],
};

/** Where the sliders start: several rules fire, so every step of the drawing has something to show. */
export const sampleInputs = { service: 6.5, food: 7.5 };
