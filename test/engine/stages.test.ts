// One describe per stage of the pipeline (docs/ENGINE.md, "The pipeline"), each driving its module's
// layout and loop directly, and an independent oracle for rule activation: a plain recursive
// evaluation of the condition AST, written here apart from the engine's literal lists and postfix code.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activate, layOutActivation } from '../../src/engine/activation.js';
import { aggregate, combinedPolygon, layOutAggregation } from '../../src/engine/aggregation.js';
import { layOutDefuzzification, locateCentroid } from '../../src/engine/defuzzification.js';
import { fuzzify, layOutFuzzification } from '../../src/engine/fuzzification.js';
import { impliedShape, layOutImplication, MINIMUM, PRODUCT } from '../../src/engine/implication.js';
import {
  activations,
  compileAgent,
  evaluate,
  membership,
  parseRule,
  printRule,
  type AgentDefinition,
  type Condition,
  type IfRule,
  type Inputs,
  type Operators,
} from '../../src/engine/index.js';
import { PROGRAM } from '../../src/engine/compile.js';
import { createScratch } from '../../src/engine/scratch.js';
import { shapeTrapezoid } from '../../src/engine/shape.js';
import { indexVariables } from '../../src/engine/variables.js';

const defaults: Required<Pick<Operators, 'and' | 'or' | 'implication'>> = { and: 'min', or: 'max', implication: 'min' };

describe('fuzzification', () => {
  const inputs = indexVariables({ t: { cold: [0, 10], warm: [5, 10, 15], hot: [10, 20] } });
  const layout = layOutFuzzification(inputs);

  it('lays out one membership trapezoid per input set, shoulders reaching to ±Infinity', () => {
    expect(Array.from(layout.trapezoids)).toEqual([-Infinity, -Infinity, 0, 10, 5, 10, 10, 15, 10, 20, Infinity, Infinity]);
    expect(layout.inputSetNames).toEqual(['cold', 'warm', 'hot']);
  });

  it('writes each set degree, saturating beyond the range, and NaN for a missing input', () => {
    const degrees = new Float64Array(3);
    const values = new Float64Array(1);
    fuzzify(layout, { t: 7.5 }, degrees, values);
    expect(values[0]).toBe(7.5);
    expect(Array.from(degrees)).toEqual([0.25, 0.5, 0]);
    fuzzify(layout, { t: 1e9 }, degrees, values);
    expect(Array.from(degrees)).toEqual([0, 0, 1]);
    fuzzify(layout, {}, degrees, values);
    expect(Array.from(degrees)).toEqual([NaN, NaN, NaN]);
    expect(values[0]).toBeNaN();
    expect(() => fuzzify(layout, { x: 1 }, degrees, values)).toThrow('unknown input "x"');
  });

  it('reads inputs in any order, inherited ones too, and names the first fault in the agent’s input order', () => {
    const two = layOutFuzzification(indexVariables({ a: { low: [0, 10] }, b: { high: [0, 10] } }));
    const degrees = new Float64Array(2);
    const values = new Float64Array(2);
    fuzzify(two, { a: 7, b: 2 }, degrees, values);
    const inOrder = Array.from(degrees);
    fuzzify(two, { b: 2, a: 7 }, degrees, values);
    expect(Array.from(values)).toEqual([7, 2]);
    expect(Array.from(degrees)).toEqual(inOrder);
    fuzzify(two, Object.create({ a: 5 }), degrees, values);
    expect(Array.from(values)).toEqual([5, NaN]);
    expect(degrees[0]).toBe(0.5);
    expect(degrees[1]).toBeNaN();
    fuzzify(two, { a: undefined, b: 10 } as unknown as Inputs, degrees, values);
    expect(Array.from(values)).toEqual([NaN, 10]);
    // an unknown name before a bad value: the value at fault is named first, as it always was
    expect(() => fuzzify(two, { x: 1, b: 'high', a: Infinity } as unknown as Inputs, degrees, values)).toThrow('input "a" must be a finite number');
    expect(() => fuzzify(two, { a: 1, b: 2, c: 3 }, degrees, values)).toThrow('unknown input "c"');
  });
});

describe('activation', () => {
  const inputs = indexVariables({ a: { lo: [0, 1], hi: [0, 1] }, b: { lo: [0, 1], hi: [0, 1] } });
  const outputs = indexVariables({ y: { s: [0, 1, 2], t: [1, 2, 3] } });
  const rules = ['IF a IS lo AND b IS hi THEN y IS s', 'IF a IS lo OR b IS hi THEN y IS t WITH 0.5', 'IF NOT (a IS lo AND (b IS hi OR a IS hi)) THEN y IS s'];
  const expanded = rules.map((text) => ({ rule: parseRule(text) as IfRule, text }));
  // a is lo to 0.4 and hi to 0.4 (both shoulders rise: equal midpoints); b likewise to 0.7
  const degrees = Float64Array.from([0.4, 0.4, 0.7, 0.7]);

  function strengths(operators: Required<Pick<Operators, 'and' | 'or' | 'implication'>>) {
    const layout = layOutActivation(expanded, inputs, outputs, operators);
    const result = { strengths: new Float64Array(3), inferred: new Float64Array(2) };
    activate(layout, degrees, new Float64Array(layout.stackDepth), result.strengths, result.inferred);
    return result;
  }

  it('min AND, max OR, 1 − μ NOT, × weight; an output set takes the max strength reaching it', () => {
    const { strengths: s, inferred } = strengths(defaults);
    expect(s[0]).toBeCloseTo(0.4, 15); // min(0.4, 0.7)
    expect(s[1]).toBeCloseTo(0.35, 15); // max(0.4, 0.7) × 0.5
    expect(s[2]).toBeCloseTo(0.6, 15); // 1 − min(0.4, max(0.7, 0.4))
    expect(Array.from(inferred)).toEqual([s[2], s[1]]);
  });

  it('product AND and probabilistic-sum OR, in flat and nested conditions alike', () => {
    const { strengths: s } = strengths({ and: 'product', or: 'probabilisticSum', implication: 'min' });
    expect(s[0]).toBeCloseTo(0.28, 15); // 0.4 × 0.7
    expect(s[1]).toBeCloseTo(0.41, 15); // (0.4 + 0.7 − 0.28) × 0.5
    expect(s[2]).toBeCloseTo(1 - 0.4 * (0.7 + 0.4 - 0.28), 15);
  });
});

describe('implication', () => {
  const shape = [0, 2, 4, 8] as const;
  it('min clips the set at its inferred degree; product scales it', () => {
    expect(impliedShape(MINIMUM, shape, 0.5)).toEqual([
      [0, 0],
      [1, 0.5],
      [6, 0.5],
      [8, 0],
    ]);
    expect(impliedShape(PRODUCT, shape, 0.5)).toEqual([
      [0, 0],
      [2, 0.5],
      [4, 0.5],
      [8, 0],
    ]);
  });

  it('lays out each set as straight pieces on the intervals between corners', () => {
    const shapes = [shape, shapeTrapezoid([4, 6, 8], [0, 8])];
    const start = Int32Array.from([0, 2]);
    const defuzzification = layOutDefuzzification(shapes, start);
    const aggregation = layOutAggregation(shapes, start, defuzzification);
    const layout = layOutImplication(MINIMUM, shapes, start, aggregation);
    expect(Array.from(aggregation.intervalFrom)).toEqual([0, 2, 4, 6]);
    // interval [4, 6]: the trapezoid falls from 1 to 0.5, the triangle rises from 0 to 1
    expect(Array.from(layout.pieceSet.subarray(layout.pieceStart[2], layout.pieceStart[3]))).toEqual([0, 1]);
    expect(Array.from(layout.pieceFrom.subarray(layout.pieceStart[2], layout.pieceStart[3]))).toEqual([1, 0]);
    expect(Array.from(layout.pieceTo.subarray(layout.pieceStart[2], layout.pieceStart[3]))).toEqual([0.5, 1]);
    expect(layout.mostPieces).toBe(2);
  });
});

/** The area centroid's x of the region under a polygon from left to right, trapezoid by trapezoid. */
function centroidX(polygon: Array<[number, number]>): number {
  let area = 0;
  let moment = 0;
  for (let i = 1; i < polygon.length; i++) {
    const [xa, ya] = polygon[i - 1]!;
    const [xb, yb] = polygon[i]!;
    area += ((xb - xa) * (ya + yb)) / 2;
    moment += ((xb - xa) * (xa * (2 * ya + yb) + xb * (ya + 2 * yb))) / 6;
  }
  return moment / area;
}

describe('aggregation and defuzzification', () => {
  // two triangles [0, 2, 4] and [2, 4, 6] reached to 1 and 0.5
  function run(implication: 'min' | 'product') {
    const agent = compileAgent({
      inputs: { x: { a: [0, 1], b: [0, 1] } },
      outputs: { y: { p: [0, 2, 4], q: [2, 4, 6] } },
      rules: ['IF x IS a THEN y IS p', 'IF x IS b THEN y IS q WITH 0.5'],
      operators: { implication },
    });
    const program = agent[PROGRAM];
    const scratch = createScratch(program);
    scratch.inferred.set([1, 0.5]);
    return { program, scratch };
  }

  it('min: the envelope of the clipped sets, crossing points computed, and its area centroid', () => {
    const { program, scratch } = run('min');
    expect(combinedPolygon(program, 0, scratch.inferred, scratch)).toEqual([
      [0, 0],
      [2, 1],
      [3, 0.5],
      [5, 0.5],
      [6, 0],
    ]);
    aggregate(program, 0, scratch.inferred, scratch);
    // area: 1 (0..2) + 0.75 (2..3) + 1 (3..5) + 0.25 (5..6) = 3; sums[0] is twice the area in u = x / 8
    expect((scratch.sums[0]! / 2) * program.defuzzification.scales[0]!).toBeCloseTo(3, 14);
    expect(locateCentroid(program.defuzzification, 0, scratch)).toBe(true);
    expect(scratch.centroid[0]).toBeCloseTo(
      centroidX([
        [0, 0],
        [2, 1],
        [3, 0.5],
        [5, 0.5],
        [6, 0],
      ]),
      12,
    );
  });

  it('product: the envelope of the scaled sets', () => {
    const { program, scratch } = run('product');
    // p falls from (2, 1) to (4, 0), q scaled by 0.5 rises from (2, 0) to (4, 0.5): they cross at x = 10/3
    const expected = [
      [0, 0],
      [2, 1],
      [10 / 3, 1 / 3],
      [4, 0.5],
      [6, 0],
    ];
    const polygon = combinedPolygon(program, 0, scratch.inferred, scratch);
    expect(polygon).toHaveLength(5);
    polygon.forEach(([x, y], i) => {
      expect(x).toBeCloseTo(expected[i]![0]!, 14);
      expect(y).toBeCloseTo(expected[i]![1]!, 14);
    });
    expect(locateCentroid(program.defuzzification, 0, scratch)).toBe(true);
    expect(scratch.centroid[0]).toBeCloseTo(centroidX(expected as Array<[number, number]>), 12);
  });
});

describe('rule activation against an independent oracle', () => {
  /** The condition's degree, recursively, straight from SPEC 4: nothing shared with the engine's compiled form. */
  function oracle(
    condition: Condition,
    degree: (variable: string, set: string) => number,
    operators: Required<Pick<Operators, 'and' | 'or' | 'implication'>>,
  ): number {
    switch (condition.type) {
      case 'is':
        return degree(condition.variable, condition.set);
      case 'not':
        return 1 - oracle(condition.operand, degree, operators);
      case 'and':
        return condition.operands
          .map((operand) => oracle(operand, degree, operators))
          .reduce((a, b) => (operators.and === 'min' ? (Number.isNaN(a) || Number.isNaN(b) ? NaN : a < b ? a : b) : a * b));
      case 'or':
        return condition.operands
          .map((operand) => oracle(operand, degree, operators))
          .reduce((a, b) => (operators.or === 'max' ? (Number.isNaN(a) || Number.isNaN(b) ? NaN : a > b ? a : b) : a + b - a * b));
    }
  }

  const sets = { lo: [0, 4], mid: [2, 5, 8], hi: [6, 10] };
  const inputsDefinition = { u: sets, v: sets, w: sets };
  const literal = fc.record({ type: fc.constant('is' as const), variable: fc.constantFrom('u', 'v', 'w'), set: fc.constantFrom('lo', 'mid', 'hi') });
  const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
    condition: fc.oneof(
      { depthSize: 'small', maxDepth: 5 },
      literal,
      fc.record({ type: fc.constant('not' as const), operand: tie('condition') }),
      fc.record({ type: fc.constantFrom('and' as const, 'or' as const), operands: fc.array(tie('condition'), { minLength: 2, maxLength: 4 }) }),
    ),
  }));
  const operators = fc.record({
    and: fc.constantFrom('min' as const, 'product' as const),
    or: fc.constantFrom('max' as const, 'probabilisticSum' as const),
    implication: fc.constantFrom('min' as const, 'product' as const),
  });
  const value = fc.oneof(fc.double({ min: -2, max: 12, noNaN: true }), fc.constant(undefined));

  it('every rule strength is the oracle degree × weight, for random nested conditions under every operator choice', () => {
    fc.assert(
      fc.property(fc.array(condition, { minLength: 1, maxLength: 6 }), operators, fc.tuple(value, value, value), (conditions, ops, [u, v, w]) => {
        const rules = conditions.map((c, i) => printRule({ type: 'if', condition: c, conclusions: [{ variable: 'y', set: 'z' }], weight: i % 2 ? 0.75 : 1 }));
        const agent = compileAgent({ inputs: inputsDefinition, outputs: { y: { z: [0, 1, 2] } }, rules, operators: ops });
        const given = Object.fromEntries(Object.entries({ u, v, w }).filter(([, x]) => x !== undefined)) as Record<string, number>;
        const degree = (variable: string, set: string) =>
          given[variable] === undefined ? NaN : membership(sets[set as keyof typeof sets], [0, 10], given[variable]!);
        const strengths = activations(agent, given).map(({ strength }) => strength);
        conditions.forEach((c, i) => {
          // the printed rule parses with nested ANDs (ORs) flattened: the same degree, min, product, max and probabilistic sum being associative
          const expected = oracle(c, degree, ops) * (i % 2 ? 0.75 : 1);
          expect(strengths[i]).toBeCloseTo(expected >= 1e-150 ? expected : 0, 12);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('an evaluation nested in an input getter of the same agent leaves the outer evaluation intact', () => {
    const definition: AgentDefinition = {
      inputs: { u: sets },
      outputs: { y: { a: [0, 1, 2], b: [2, 3, 4] } },
      rules: ['IF u IS lo THEN y IS a', 'IF u IS hi THEN y IS b'],
    };
    const agent = compileAgent(definition);
    const plain = evaluate(agent, { u: 1 }, { trace: true });
    let inner: unknown;
    const tricky = {
      get u() {
        inner = evaluate(agent, { u: 9 }).crisp;
        return 1;
      },
    };
    expect(evaluate(agent, tricky, { trace: true })).toEqual(plain);
    expect(inner).toEqual(evaluate(agent, { u: 9 }).crisp);
    expect(Object.isFrozen(agent[PROGRAM])).toBe(true);
  });
});
