// What fuzzbox cannot express is refused, naming the construct and its line; never approximated.

import { describe, expect, it } from 'vitest';
import { FormatError, readModel, writeModel, type ModelFormat } from '../../src/formats/index.js';

function refusal(format: ModelFormat, text: string): FormatError {
  try {
    readModel(format, text);
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error('expected a FormatError');
}

const fcl = (fuzzify: string, defuzzify: string, rules: string) => `FUNCTION_BLOCK t
VAR_INPUT
  x : REAL;
END_VAR
VAR_OUTPUT
  y : REAL;
END_VAR
FUZZIFY x
  ${fuzzify}
END_FUZZIFY
DEFUZZIFY y
  ${defuzzify}
END_DEFUZZIFY
RULEBLOCK r
  ${rules}
END_RULEBLOCK
END_FUNCTION_BLOCK
`;
const goodFuzzify = 'TERM lo := (0, 1) (5, 0); TERM hi := (5, 0) (10, 1);';
const goodDefuzzify = 'TERM a := (0, 0) (5, 1) (10, 0); METHOD : COG;';
const goodRules = 'RULE 1 : IF x IS lo THEN y IS a;';

const fll = (term: string, extra = '', rule = 'if x is lo then y is a') => `Engine: t
InputVariable: x
  range: 0 10
  term: lo Ramp 5 0
  ${term}
OutputVariable: y
  range: 0 10
  aggregation: Maximum
  defuzzifier: Centroid 200
  term: a Triangle 0 5 10
RuleBlock:
  conjunction: Minimum
  ${extra}
  rule: ${rule}
`;

describe('refusals name the construct and its line', () => {
  it('FCL: Gaussian and bell terms, singletons, other methods and accumulations, points between 0 and 1, unknown operators', () => {
    expect(refusal('fcl', fcl('TERM g := GAUSS 5 2;', goodDefuzzify, goodRules))).toMatchObject({ line: 9, construct: 'Gaussian' });
    expect(refusal('fcl', fcl('TERM g := Bell 5 2 1;', goodDefuzzify, goodRules)).message).toMatch(/^line 9: the Bell term "g" is not supported/);
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := 5; METHOD : COGS;', goodRules))).toMatchObject({ line: 12, construct: 'Constant' });
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := (0, 0) (5, 1) (10, 0); METHOD : MM;', goodRules))).toMatchObject({ line: 12, construct: 'defuzzifier meanOfMaximum' });
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := (0, 0) (5, 1) (10, 0); ACCU : BSUM;', goodRules))).toMatchObject({ line: 12, construct: 'aggregation boundedSum' });
    expect(refusal('fcl', fcl('TERM m := (0, 0) (5, 0.5) (10, 0);', goodDefuzzify, goodRules)).message).toBe(
      `line 9: term "m" has a point of degree 0.5; fuzzbox's sets have corners at degrees 0 and 1 only`,
    );
    expect(refusal('fcl', fcl(goodFuzzify, goodDefuzzify, `AND : BDIF; ${goodRules}`))).toMatchObject({ line: 15, construct: 'conjunction boundedDifference' });
  });

  it('hedges, and rules naming what does not exist, at the rule line', () => {
    const hedge = refusal('fcl', fcl(goodFuzzify, goodDefuzzify, 'RULE 1 : IF x IS very lo THEN y IS a;'));
    expect(hedge).toMatchObject({ line: 15, construct: 'hedge "very"' });
    expect(refusal('fll', fll('', '', 'if x is somewhat lo then y is a'))).toMatchObject({ line: 14, construct: 'hedge "somewhat"' });
    const unknown = refusal('fcl', fcl(goodFuzzify, goodDefuzzify, 'RULE 1 : IF x IS warm THEN y IS a;'));
    expect(unknown.line).toBe(15);
    expect(unknown.message).toMatch(/^line 15: column \d+: unknown set "warm" for input "x" \(known: lo, hi\)/);
    expect(refusal('fcl', fcl(goodFuzzify, goodDefuzzify, 'RULE 1 : IF x lo THEN y IS a;')).message).toMatch(/^line 15: cannot read the rule "IF x lo THEN y IS a": expected IS/);
  });

  it('FLL: other term types and defuzzifiers, term heights, Sugeno outputs', () => {
    expect(refusal('fll', fll('term: g Gaussian 5 2'))).toMatchObject({ line: 5, construct: 'Gaussian' });
    expect(refusal('fll', fll('term: t Triangle 0 5 10 0.5'))).toMatchObject({ line: 5, construct: 'term height' });
    expect(refusal('fll', fll('', 'implication: Lukasiewicz'))).toMatchObject({ line: 13, construct: 'implication Lukasiewicz' });
    const sugeno = fll('').replace('defuzzifier: Centroid 200', 'defuzzifier: WeightedAverage TakagiSugeno');
    expect(refusal('fll', sugeno)).toMatchObject({ line: 9, construct: 'defuzzifier weightedAverage' });
  });

  it('FIS: Sugeno systems, gaussmf, other methods', () => {
    const fis = (system: string, mf = "MF1='lo':'trimf',[0 0 10]") => `[System]
Name='t'
${system}
[Input1]
Name='x'
Range=[0 10]
NumMFs=1
${mf}
[Output1]
Name='y'
Range=[0 10]
NumMFs=1
MF1='a':'trimf',[0 5 10]
[Rules]
1, 1 (1) : 1
`;
    expect(refusal('fis', fis("Type='sugeno'"))).toMatchObject({ line: 3, construct: 'Type sugeno' });
    expect(refusal('fis', fis("Type='mamdani'", "MF1='lo':'gaussmf',[2 5]"))).toMatchObject({ line: 8, construct: 'Gaussian' });
    expect(refusal('fis', fis("DefuzzMethod='bisector'"))).toMatchObject({ line: 3, construct: 'defuzzifier bisector' });
    expect(readModel('fis', fis("Type='mamdani'")).definition).toEqual({ inputs: { x: { lo: [0, 0, 10] } }, outputs: { y: { a: [0, 5, 10] } }, rules: ['IF x IS lo THEN y IS a'] });
  });
});

describe('writers refuse what their format cannot hold', () => {
  const definition = {
    inputs: { x: { lo: [0, 5], hi: [5, 10] }, z: { on: [0, 1] } },
    outputs: { y: { a: [0, 5, 10] } },
    rules: ['IF NOT (x IS lo AND z IS on) THEN y IS a'],
  };

  it('FLL and FIS have no NOT over a group; FIS no nesting; FCL writes it', () => {
    expect(() => writeModel('fll', { name: 't', definition })).toThrow('FLL has no NOT over a group of conditions');
    expect(() => writeModel('fis', { name: 't', definition })).toThrow('FIS cannot hold the rule "IF NOT (x IS lo AND z IS on) THEN y IS a": its rules are one AND or one OR of conditions, without nesting');
    expect(readModel('fcl', writeModel('fcl', { name: 't', definition })).definition).toEqual(definition);
  });

  it('names that are no identifiers cannot be written in FCL or FLL', () => {
    const spaced = { ...definition, inputs: { 'very low': { lo: [0, 5] } }, rules: ['IF "very low" IS lo THEN y IS a'] };
    for (const format of ['fcl', 'fll'] as const) {
      expect(() => writeModel(format, { name: 't', definition: spaced })).toThrow(`the name "very low" cannot be written in ${format.toUpperCase()}`);
    }
    expect(readModel('fis', writeModel('fis', { name: 't', definition: spaced })).definition).toEqual(spaced);
  });

  it('INCREASES / DECREASES are written as the IF rules they stand for', () => {
    const trend = { inputs: { x: { lo: [0, 5], hi: [5, 10] } }, outputs: { y: { a: [0, 5, 10], b: [10, 15, 20] } }, rules: ['x INCREASES y WITH 0.5'] };
    expect(readModel('fll', writeModel('fll', { name: 't', definition: trend })).definition.rules).toEqual([
      'IF x IS lo THEN y IS a WITH 0.5',
      'IF x IS hi THEN y IS b WITH 0.5',
    ]);
  });
});
