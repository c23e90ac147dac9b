// Evaluations per second of the two-input, nine-rule tipper (service, food → tip): the fast path,
// the traced path, and evaluateBatch over 4096 inputs. Inputs vary on a grid so that every rule
// and every branch of the geometry takes its turn.

import { readFileSync } from 'node:fs';
import { compileAgent, evaluate, evaluateBatch, type AgentDefinition, type Inputs } from '../src/engine/index.js';
import { tipperDefinition } from '../test/engine/tipper.js';

const tipper = compileAgent(tipperDefinition);

const inputs: Inputs[] = [];
for (let i = 0; i < 64; i++) for (let j = 0; j < 64; j++) inputs.push({ service: (i * 10) / 63, food: (j * 10) / 63 });

let sink = 0;

/**
 * Evaluations per second of `round` (which performs `perRound` evaluations): the best of `runs` timed
 * runs of about 0.25 s each after a warm-up, so that other processes on a shared machine distort less.
 */
function measure(perRound: number, round: () => void, runs = 12): number {
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil) round();
  let best = 0;
  for (let run = 0; run < runs; run++) {
    let evaluations = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < 250) {
      round();
      evaluations += perRound;
      elapsed = performance.now() - start;
    }
    best = Math.max(best, evaluations / (elapsed / 1000));
  }
  return best;
}

const fast = measure(inputs.length, () => {
  for (const item of inputs) sink += evaluate(tipper, item).crisp.tip ?? 0;
});
const traced = measure(inputs.length, () => {
  for (const item of inputs) sink += evaluate(tipper, item, { trace: true }).crisp.tip ?? 0;
});
const batch = measure(inputs.length, () => {
  for (const outputs of evaluateBatch(tipper, inputs)) sink += outputs.tip ?? 0;
});
// the same tipper with the other operators: product AND, probabilistic-sum OR, product implication
const productTipper = compileAgent({ ...tipperDefinition, operators: { and: 'product', or: 'probabilisticSum', implication: 'product' } });
const product = measure(inputs.length, () => {
  for (const item of inputs) sink += evaluate(productTipper, item).crisp.tip ?? 0;
});

// MATLAB's tipper (tipper.fis as fuzzylite ships it): Gaussian service, trapezoid food, triangle
// tip over declared ranges; the output stays on the exact piecewise-linear path.
const gaussian = (mean: number) => ({ type: 'gaussian', mean, standardDeviation: 1.5 }) as const;
const matlabTipper = compileAgent({
  inputs: {
    service: { poor: gaussian(0), good: gaussian(5), excellent: gaussian(10) },
    food: {
      rancid: { type: 'trapezoid', vertexA: 0, vertexB: 0, vertexC: 1, vertexD: 3 },
      delicious: { type: 'trapezoid', vertexA: 7, vertexB: 9, vertexC: 10, vertexD: 10 },
    },
  },
  outputs: { tip: { cheap: [0, 5, 10], average: [10, 15, 20], generous: [20, 25, 30] } },
  rules: [
    'IF service IS poor OR food IS rancid THEN tip IS cheap',
    'IF service IS good THEN tip IS average',
    'IF service IS excellent OR food IS delicious THEN tip IS generous',
  ],
  operators: { ranges: { service: [0, 10], food: [0, 10], tip: [0, 30] } },
});
const matlab = measure(inputs.length, () => {
  for (const item of inputs) sink += evaluate(matlabTipper, item).crisp.tip ?? 0;
});

// invkine1, MATLAB's 49-rule ANFIS model (takagi-sugeno/matlab in fuzzylite's examples): two inputs
// with seven generalized bells each, one output of 49 linear terms, weighted average. bench/models
// holds it as JSON, converted from invkine1.fll.
const invkine1 = compileAgent(JSON.parse(readFileSync(new URL('models/invkine1.json', import.meta.url), 'utf8')) as AgentDefinition);
const armInputs: Inputs[] = [];
for (let i = 0; i < 64; i++) for (let j = 0; j < 64; j++) armInputs.push({ input1: -6.287 + (i * 23.287) / 63, input2: (j * 16.972) / 63 });
const sugeno = measure(armInputs.length, () => {
  for (const item of armInputs) sink += evaluate(invkine1, item).crisp.output ?? 0;
});

/**
 * The worst case the size limits allow for one evaluation, roughly: 1000 output sets (10 outputs ×
 * 100 sets, the limit), every set of an output overlapping every other over most of the range (so
 * that each interval holds ~100 pieces and thousands of crossings), all reached at different strengths.
 */
function atTheLimits() {
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const sets = (make: (i: number) => number[]) => Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${i}`, make(i)]));
  const outputs = Object.fromEntries(
    Array.from({ length: 10 }, (_, o) => [`o${o}`, sets(() => [random(), 40 + random() * 10, 50 + random() * 10, 99 + random()])]),
  );
  const rules = Array.from({ length: 100 }, (_, i) => `IF x IS s${i} THEN ${Array.from({ length: 10 }, (_, o) => `o${o} IS s${i}`).join(', ')}`);
  const agent = compileAgent({ inputs: { x: sets((i) => [i - 100, i, i + 100]) }, outputs, rules });
  const slowest = (trace: boolean) => {
    let worst = 0;
    for (const x of [10, 49.5, 90]) {
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        const start = performance.now();
        sink += evaluate(agent, { x }, { trace }).crisp.o0 ?? 0;
        best = Math.min(best, performance.now() - start);
      }
      worst = Math.max(worst, best);
    }
    return worst;
  };
  return { fast: slowest(false), traced: slowest(true) };
}
const limits = atTheLimits();

const format = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US').padStart(12);
console.log('tipper, 2 inputs × 3 sets, 9 rules, 1 output × 3 sets, exact centroid (best of 12 runs of 0.25 s)');
console.log(`fast path           ${format(fast)} evaluations/s   (target ≥ 5,000,000 on a quiet machine)`);
console.log(`with trace          ${format(traced)} evaluations/s   (target ≥ 300,000)`);
console.log(`evaluateBatch(4096) ${format(batch)} evaluations/s`);
console.log(`fast path, product  ${format(product)} evaluations/s   (AND, implication: product; OR: probabilistic sum)`);
console.log(`MATLAB tipper       ${format(matlab)} evaluations/s   (Gaussian inputs; target ≥ 1,000,000)`);
console.log(`invkine1            ${format(sugeno)} evaluations/s   (49-rule Takagi–Sugeno, bell inputs, linear outputs; target ≥ 1,000,000)`);
console.log('at the size limits: 10 outputs × 100 overlapping sets, all reached (slowest of 3 inputs, best of 3 runs each)');
console.log(`one evaluation      ${limits.fast.toFixed(0).padStart(12)} ms`);
console.log(`one with trace      ${limits.traced.toFixed(0).padStart(12)} ms`);
if (!Number.isFinite(sink)) throw new Error('unreachable: keeps the results alive');
