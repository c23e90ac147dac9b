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
const variables = fc.uniqueArray(identifier, { minLength: 1, maxLength: 3 }).chain((names) =>
  fc.tuple(...names.map((name) => fc.uniqueArray(identifier, { minLength: 1, maxLength: 4 }).chain((sets) => fc.tuple(...sets.map(() => set)).map((points) => [name, Object.fromEntries(sets.map((s, i) => [s, points[i]!]))] as const)))),
);
const operators = fc.record({
  and: fc.constantFrom('min' as const, 'product' as const),
  or: fc.constantFrom('max' as const, 'probabilisticSum' as const),
  implication: fc.constantFrom('min' as const, 'product' as const),
});

type Shape = 'any' | 'no NOT over groups' | 'flat';

function models(shape: Shape): fc.Arbitrary<Model> {
  return fc
    .record({ name: identifier, inputs: variables, outputs: variables, operators })
    .chain(({ name, inputs, outputs, operators: chosen }) => {
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
      const flat = fc
        .tuple(fc.subarray(inputNames, { minLength: 1 }), fc.constantFrom('and' as const, 'or' as const))
        .chain(([names, type]) =>
          fc.tuple(...names.map((v) => fc.tuple(literalOf([v], inputs), fc.boolean()))).map((parts): Condition => {
            const literals = parts.map(([is, negated]): Condition => (negated ? { type: 'not', operand: { type: 'is', ...is } } : { type: 'is', ...is }));
            return literals.length === 1 ? literals[0]! : { type, operands: literals };
          }),
        );
      const conclusions =
        shape === 'flat'
          ? fc.subarray(outputs.map(([n]) => n), { minLength: 1 }).chain((names) => fc.tuple(...names.map((o) => literalOf([o], outputs))))
          : fc.array(literalOf(outputs.map(([n]) => n), outputs), { minLength: 1, maxLength: 3 });
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
