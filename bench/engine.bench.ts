// Evaluations per second of the two-input, nine-rule tipper (service, food → tip): the fast path,
// the traced path, and evaluateBatch over 4096 inputs; then MATLAB's tipper and invkine1. Inputs
// vary on a grid so that every rule and every branch of the geometry takes its turn.
//
// FUZZYLITE_BENCH=/path/to/driver also times fuzzylite on the same three models (written as FLL by
// fuzzbox/formats) and the same input grids, in the same run. The driver is not part of fuzzbox:
// any program called as `driver model.fll input1 low1 high1 input2 low2 high2` that evaluates the
// 64 × 64 grid low + k·(high − low)/63 of both inputs the way measure() below does and prints
// "<evaluations/s> <mean output> <evaluations per CPU second>" (README.md, "Benchmarks", says how ours was built).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileAgent, evaluate, evaluateBatch, type AgentDefinition, type CompiledAgent, type Inputs } from '../src/engine/index.js';
import { writeFll } from '../src/formats/index.js';
import { tipperDefinition } from '../test/engine/tipper.js';

const loadBefore = loadavg();
const tipper = compileAgent(tipperDefinition);

/** The 64 × 64 grid of two inputs over their ranges, the first varying slowest. */
function grid(first: string, [low1, high1]: [number, number], second: string, [low2, high2]: [number, number]): Inputs[] {
  const items: Inputs[] = [];
  for (let i = 0; i < 64; i++)
    for (let j = 0; j < 64; j++) items.push({ [first]: low1 + (i * (high1 - low1)) / 63, [second]: low2 + (j * (high2 - low2)) / 63 });
  return items;
}
const inputs = grid('service', [0, 10], 'food', [0, 10]);

let sink = 0;

/** Evaluations per second of elapsed time, and per second of the CPU time this process got (which load distorts far less). */
interface Rate {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * Evaluations per second of `round` (which performs `perRound` evaluations): the best of `runs` timed
 * runs of about 0.25 s each after a warm-up, so that other processes on a shared machine distort less.
 * The best per CPU second is the same runs'.
 */
function measure(perRound: number, round: () => void, runs = 12): Rate {
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil) round();
  let best = 0;
  let bestPerCpu = 0;
  for (let run = 0; run < runs; run++) {
    let evaluations = 0;
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    let elapsed = 0;
    while (elapsed < 250) {
      round();
      evaluations += perRound;
      elapsed = performance.now() - start;
    }
    const cpu = process.cpuUsage(cpuStart);
    best = Math.max(best, evaluations / (elapsed / 1000));
    bestPerCpu = Math.max(bestPerCpu, evaluations / ((cpu.user + cpu.system) / 1e6));
  }
  return { wall: best, cpu: bestPerCpu };
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
const matlabTipperDefinition: AgentDefinition = {
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
};
const matlabTipper = compileAgent(matlabTipperDefinition);
const matlab = measure(inputs.length, () => {
  for (const item of inputs) sink += evaluate(matlabTipper, item).crisp.tip ?? 0;
});

// invkine1, MATLAB's 49-rule ANFIS model (takagi-sugeno/matlab in fuzzylite's examples): two inputs
// with seven generalized bells each, one output of 49 linear terms, weighted average. bench/models
// holds it as JSON, converted from invkine1.fll.
const invkine1Definition = JSON.parse(readFileSync(new URL('models/invkine1.json', import.meta.url), 'utf8')) as AgentDefinition;
const invkine1 = compileAgent(invkine1Definition);
const armInputs = grid('input1', [-6.287, 17], 'input2', [0, 16.972]);
const sugeno = measure(armInputs.length, () => {
  for (const item of armInputs) sink += evaluate(invkine1, item).crisp.output ?? 0;
});
const sugenoTraced = measure(armInputs.length, () => {
  for (const item of armInputs) sink += evaluate(invkine1, item, { trace: true }).crisp.output ?? 0;
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
console.log('tipper, 2 inputs × 3 sets, 9 rules, 1 output × 3 sets, exact centroid (best of 12 runs of 0.25 s; per second elapsed and per second of CPU time)');
console.log(`fast path           ${format(fast.wall)} evaluations/s ${format(fast.cpu)} per CPU second   (target ≥ 5,000,000 on a quiet machine)`);
console.log(`with trace          ${format(traced.wall)} evaluations/s ${format(traced.cpu)} per CPU second   (target ≥ 300,000)`);
console.log(`evaluateBatch(4096) ${format(batch.wall)} evaluations/s ${format(batch.cpu)} per CPU second`);
console.log(
  `fast path, product  ${format(product.wall)} evaluations/s ${format(product.cpu)} per CPU second   (AND, implication: product; OR: probabilistic sum)`,
);
console.log(`MATLAB tipper       ${format(matlab.wall)} evaluations/s ${format(matlab.cpu)} per CPU second   (Gaussian inputs; target ≥ 1,000,000)`);
console.log(
  `invkine1            ${format(sugeno.wall)} evaluations/s ${format(sugeno.cpu)} per CPU second   (49-rule Takagi–Sugeno, bell inputs, linear outputs; target ≥ 1,000,000)`,
);
console.log(`invkine1 with trace ${format(sugenoTraced.wall)} evaluations/s ${format(sugenoTraced.cpu)} per CPU second`);
console.log('at the size limits: 10 outputs × 100 overlapping sets, all reached (slowest of 3 inputs, best of 3 runs each)');
console.log(`one evaluation      ${limits.fast.toFixed(0).padStart(12)} ms`);
console.log(`one with trace      ${limits.traced.toFixed(0).padStart(12)} ms`);

/** The mean crisp output over a grid: what the fuzzylite driver prints too, to show both ran the same model. */
function meanOutput(agent: CompiledAgent, items: readonly Inputs[], output: string): number {
  return items.reduce((sum, item) => sum + evaluate(agent, item).crisp[output]!, 0) / items.length;
}

const driver = process.env.FUZZYLITE_BENCH;
if (driver) {
  const folder = mkdtempSync(join(tmpdir(), 'fuzzbox-bench-'));
  // fuzzylite fires a rule only at an activation of 1e-6 or more, which FLL therefore cannot state
  const { activationThreshold: _, ...invkine1Operators } = invkine1Definition.operators!;
  const models = [
    { name: 'tipper', definition: tipperDefinition, agent: tipper, items: inputs, output: 'tip', ours: fast, args: ['service', 0, 10, 'food', 0, 10] },
    {
      name: 'MATLAB tipper',
      definition: matlabTipperDefinition,
      agent: matlabTipper,
      items: inputs,
      output: 'tip',
      ours: matlab,
      args: ['service', 0, 10, 'food', 0, 10],
    },
    {
      name: 'invkine1',
      definition: { ...invkine1Definition, operators: invkine1Operators },
      agent: invkine1,
      items: armInputs,
      output: 'output',
      ours: sugeno,
      args: ['input1', -6.287, 17, 'input2', 0, 16.972],
    },
  ];
  console.log(`\nfuzzylite (${driver}): the same models, written as FLL, on the same input grids, in this run`);
  console.log('model               fuzzbox/s  fuzzylite/s  per CPU second: fuzzbox  fuzzylite   mean output: fuzzbox, fuzzylite');
  for (const { name, definition, agent, items, output, ours, args } of models) {
    const file = join(folder, `${name.replace(/\W/g, '')}.fll`);
    writeFileSync(file, writeFll({ name: name.replace(/\W/g, ''), definition }));
    const [rate, mean, perCpu] = execFileSync(driver, [file, ...args.map(String)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    const means = `${meanOutput(agent, items, output).toPrecision(9)}, ${mean!.toPrecision(9)}`;
    console.log(`${name.padEnd(14)}${format(ours.wall)} ${format(rate!)}             ${format(ours.cpu)} ${format(perCpu!)}   ${means}`);
  }
  rmSync(folder, { recursive: true });
}
const loadAfter = loadavg();
console.log(`load average (1 min) ${loadBefore[0]!.toFixed(1)} at the start, ${loadAfter[0]!.toFixed(1)} at the end`);
if (!Number.isFinite(sink)) throw new Error('unreachable: keeps the results alive');
