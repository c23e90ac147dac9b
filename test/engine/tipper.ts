import type { AgentDefinition } from '../../src/engine/index.js';

const levels = { service: ['poor', 'good', 'excellent'], food: ['rancid', 'okay', 'delicious'] };
const tips = [
  ['cheap', 'cheap', 'average'],
  ['cheap', 'average', 'generous'],
  ['average', 'generous', 'generous'],
];

/** The classic tipper: service and food (3 sets each) → tip (3 sets), nine rules; also the benchmark's agent. */
export const tipperDefinition: AgentDefinition = {
  inputs: {
    service: { poor: [0, 0, 2.5, 5], good: [2.5, 5, 7.5], excellent: [5, 7.5, 10, 10] },
    food: { rancid: [0, 0, 2.5, 5], okay: [2.5, 5, 7.5], delicious: [5, 7.5, 10, 10] },
  },
  outputs: { tip: { cheap: [0, 5, 10], average: [10, 15, 20], generous: [20, 25, 30] } },
  rules: levels.service.flatMap((service, i) => levels.food.map((food, j) => `IF service IS ${service} AND food IS ${food} THEN tip IS ${tips[i]![j]}`)),
};
