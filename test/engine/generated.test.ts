// The generated rule loop (src/engine/generated.ts) against the loops it stands in for. The trace
// always runs the loops (activate, weighted), so its crisp values are the oracle: once an agent
// has served GENERATE_AFTER calls its rules run as generated code, and from then on every
// crisp value must equal the traced one to the bit — on fuzzylite's corpus models and on random
// agents with every literal, operator, weight and threshold the plain form allows. (The Takagi–Sugeno
// fast path's generated code is held to the stages the same way by sugeno.test.ts.)

import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROGRAM } from '../../src/engine/compile.js';
import { GENERATE_AFTER } from '../../src/engine/generated.js';
import { compileAgent, evaluate, evaluateBatch, type AgentDefinition, type CompiledAgent, type Inputs } from '../../src/engine/index.js';
import { readModel } from '../../src/formats/index.js';
import { seededRandom } from '../../src/learn/random.js';
import { sharedFiles, sharedText } from '../support/shared.js';
import { expectCrispAsTraced } from './as-traced.js';
import { tipperDefinition } from './tipper.js';

afterEach(() => vi.unstubAllGlobals());

const isGenerated = (agent: CompiledAgent) => {
  const { generated } = agent[PROGRAM];
  return generated.activation !== undefined || generated.sugeno !== undefined;
};

/** Random inputs over (a little beyond) each input's range, some left out. */
function randomInputs(agent: CompiledAgent, random: () => number, count: number): Inputs[] {
  return Array.from({ length: count }, (_, k) => {
    const inputs: Record<string, number> = {};
    for (const [name, { range }] of Object.entries(agent.inputs)) {
      if (k % 7 === 6 && random() < 0.5) continue;
      inputs[name] = range[0] + (range[1] - range[0]) * (random() * 1.2 - 0.1);
    }
    return inputs;
  });
}

/** Serves GENERATE_AFTER calls, then holds every crisp value to the traced one. */
function expectGeneratedEqualsLoops(agent: CompiledAgent, inputs: readonly Inputs[]): void {
  for (let k = 0; k < GENERATE_AFTER; k++) evaluate(agent, inputs[k % inputs.length]!);
  expectCrispAsTraced(agent, inputs);
}

/** A random Mamdani agent of the plain form: flat conditions (NOT included), weights, several conclusions and outputs. */
function randomPlainAgent(random: () => number): AgentDefinition {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const names = ['x', 'y', 'z'].slice(0, 1 + Math.floor(random() * 3));
  const inputs = Object.fromEntries(
    names.map((name) => [
      name,
      {
        low: [0, 2 + random() * 3],
        mid: [random() * 4, 5, 6 + random() * 4],
        high: [5 + random() * 3, 10],
        ...(random() < 0.5 && { bump: { type: 'gaussian', mean: random() * 10, standardDeviation: 0.5 + random() * 2 } }),
      },
    ]),
  );
  const outputs = Object.fromEntries(
    ['out', 'other'].slice(0, 1 + Math.floor(random() * 2)).map((name) => [name, { small: [0, 2, 5], medium: [3, 5, 7], large: [5, 8, 10] }]),
  );
  const rules = Array.from({ length: 1 + Math.floor(random() * 12) }, () => {
    const literals = names.filter(() => random() < 0.8).map((name) => `${name} IS ${random() < 0.2 ? 'NOT ' : ''}${pick(Object.keys(inputs[name]!))}`);
    if (literals.length === 0) literals.push(`${names[0]} IS mid`);
    const conclusions = Object.keys(outputs)
      .filter((_, o) => o === 0 || random() < 0.5)
      .map((output) => `${output} IS ${pick(['small', 'medium', 'large'])}`);
    return `IF ${literals.join(pick([' AND ', ' OR ']))} THEN ${conclusions.join(', ')}${random() < 0.3 ? ` WITH ${random().toFixed(3)}` : ''}`;
  });
  return {
    inputs,
    outputs,
    rules,
    operators: {
      and: pick(['min', 'product']),
      or: pick(['max', 'probabilisticSum']),
      implication: pick(['min', 'product']),
      ...(random() < 0.4 && { activationThreshold: pick([1e-6, 0.05, 0.3]) }),
    },
  } as AgentDefinition;
}

describe('the generated rule loop', () => {
  it('takes over the tipper and invkine1 after GENERATE_AFTER calls, a batch counting once, and equals the loops there', () => {
    const random = seededRandom(35);
    const tipper = compileAgent(tipperDefinition);
    const invkine1 = compileAgent(readModel('fll', sharedText('fuzzylite-examples/takagi-sugeno/matlab/invkine1.fll')).definition);
    for (const agent of [tipper, invkine1]) {
      const inputs = randomInputs(agent, random, 300);
      // one batch of many inputs, as learning weighs a candidate agent once and drops it: no code for it
      evaluateBatch(agent, inputs);
      expect(isGenerated(agent)).toBe(false);
      for (let k = 0; k < GENERATE_AFTER - 2; k++) evaluate(agent, inputs[k]!);
      expect(isGenerated(agent)).toBe(false);
      evaluate(agent, inputs[0]!);
      expect(isGenerated(agent)).toBe(true);
      expectGeneratedEqualsLoops(agent, inputs);
    }
  });

  it('equals the loops on every corpus model it writes out', () => {
    const random = seededRandom(36);
    let generated = 0;
    for (const path of sharedFiles('fuzzylite-examples').filter((file) => file.endsWith('.fll'))) {
      const agent = compileAgent(readModel('fll', sharedText(path)).definition);
      const { activation, outputs } = agent[PROGRAM];
      if (!activation.plain && !outputs.sugeno) continue; // hedged or chained: the loops, which the other engine tests hold
      expectGeneratedEqualsLoops(agent, randomInputs(agent, random, 40));
      if (isGenerated(agent)) generated++;
    }
    // every model but those with hedged or chained rules (37 of 39 when written)
    expect(generated).toBeGreaterThanOrEqual(35);
  });

  it('equals the loops on random plain agents: NOT, AND and OR under every norm of the plain form, weights, thresholds, several outputs', () => {
    const random = seededRandom(37);
    for (let trial = 0; trial < 80; trial++) {
      const definition = randomPlainAgent(random);
      const agent = compileAgent(definition);
      expectGeneratedEqualsLoops(agent, randomInputs(agent, random, 60));
      expect(isGenerated(agent), JSON.stringify(definition)).toBe(true);
    }
  });

  it('leaves agents outside the plain form to the loops: hedges, nested conditions, chained outputs', () => {
    const base = {
      inputs: { x: { low: [0, 5], high: [5, 10] } },
      outputs: { out: { small: [0, 5], large: [5, 10] } },
      rules: ['IF x IS low THEN out IS small', 'IF x IS high THEN out IS large'],
    } as AgentDefinition;
    const outside = [
      ['IF x IS very low THEN out IS small', 'IF x IS high THEN out IS large'],
      ['IF x IS low THEN out IS somewhat small', 'IF x IS high THEN out IS large'],
      ['IF (x IS low AND x IS high) OR x IS low THEN out IS small', 'IF x IS high THEN out IS large'],
    ];
    for (const rules of outside) {
      const agent = compileAgent({ ...base, rules });
      expectGeneratedEqualsLoops(agent, randomInputs(agent, seededRandom(1), 20));
      expect(isGenerated(agent), rules[0]).toBe(false);
    }
  });

  it('writes only numbers into the code it makes: no name, set or rule text of the agent', () => {
    const sources: string[] = [];
    const RealFunction = Function;
    vi.stubGlobal(
      'Function',
      new Proxy(RealFunction, {
        construct(target, args: string[]) {
          sources.push(args.join('\n'));
          return Reflect.construct(target, args);
        },
      }),
    );
    const hostile = '"); throw 1; ("';
    const agent = compileAgent({
      inputs: { [hostile]: { [hostile]: [0, 5], b: [5, 10] } },
      outputs: { out: { [`${hostile}2`]: [0, 5], c: [5, 10] } },
      rules: [`IF "${hostile.replaceAll('"', '\\"')}" IS "${hostile.replaceAll('"', '\\"')}" THEN out IS "${hostile.replaceAll('"', '\\"')}2"`],
    } as AgentDefinition);
    expectGeneratedEqualsLoops(agent, randomInputs(agent, seededRandom(2), 20));
    expect(sources.length).toBe(1);
    expect(sources[0]).not.toContain('throw');
    expect(sources[0]).toMatch(/^[\sA-Za-z0-9_.,;=+\-*/<>!(){}[\]]*$/);
  });
});

describe('where code cannot be made from text', () => {
  // last in this file: after the refusal, generated.ts stops trying for good (within this module instance)
  it('keeps running the loops, with the same results, once new Function is refused (a Content-Security-Policy without unsafe-eval)', () => {
    let attempts = 0;
    vi.stubGlobal('Function', function refused() {
      attempts++;
      throw new EvalError("Refused to evaluate a string as JavaScript because 'unsafe-eval' is not an allowed source of script");
    });
    const random = seededRandom(38);
    for (const definition of [tipperDefinition, randomPlainAgent(random), randomPlainAgent(random)]) {
      const agent = compileAgent(definition);
      expectGeneratedEqualsLoops(agent, randomInputs(agent, random, 100));
      expect(isGenerated(agent)).toBe(false);
    }
    expect(attempts).toBe(1);
  });
});
