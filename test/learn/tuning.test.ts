import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAgent, parseRule } from '../../src/engine/index.js';
import type { AgentDefinition, SetDefinition, VariableDefinition } from '../../src/engine/types.js';

/** These agents' sets are all points. */
const pointsOf = (sets: VariableDefinition | undefined) => sets as Readonly<Record<string, SetDefinition>>;
import { Tuning, type Change, type Numbers } from '../../src/learn/tuning.js';
import { irrigation, lemonade } from './worlds.js';

const fan: AgentDefinition = {
  inputs: { 'air temp': { cold: [0, 20], mild: [10, 20, 30], hot: [20, 40] } },
  outputs: { 'fan speed': { off: [0, 0, 10, 30], low: [10, 40, 60], high: [50, 100] } },
  rules: [
    '"air temp" INCREASES "fan speed" WITH 0.8',
    'if "air temp" is not hot then "fan speed" is off',
    'IF "air temp" IS mild THEN "fan speed" IS low WITH 0.05',
  ],
};

/** Where a set is fully true, midway (SPEC 4.1 and 4.4: a slope reaches to its variable's end). */
function coreMiddle(points: SetDefinition, min: number, max: number): number {
  const [a, b, c, d] = points as number[];
  if (points.length === 4) return (b! + c!) / 2;
  if (points.length === 3) return b!;
  return a! + b! < min + max ? (min + a!) / 2 : (b! + max) / 2;
}

function byCentre(sets: Readonly<Record<string, SetDefinition>>): string[] {
  const all = Object.values(sets).flat();
  const [min, max] = [Math.min(...all), Math.max(...all)];
  return Object.keys(sets).sort((p, q) => coreMiddle(sets[p]!, min, max) - coreMiddle(sets[q]!, min, max));
}

describe('tuning', () => {
  for (const agent of [lemonade.agent, irrigation.agent, fan]) {
    it(`keeps every proposal valid and meaning the same (${Object.keys(agent.outputs)[0]})`, () => {
      const tuning = new Tuning(agent);
      const moves = tuning.moves(['outputs', 'inputs']);
      const original = compileAgent(agent);
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(moves.length - 1), fc.double({ min: -0.4, max: 0.4, noNaN: true })), { maxLength: 30 }), (steps) => {
          let numbers: Numbers = tuning.initial;
          for (const [which, delta] of steps) numbers = tuning.apply(numbers, moves[which]!, delta) ?? numbers;
          const definition = tuning.definitionOf(numbers);
          const compiled = compileAgent(definition);
          for (const side of ['inputs', 'outputs'] as const) {
            for (const [variable, sets] of Object.entries(agent[side])) {
              const [min, max] = original[side][variable]!.range;
              expect(compiled[side][variable]!.range).toEqual([min, max]);
              expect(byCentre(pointsOf(definition[side][variable]))).toEqual(byCentre(pointsOf(sets)));
              for (const [set, points] of Object.entries(pointsOf(sets))) {
                const now = pointsOf(definition[side][variable])[set]!;
                expect(now).toHaveLength(points.length);
                now.forEach((p, i) => {
                  expect(p).toBeGreaterThanOrEqual(i > 0 ? now[i - 1]! : min);
                  expect(p).toBeLessThanOrEqual(max);
                  if (points[i] === min || points[i] === max) expect(p).toBe(points[i]);
                });
                expect(now.at(-1)! - now[0]!).toBeGreaterThanOrEqual(Math.min(points.at(-1)! - points[0]!, 0.02 * (max - min)) - 1e-9);
                if (points.length === 2) expect(now[0]! + now[1]! < min + max).toBe(points[0]! + points[1]! < min + max);
              }
            }
          }
          definition.rules.forEach((text, i) => {
            const weight = parseRule(text).weight;
            const initial = parseRule(agent.rules[i]!).weight;
            expect(weight).toBe(numbers.weights[i]);
            expect(weight).toBeLessThanOrEqual(1);
            expect(weight).toBeGreaterThanOrEqual(Math.min(0.1, initial));
            if (weight === initial) expect(text).toBe(agent.rules[i]);
          });
          const expected: Change[] = [];
          for (const side of ['inputs', 'outputs'] as const) {
            for (const [variable, sets] of Object.entries(agent[side])) {
              for (const [set, points] of Object.entries(pointsOf(sets))) {
                points.forEach((from, point) => {
                  const to = pointsOf(definition[side][variable])[set]![point]!;
                  if (to !== from) expected.push({ kind: 'set', side, variable, set, point, from, to });
                });
              }
            }
          }
          agent.rules.forEach((text, rule) => {
            const [from, to] = [parseRule(text).weight, parseRule(definition.rules[rule]!).weight];
            if (to !== from) expected.push({ kind: 'weight', rule, from, to });
          });
          expect(tuning.changes(numbers)).toEqual(expected);
        }),
        { numRuns: 300, seed: 42 },
      );
    });
  }

  it('moves only free points: a shoulder at the range end keeps that end', () => {
    const tuning = new Tuning(lemonade.agent);
    const shifted = tuning.apply(tuning.initial, { kind: 'shift', side: 'outputs', variable: 'price', set: 'high' }, 0.1)!;
    // high = [0.5, 0.8, 3] on a range 0..3: 0.1 of the range is 0.3; the 3 is the range's end
    expect(shifted.outputs.price!.high).toEqual([0.8, 1.1, 3]);
    const spread = tuning.apply(tuning.initial, { kind: 'spread', side: 'outputs', variable: 'price', set: 'medium' }, 0.5)!;
    // medium = [0.2, 0.5, 0.8], mean 0.5: distances 0.3 grow by half to 0.45
    expect(spread.outputs.price!.medium).toEqual([0.05, 0.5, 0.95]);
  });

  it('refuses moves that would swap sets, and weights outside [0.1, 1]', () => {
    const tuning = new Tuning(lemonade.agent);
    // low's centre (0.2) would pass medium's (0.5)
    expect(tuning.apply(tuning.initial, { kind: 'shift', side: 'outputs', variable: 'price', set: 'low' }, 0.2)).toBeUndefined();
    expect(tuning.apply(tuning.initial, { kind: 'weight', rule: 0 }, 0.3)).toBeUndefined();
    expect(tuning.apply(tuning.initial, { kind: 'weight', rule: 0 }, -2)!.weights[0]).toBe(0.1);
    expect(tuning.definitionOf(tuning.apply(tuning.initial, { kind: 'weight', rule: 2 }, -0.25)!).rules[2]).toBe(
      'IF temperature IS hot THEN price IS high WITH 0.75',
    );
  });
});
