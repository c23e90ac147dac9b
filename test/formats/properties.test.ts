// Round trips over random agents, one property per format: writing an agent and reading the file
// back gives the same agent (names, sets, canonical rules, operators). Each format gets the rules it
// can hold: FCL any condition, FLL no NOT over a group, FIS one AND or OR of literals.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRule, printRule, type Condition, type IfRule, type Operators } from '../../src/engine/index.js';
import { readModel, writeModel, type Model, type ModelFormat } from '../../src/formats/index.js';
import { operatorsSetting, writableName } from '../../src/formats/model.js';

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,5}$/).filter((name) => {
  try {
    writableName(name, 'test');
    return true;
  } catch {
    return false;
  }
});
const point = fc.integer({ min: -40, max: 40 }).map((k) => k / 4);
const set = fc.integer({ min: 2, max: 4 }).chain((n) => fc.array(point, { minLength: n, maxLength: n }).map((p) => p.sort((a, b) => a - b)));
const variables = fc
  .uniqueArray(identifier, { minLength: 1, maxLength: 3 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .uniqueArray(identifier, { minLength: 1, maxLength: 4 })
          .chain((sets) => fc.tuple(...sets.map(() => set)).map((points) => [name, Object.fromEntries(sets.map((s, i) => [s, points[i]!]))] as const)),
      ),
    ),
  );
const operators = fc.record({
  and: fc.constantFrom('min' as const, 'product' as const),
  or: fc.constantFrom('max' as const, 'probabilisticSum' as const),
  implication: fc.constantFrom('min' as const, 'product' as const),
});

type Shape = 'any' | 'no NOT over groups' | 'flat';

function models(shape: Shape): fc.Arbitrary<Model> {
  return fc.record({ name: identifier, inputs: variables, outputs: variables, operators }).chain(({ name, inputs, outputs, operators: chosen }) => {
    const literalOf = (names: readonly string[], pool: typeof inputs) =>
      fc.constantFrom(...names).chain((v) => fc.constantFrom(...Object.keys(pool.find(([n]) => n === v)![1])).map((s) => ({ variable: v, set: s })));
    const inputNames = inputs.map(([n]) => n);
    const literal = fc.tuple(literalOf(inputNames, inputs), fc.boolean()).map(([is, negated]): Condition => {
      const condition: Condition = { type: 'is', ...is };
      return negated ? { type: 'not', operand: condition } : condition;
    });
    const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
      condition: fc.oneof(
        { depthSize: 'small', maxDepth: 4 },
        literal,
        ...(shape === 'any' ? [fc.record({ type: fc.constant('not' as const), operand: tie('condition') })] : []),
        fc.record({ type: fc.constantFrom('and' as const, 'or' as const), operands: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }) }),
      ),
    }));
    // FIS: each input at most once, in input order (a FIS rule is one set index per input), one connective
    const flat = fc.tuple(fc.subarray(inputNames, { minLength: 1 }), fc.constantFrom('and' as const, 'or' as const)).chain(([names, type]) =>
      fc.tuple(...names.map((v) => fc.tuple(literalOf([v], inputs), fc.boolean()))).map((parts): Condition => {
        const literals = parts.map(([is, negated]): Condition => (negated ? { type: 'not', operand: { type: 'is', ...is } } : { type: 'is', ...is }));
        return literals.length === 1 ? literals[0]! : { type, operands: literals };
      }),
    );
    const conclusions =
      shape === 'flat'
        ? fc
            .subarray(
              outputs.map(([n]) => n),
              { minLength: 1 },
            )
            .chain((names) => fc.tuple(...names.map((o) => literalOf([o], outputs))))
        : fc.array(
            literalOf(
              outputs.map(([n]) => n),
              outputs,
            ),
            { minLength: 1, maxLength: 3 },
          );
    const rule = fc.record({
      type: fc.constant('if' as const),
      condition: shape === 'flat' ? flat : condition,
      conclusions,
      weight: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
    });
    return fc.array(rule, { minLength: 1, maxLength: 6 }).map(
      (rules): Model => ({
        name,
        definition: {
          inputs: Object.fromEntries(inputs),
          outputs: Object.fromEntries(outputs),
          // canonical text: what reading any rule gives
          rules: rules.map((r: IfRule) => printRule(parseRule(printRule(r)))),
          ...operatorsSetting(chosen as Required<Operators>),
        },
      }),
    );
  });
}

describe('round trip over random agents', () => {
  const cases: Array<[ModelFormat, Shape]> = [
    ['fcl', 'any'],
    ['fll', 'no NOT over groups'],
    ['fis', 'flat'],
  ];
  for (const [format, shape] of cases) {
    it(`${format}: read(write(agent)) is the agent (rules: ${shape})`, () => {
      fc.assert(
        fc.property(models(shape), (model) => {
          expect(readModel(format, writeModel(format, model))).toEqual(model);
        }),
        { numRuns: 300 },
      );
    });
  }
});

// Agents with terms of every kind fuzzylite has, declared universes, every norm, the integral
// defuzzifiers and hedges: written in each format and read back, the same agent.
const T_NORM_NAMES = ['min', 'product', 'boundedDifference', 'drasticProduct', 'einsteinProduct', 'hamacherProduct', 'nilpotentMinimum'] as const;
const S_NORM_NAMES = ['max', 'probabilisticSum', 'boundedSum', 'normalizedSum', 'drasticSum', 'einsteinSum', 'hamacherSum', 'nilpotentMaximum'] as const;
const at = fc.integer({ min: 0, max: 40 }).map((k) => k / 4);
const width = fc.integer({ min: 1, max: 20 }).map((k) => k / 4);
const sorted = (count: number) => fc.array(at, { minLength: count, maxLength: count }).map((values) => values.sort((a, b) => a - b));
/** a term inside the universe [0, 10], as its JSON object */
const curved = fc.oneof(
  fc.record({ type: fc.constant('gaussian' as const), mean: at, standardDeviation: width }),
  fc.record({ type: fc.constant('bell' as const), center: at, width, slope: width }),
  fc.record({ type: fc.constant('sigmoid' as const), inflection: at, slope: fc.constantFrom(-4, -1, 2, 8) }),
  fc.record({ type: fc.constant('cosine' as const), center: at, width }),
  fc.record({ type: fc.constant('spike' as const), center: at, width }),
  sorted(3).map(([a, b, c]) => ({ type: 'triangle' as const, vertexA: a!, vertexB: b!, vertexC: c! })),
  sorted(2)
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => ({ type: 'sShape' as const, start: a!, end: b! })),
  fc
    .tuple(
      sorted(2),
      fc.integer({ min: 1, max: 4 }).map((k) => k / 4),
    )
    .map(([[a, b], y]) => ({
      type: 'discrete' as const,
      points: [
        [a!, 0],
        [b!, y],
      ] as Array<[number, number]>,
    })),
);
const kindedVariable = fc
  .uniqueArray(identifier, { minLength: 1, maxLength: 3 })
  .chain((names) =>
    fc
      .tuple(
        fc.record({ type: fc.constant('gaussian' as const), mean: at, standardDeviation: width }),
        fc.array(curved, { minLength: names.length - 1, maxLength: names.length - 1 }),
      )
      .map(([first, rest]) => Object.fromEntries(names.map((name, i) => [name, i === 0 ? first : rest[i - 1]!]))),
  );

/** `flat`: FIS rules, one condition per input */
function kindedModels(flat: boolean): fc.Arbitrary<Model> {
  return fc
    .record({
      name: identifier,
      input: kindedVariable,
      output: kindedVariable,
      and: fc.constantFrom(...T_NORM_NAMES),
      or: fc.constantFrom(...S_NORM_NAMES),
      implication: fc.constantFrom(...T_NORM_NAMES),
      aggregation: fc.constantFrom(...S_NORM_NAMES),
      defuzzification: fc.constantFrom(
        'centroid' as const,
        'bisector' as const,
        'meanOfMaximum' as const,
        'smallestOfMaximum' as const,
        'largestOfMaximum' as const,
      ),
      hedges: fc.array(fc.constantFrom(undefined, 'very', 'somewhat', 'seldom', 'extremely'), { minLength: 6, maxLength: 6 }),
    })
    .map(({ name, input, output, and, or, implication, aggregation, defuzzification, hedges }): Model => {
      const hedged = (hedge: string | undefined, set: string) => (hedge ? `${hedge} ${set}` : set);
      const inputSets = Object.keys(input);
      const outputSets = Object.keys(output);
      const condition = (set: string, i: number) =>
        flat ? `x IS ${hedged(hedges[i], set)}` : `x IS ${hedged(hedges[i], set)} ${i % 2 === 0 ? 'AND' : 'OR'} x IS NOT ${inputSets[0]}`;
      const rules = inputSets.map((set, i) => `IF ${condition(set, i)} THEN y IS ${hedged(hedges[i + 3], outputSets[i % outputSets.length]!)}`);
      const settings = { ...(aggregation === 'max' ? {} : { aggregation }), ...(defuzzification === 'centroid' ? {} : { defuzzification }) };
      return {
        name,
        definition: {
          inputs: { x: input },
          outputs: { y: output },
          rules: rules.map((rule) => printRule(parseRule(rule))),
          operators: {
            ...(and === 'min' ? {} : { and }),
            ...(or === 'max' ? {} : { or }),
            ...(implication === 'min' ? {} : { implication }),
            ranges: { x: [0, 10], y: [0, 10] },
            ...(Object.keys(settings).length > 0 ? { outputs: { y: settings } } : {}),
          },
        },
      };
    });
}

describe('round trip over random agents with every term kind, universe, norm and hedge', () => {
  for (const format of ['fll', 'fcl', 'fis'] as const) {
    it(`${format}: read(write(agent)) is the agent`, () => {
      fc.assert(
        fc.property(kindedModels(format === 'fis'), (model) => {
          expect(readModel(format, writeModel(format, model))).toEqual(model);
        }),
        { numRuns: 200 },
      );
    });
  }
});
