// The Takagi–Sugeno fast path (weighSugeno: rules fired and weighed in one pass) against the
// stage-by-stage path it stands in for. The trace always goes stage by stage (activate, then
// weighted), so its crisp values are the oracle: on every agent of the fast path's form — fuzzylite's
// Takagi–Sugeno corpus models and random agents with every literal, weight, operator and method the
// form allows — the two must agree to the bit, at random inputs and with inputs missing.

import { describe, expect, it } from 'vitest';
import { PROGRAM } from '../../src/engine/compile.js';
import { compileAgent, type AgentDefinition, type CompiledAgent, type Inputs } from '../../src/engine/index.js';
import { power } from '../../src/engine/terms.js';
import { readModel } from '../../src/formats/index.js';
import { sharedFiles, sharedText } from '../support/shared.js';
import { expectCrispAsTraced } from './as-traced.js';

function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

const onFastPath = (agent: CompiledAgent) => agent[PROGRAM].outputs.sugeno !== undefined;

/** Random inputs over each input's range, some left out (then the rules needing them do not fire). */
function randomInputs(agent: CompiledAgent, random: () => number, count: number): Inputs[] {
  const names = Object.keys(agent.inputs);
  return Array.from({ length: count }, (_, k) => {
    const inputs: Record<string, number> = {};
    for (const name of names) {
      if (k % 5 === 4 && random() < 0.5) continue;
      const [low, high] = agent.inputs[name]!.range;
      inputs[name] = low + (high - low) * (random() * 1.2 - 0.1);
    }
    return inputs;
  });
}

describe('the Takagi–Sugeno fast path', () => {
  const models = sharedFiles('fuzzylite-examples/takagi-sugeno').filter((path) => path.endsWith('.fll'));
  const agents = models.flatMap((path) => {
    try {
      return [{ path, definition: readModel('fll', sharedText(path)).definition }];
    } catch {
      return []; // the corpus test accounts for every refusal
    }
  });

  it('covers invkine1 and most of fuzzylite’s Takagi–Sugeno models', () => {
    const fast = agents.filter(({ definition }) => onFastPath(compileAgent(definition))).map(({ path }) => path);
    expect(fast).toContain('fuzzylite-examples/takagi-sugeno/matlab/invkine1.fll');
    expect(fast.length).toBeGreaterThanOrEqual(agents.length / 2);
  });

  it('equals the stage-by-stage path on every corpus model of its form, with and without fuzzylite’s 1e-6 threshold', () => {
    const random = seeded(28);
    let compared = 0;
    for (const { definition } of agents) {
      for (const activationThreshold of [0, 1e-6]) {
        const agent = compileAgent({ ...definition, operators: { ...definition.operators, activationThreshold } });
        if (!onFastPath(agent)) continue;
        expectCrispAsTraced(agent, randomInputs(agent, random, 200));
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(2);
  });

  it('equals the stage-by-stage path on random agents: NOT, weights, min or product AND, average or sum, constant and linear terms', () => {
    const random = seeded(8);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    for (let trial = 0; trial < 60; trial++) {
      const names = ['x', 'y', 'z'].slice(0, 1 + Math.floor(random() * 3));
      const inputs = Object.fromEntries(
        names.map((name) => [
          name,
          {
            a: { type: 'bell', center: random() * 10, width: 0.5 + random() * 3, slope: pick([1, 2, 0.5 + random() * 3]) },
            b: { type: 'gaussian', mean: random() * 10, standardDeviation: 0.5 + random() * 3 },
            c: [random() * 5, 5 + random() * 5],
          },
        ]),
      );
      const terms = Object.fromEntries(
        Array.from({ length: 4 }, (_, t) => [
          `t${t}`,
          t === 0
            ? { type: 'constant', value: random() * 10 - 5 }
            : { type: 'linear', coefficients: Object.fromEntries(names.map((name) => [name, pick([0, random() * 4 - 2])])), constant: random() * 2 - 1 },
        ]),
      );
      const rules = Array.from({ length: 2 + Math.floor(random() * 10) }, () => {
        const literals = names.filter(() => random() < 0.8).map((name) => `${name} IS ${random() < 0.2 ? 'NOT ' : ''}${pick(['a', 'b', 'c'])}`);
        if (literals.length === 0) literals.push(`${names[0]} IS a`);
        return `IF ${literals.join(' AND ')} THEN out IS ${pick(Object.keys(terms))}${random() < 0.3 ? ` WITH ${random().toFixed(3)}` : ''}`;
      });
      const definition = {
        inputs,
        outputs: { out: terms },
        rules,
        operators: {
          and: pick(['min', 'product']),
          defuzzification: pick(['weightedAverage', 'weightedSum']),
          ...(random() < 0.5 && { activationThreshold: pick([1e-6, 0.05, 0.3]) }),
          ranges: { ...Object.fromEntries(names.map((name) => [name, [0, 10]])), out: [-10, 10] },
        },
      } as AgentDefinition;
      const agent = compileAgent(definition);
      expect(onFastPath(agent), JSON.stringify(definition)).toBe(true);
      expectCrispAsTraced(agent, randomInputs(agent, random, 100));
      // past GENERATE_AFTER calls the fast path runs as generated code (generated.ts): held to the stages too
      expect(agent[PROGRAM].generated.sugeno).toBeDefined();
    }
  });

  it('leaves agents outside its form to the stages: OR, hedged conclusions, two outputs, an aggregation', () => {
    const bell = { type: 'bell', center: 5, width: 2, slope: 2 } as const;
    const base = {
      inputs: { x: { near: bell, far: [0, 10] } },
      outputs: { out: { low: { type: 'constant', value: 1 }, high: { type: 'linear', coefficients: { x: 2 } } } },
      rules: ['IF x IS near THEN out IS low', 'IF x IS far THEN out IS high'],
      operators: { ranges: { x: [0, 10], out: [0, 20] } },
    } as AgentDefinition;
    expect(onFastPath(compileAgent(base))).toBe(true);
    const outside: AgentDefinition[] = [
      { ...base, rules: ['IF x IS near OR x IS far THEN out IS low', 'IF x IS far THEN out IS high'] },
      { ...base, rules: ['IF x IS near THEN out IS very low', 'IF x IS far THEN out IS high'] },
      { ...base, operators: { ...base.operators, aggregation: 'max' } },
      { ...base, outputs: { ...base.outputs, other: { one: { type: 'constant', value: 1 } } }, rules: [...base.rules, 'IF x IS near THEN other IS one'] },
    ];
    for (const definition of outside) {
      const agent = compileAgent(definition);
      expect(onFastPath(agent), definition.rules.join('; ')).toBe(false);
      expectCrispAsTraced(agent, randomInputs(agent, seeded(3), 20));
    }
  });
});

describe("a bell's power", () => {
  it('stays within e units in the last place of t ** e for whole exponents up to 8, |e·ln t| + 4 for the others', () => {
    const random = seeded(5);
    for (let k = 0; k < 20000; k++) {
      const t = Math.exp(random() * 40 - 20);
      const whole = 1 + Math.floor(random() * 8);
      const e = k % 2 === 0 ? whole : 0.1 + random() * 10;
      const exact = t ** e;
      if (!Number.isFinite(exact) || exact === 0) continue;
      // x^a·x^b errs by x^a's error, x^b's and one rounding: t^e by under e roundings in all
      const ulps = e === whole ? whole : Math.abs(e * Math.log(t)) + 4;
      expect(Math.abs(power(t, e) - exact) / exact, `${t} ** ${e}`).toBeLessThanOrEqual(ulps * Number.EPSILON);
    }
  });

  it('keeps the ends: 0 and ∞ raised to any positive exponent', () => {
    for (const e of [1, 2, 4, 3.5, 0.25, 8, 9, 64]) {
      expect(power(0, e)).toBe(0);
      expect(power(Infinity, e)).toBe(Infinity);
      expect(power(1, e)).toBe(1);
    }
  });
});
