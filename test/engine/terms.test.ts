// Hand-derived values for the term kinds, hedges, defuzzifications, weighted outputs, universes,
// the activation threshold and an output's default (docs/ENGINE.md, "Term kinds, universes,
// operators"): each number below is worked out from the definitions, not read off the engine.

import { describe, expect, it } from 'vitest';
import { S_NORM_CODES, sNorm } from '../../src/engine/norms.js';
import { activations, compileAgent, evaluate, membership, setShape, type AgentDefinition, type TermDefinition } from '../../src/engine/index.js';

const at = (term: TermDefinition, x: number) => membership(term, [0, 10], x);

describe('term kinds', () => {
  it("each kind has fuzzylite's degree at hand-picked points", () => {
    expect(at({ type: 'gaussian', mean: 5, standardDeviation: 2 }, 7)).toBeCloseTo(Math.exp(-0.5), 15);
    expect(at({ type: 'bell', center: 0, width: 2, slope: 1 }, 1)).toBeCloseTo(0.8, 15);
    expect(at({ type: 'sigmoid', inflection: 0, slope: 2 }, 1)).toBeCloseTo(0.8807970779778823, 15);
    expect(at({ type: 'sShape', start: 0, end: 4 }, 1)).toBeCloseTo(0.125, 15);
    expect(at({ type: 'sShape', start: 0, end: 4 }, 3)).toBeCloseTo(0.875, 15);
    expect(at({ type: 'zShape', start: 0, end: 4 }, 1)).toBeCloseTo(0.875, 15);
    expect(at({ type: 'piShape', bottomLeft: 0, topLeft: 2, topRight: 4, bottomRight: 6 }, 5)).toBeCloseTo(0.5, 15);
    expect(at({ type: 'cosine', center: 0, width: 4 }, 1)).toBeCloseTo(0.5, 15);
    expect(at({ type: 'spike', center: 0, width: 10 }, 1)).toBeCloseTo(Math.exp(-1), 15);
    expect(at({ type: 'concave', inflection: 0, end: 2 }, 1)).toBeCloseTo(2 / 3, 15);
    expect(at({ type: 'concave', inflection: 2, end: 0 }, 1)).toBeCloseTo(2 / 3, 15);
    expect(at({ type: 'binary', start: 1, direction: 5 }, 0.9)).toBe(0);
    expect(at({ type: 'binary', start: 1, direction: 5 }, 1)).toBe(1);
    expect(at({ type: 'ramp', start: 2, end: 0 }, 1)).toBe(0.5);
    expect(at({ type: 'rectangle', start: 1, end: 2, height: 0.5 }, 2)).toBe(0.5);
    expect(
      at(
        {
          type: 'discrete',
          points: [
            [0, 0],
            [1, 1],
            [3, 0],
          ],
        },
        2,
      ),
    ).toBe(0.5);
    expect(at({ type: 'gaussianProduct', meanA: 1, standardDeviationA: 1, meanB: 3, standardDeviationB: 2 }, 5)).toBeCloseTo(Math.exp(-0.5), 15);
    expect(at({ type: 'gaussianProduct', meanA: 1, standardDeviationA: 1, meanB: 3, standardDeviationB: 2 }, 2)).toBe(1);
    expect(at({ type: 'sigmoidDifference', left: 0, rising: 1, falling: 1, right: 4 }, 2)).toBeCloseTo(Math.tanh(1), 15);
    // σ(1·(2 − 0)) · σ(−1·(2 − 4)): both σ(2)
    expect(at({ type: 'sigmoidProduct', left: 0, rising: 1, falling: -1, right: 4 }, 2)).toBeCloseTo(0.8807970779778823 ** 2, 15);
    expect(at({ type: 'triangle', vertexA: 0, vertexB: 2, vertexC: 6, height: 0.5 }, 4)).toBe(0.25);
  });
});

const one = (x: TermDefinition, rules: string[], outputs: AgentDefinition['outputs'], operators: AgentDefinition['operators']): AgentDefinition => ({
  inputs: { x: { low: x } },
  outputs,
  rules,
  operators,
});

describe('Takagi–Sugeno values are not fuzzy sets', () => {
  const values: TermDefinition[] = [
    { type: 'constant', value: 3 },
    { type: 'linear', coefficients: { a: 1 }, constant: 2 },
    { type: 'function', formula: 'a + 1' },
  ];
  it.each(values.map((term) => [term.type, term] as const))('membership and setShape of a %s term say so, not overflow the stack', (_, term) => {
    expect(() => membership(term, [0, 10], 5)).toThrow(/Takagi–Sugeno value, not a fuzzy set/);
    expect(() => setShape(term, [0, 10])).toThrow(/Takagi–Sugeno value, not a fuzzy set/);
  });
});

describe('hedges', () => {
  it('very, somewhat, seldom, extremely, NOT and any as fuzzylite defines them', () => {
    const agent = compileAgent(
      one(
        { type: 'ramp', start: 0, end: 10 },
        [
          'IF x IS very low THEN y IS a',
          'IF x IS somewhat low THEN y IS a',
          'IF x IS seldom low THEN y IS a',
          'IF x IS extremely low THEN y IS a',
          'IF x IS NOT very low THEN y IS a',
          'IF x IS any THEN y IS a',
        ],
        { y: { a: [0, 1, 2] } },
        undefined,
      ),
    );
    const strengths = (x: number) => activations(agent, { x }).map(({ strength }) => strength);
    const [very, somewhat, seldom, extremely, notVery, any] = strengths(3);
    expect(very).toBeCloseTo(0.09, 15);
    expect(somewhat).toBeCloseTo(Math.sqrt(0.3), 15);
    expect(seldom).toBeCloseTo(Math.sqrt(0.15), 15);
    expect(extremely).toBeCloseTo(0.18, 15);
    expect(notVery).toBeCloseTo(0.91, 15);
    expect(any).toBe(1);
    expect(strengths(8)[2]).toBeCloseTo(1 - Math.sqrt(0.1), 15);
    expect(strengths(8)[3]).toBeCloseTo(0.92, 15);
  });
});

describe('defuzzifications over a rising triangle clipped at 0.5 (x / 10 on [0, 10])', () => {
  // area 1.25 + 2.5 = 3.75; moment 125/30 + 18.75; half the area is reached at 5 + 0.625 / 0.5
  const expected = { centroid: (125 / 30 + 18.75) / 3.75, bisector: 6.25, smallestOfMaximum: 5, largestOfMaximum: 10, meanOfMaximum: 7.5 };
  for (const [defuzzification, value] of Object.entries(expected)) {
    it(`${defuzzification} is ${value}`, () => {
      const agent = compileAgent(
        one(
          { type: 'ramp', start: 0, end: 10 },
          ['IF x IS low THEN y IS up'],
          { y: { up: { type: 'triangle', vertexA: 0, vertexB: 10, vertexC: 10 } } },
          {
            defuzzification: defuzzification as never,
            // probabilistic sum aggregates one set as max does, and takes the integral path for centroid too
            aggregation: 'probabilisticSum',
            ranges: { y: [0, 10] },
          },
        ),
      );
      expect(evaluate(agent, { x: 5 }).crisp.y).toBeCloseTo(value, 9);
    });
  }
});

describe('the maximum of an aggregated set', () => {
  const both = (outputs: AgentDefinition['outputs'], operators: AgentDefinition['operators']) =>
    compileAgent(one({ type: 'ramp', start: 0, end: 10 }, ['IF x IS low THEN y IS left', 'IF x IS low THEN y IS right'], outputs, operators));

  it('meanOfMaximum weights each plateau by its length: [0, 1] and [5, 9] give (1 · 0.5 + 4 · 7) / 5', () => {
    const agent = both(
      { y: { left: { type: 'rectangle', start: 0, end: 1 }, right: { type: 'rectangle', start: 5, end: 9 } } },
      { defuzzification: 'meanOfMaximum', aggregation: 'probabilisticSum', ranges: { y: [0, 10] } },
    );
    expect(evaluate(agent, { x: 10 }).crisp.y).toBeCloseTo(28.5 / 5, 9);
  });

  it('a bounded sum saturating at 1 on both sides of a trough keeps the trough out of the maximum', () => {
    // e^(−x²/2) + e^(−(x−3)²/1.28) is at least 1 on [0, c1] and [c2, 3] and below between: c1, c2 by bisection
    const sum = (x: number) => Math.exp(-(x ** 2) / 2) + Math.exp(-((x - 3) ** 2) / 1.28);
    const crossing = (inside: number, outside: number) => {
      for (let i = 0; i < 200; i++) {
        const middle = (inside + outside) / 2;
        if (sum(middle) >= 1) inside = middle;
        else outside = middle;
      }
      return inside;
    };
    const [c1, c2] = [crossing(0, 1.5), crossing(3, 1.5)];
    expect(sum(1.5)).toBeLessThan(1);
    const agent = both(
      {
        y: {
          left: { type: 'gaussian', mean: 0, standardDeviation: 1 },
          right: { type: 'gaussian', mean: 3, standardDeviation: 0.8 },
        },
      },
      { defuzzification: 'meanOfMaximum', aggregation: 'boundedSum', ranges: { y: [0, 3] } },
    );
    expect(evaluate(agent, { x: 10 }).crisp.y).toBeCloseTo((c1 * (c1 / 2) + (3 - c2) * ((c2 + 3) / 2)) / (c1 + 3 - c2), 9);
  });

  it('a Hamacher sum of 1 and a degree just below 1 is 1 (not the 2 its textbook form rounds to)', () => {
    expect(sNorm(S_NORM_CODES.hamacherSum, 1, 1 - 2 ** -53)).toBe(1);
    expect(sNorm(S_NORM_CODES.hamacherSum, 1 - 2 ** -53, 1)).toBe(1);
  });
});

describe('weighted outputs', () => {
  const inputs = { x: { low: { type: 'ramp', start: 0, end: 10 } as TermDefinition, high: { type: 'ramp', start: 10, end: 0 } as TermDefinition } };
  it('Takagi–Sugeno: weighted average and sum of constants and a linear term', () => {
    const outputs = { y: { two: { type: 'constant', value: 2 }, line: { type: 'linear', coefficients: { x: 2 }, constant: 1 } } } as const;
    const rules = ['IF x IS low THEN y IS two', 'IF x IS high THEN y IS line'];
    // at x = 3: w = 0.3 on 2, w = 0.7 on 2·3 + 1 = 7
    expect(evaluate(compileAgent({ inputs, outputs, rules }), { x: 3 }).crisp.y).toBeCloseTo((0.3 * 2 + 0.7 * 7) / 1, 12);
    expect(evaluate(compileAgent({ inputs, outputs, rules, operators: { defuzzification: 'weightedSum' } }), { x: 3 }).crisp.y).toBeCloseTo(
      0.3 * 2 + 0.7 * 7,
      12,
    );
  });
  it('Tsukamoto: a ramp reached to w gives the x where it is w', () => {
    const outputs = { y: { up: { type: 'ramp', start: 0, end: 10 }, mid: { type: 'sigmoid', inflection: 5, slope: 1 } } } as const;
    const agent = compileAgent({
      inputs,
      outputs,
      rules: ['IF x IS low THEN y IS up', 'IF x IS high THEN y IS mid'],
      operators: { defuzzification: 'weightedAverage' },
    });
    // at x = 5: w = 0.5 on the ramp's 5 and the sigmoid's 5
    expect(evaluate(agent, { x: 5 }).crisp.y).toBeCloseTo(5, 12);
    // at x = 4: 0.4 on the ramp's 4, 0.6 on the sigmoid's 5 + ln(0.6 / 0.4)
    expect(evaluate(agent, { x: 4 }).crisp.y).toBeCloseTo(0.4 * 4 + 0.6 * (5 + Math.log(1.5)), 12);
  });
  it('a weighted output may declare a single-point range (MATLAB writes 0 0); a shaped one may not', () => {
    const outputs = { y: { two: { type: 'constant', value: 2 }, line: { type: 'linear', coefficients: { x: 2 }, constant: 1 } } } as const;
    const rules = ['IF x IS low THEN y IS two', 'IF x IS high THEN y IS line'];
    const pointRange = compileAgent({ inputs, outputs, rules, operators: { ranges: { y: [0, 0] } } });
    expect(evaluate(pointRange, { x: 3 }).crisp.y).toBeCloseTo(0.3 * 2 + 0.7 * 7, 12);
    const shaped = { y: { up: { type: 'ramp', start: 0, end: 10 } } } as const;
    expect(() => compileAgent({ inputs, outputs: shaped, rules: ['IF x IS low THEN y IS up'], operators: { ranges: { y: [0, 0] } } })).toThrow(
      'a range is [min, max], finite numbers with min < max, got [0,0]',
    );
  });
  it('an input without sets is an input when its range is declared (a MATLAB input no rule reads); without one it is an issue', () => {
    const outputs = { y: { two: { type: 'constant', value: 2 }, line: { type: 'linear', coefficients: { x: 2, unused: 5 }, constant: 1 } } } as const;
    const rules = ['IF x IS low THEN y IS two', 'IF x IS high THEN y IS line'];
    const agent = compileAgent({ inputs: { ...inputs, unused: {} }, outputs, rules, operators: { ranges: { unused: [-1, 1] } } });
    expect(agent.inputs.unused).toEqual({ range: [-1, 1], sets: [] });
    // a linear conclusion still reads the input's value: 0.3·2 + 0.7·(2·3 + 5·0.5 + 1)
    expect(evaluate(agent, { x: 3, unused: 0.5 }).crisp.y).toBeCloseTo(0.3 * 2 + 0.7 * 9.5, 12);
    expect(() => compileAgent({ inputs: { ...inputs, unused: {} }, outputs, rules })).toThrow('input "unused" needs at least one set');
    // INCREASES pairs sets, so a variable without any cannot take part (an issue at its column, not a crash)
    const shaped = { z: { a: [0, 5], b: [5, 10] }, none: {} } as const;
    const ranges = { unused: [-1, 1], none: [0, 1] } as const;
    expect(() => compileAgent({ inputs: { ...inputs, unused: {} }, outputs: shaped, rules: ['unused INCREASES z'], operators: { ranges } })).toThrow(
      'rules[0]: column 1: INCREASES pairs the sets of an input with those of an output, and input "unused" has none in rule "unused INCREASES z"',
    );
    expect(() => compileAgent({ inputs, outputs: shaped, rules: ['x DECREASES none'], operators: { ranges: { none: [0, 1] } } })).toThrow(
      'rules[0]: column 13: DECREASES pairs the sets of an input with those of an output, and output "none" has none in rule "x DECREASES none"',
    );
  });
});

describe('universes, threshold, default', () => {
  it('an output is integrated over its declared range only', () => {
    const agent = compileAgent({
      inputs: { x: { all: [0, 0, 10, 10] } },
      outputs: { y: { wide: [0, 0, 10, 10] } },
      rules: ['IF x IS all THEN y IS wide'],
      operators: { ranges: { y: [0, 5] } },
    });
    expect(evaluate(agent, { x: 1 }).crisp.y).toBeCloseTo(2.5, 12);
  });
  it('a rule below the activation threshold does not fire; without one it does', () => {
    const definition: AgentDefinition = { inputs: { x: { low: [0, 10] } }, outputs: { y: { a: [0, 1, 2] } }, rules: ['IF x IS low THEN y IS a'] };
    expect(evaluate(compileAgent(definition), { x: 1e-6 }).crisp.y).toBeDefined();
    expect(evaluate(compileAgent({ ...definition, operators: { activationThreshold: 1e-6 } }), { x: 1e-6 }).crisp.y).toBeUndefined();
  });
  it('an output no rule reaches takes its default', () => {
    const agent = compileAgent({
      inputs: { x: { low: [0, 0, 1, 2] } },
      outputs: { y: { a: [0, 1, 2] } },
      rules: ['IF x IS low THEN y IS a'],
      operators: { outputs: { y: { default: 7 } } },
    });
    expect(evaluate(agent, { x: 5 }).crisp).toEqual({ y: 7 });
  });
});
