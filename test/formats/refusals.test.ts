// What fuzzbox cannot express is refused, naming the construct and its line; never approximated.

import { describe, expect, it } from 'vitest';
import { readModel, writeModel } from '../../src/formats/index.js';
import { refusal } from '../support/refusal.js';

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
  it('what no agent holds: formulas outside the language, outputs depending on themselves, disabled parts, other activations', () => {
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := Function 2*x + eval(y); METHOD : COGS;', goodRules))).toMatchObject({
      line: 12,
      construct: 'outputs.y.a',
    });
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := Function 2*x + eval(y); METHOD : COGS;', goodRules)).message).toMatch(/unknown function "eval"/);
    expect(refusal('fll', fll('', 'activation: Highest 2'))).toMatchObject({ line: 13, construct: 'activation highest' });
    expect(refusal('fll', fll('term: off Ramp 0 1', '', 'if y is a then y is a'))).toMatchObject({ line: 14, construct: 'rules[0]' });
    expect(refusal('fll', fll('term: off Ramp 0 1', '', 'if y is a then y is a')).message).toMatch(/output "y" depends on itself \(y → y\)/);
    expect(refusal('fll', fll('').replace('RuleBlock:', 'RuleBlock:\n  enabled: false'))).toMatchObject({ line: 11, construct: 'enabled: false' });
  });

  it('reads lock-previous and does not keep it: an evaluation depends only on its inputs', () => {
    const locked = readModel('fll', fll('').replace('  aggregation: Maximum', '  aggregation: Maximum\n  lock-previous: true'));
    expect(locked).toEqual(readModel('fll', fll('')));
  });

  it('reads function terms (formulas over x, the inputs and other outputs) and conditions on outputs, and writes them back', () => {
    const model = readModel('fcl', fcl(goodFuzzify, 'RANGE := (0 .. 10); TERM a := Function 2*x + max(x, 1) ^ 2; METHOD : COGS;', goodRules));
    expect(model.definition.outputs.y).toEqual({ a: { type: 'function', formula: '2*x + max(x, 1) ^ 2' } });
    for (const format of ['fll', 'fis', 'fcl'] as const) expect(readModel(format, writeModel(format, model))).toEqual(model);
    const chained = readModel(
      'fll',
      fll('', '', 'if x is lo then y is a')
        .replace('RuleBlock:', 'OutputVariable: z\n  range: 0 1\n  term: b Triangle 0 0.5 1\nRuleBlock:')
        .concat('  rule: if y is a then z is b\n'),
    );
    expect(chained.definition.rules).toEqual(['IF x IS lo THEN y IS a', 'IF y IS a THEN z IS b']);
    for (const format of ['fll', 'fcl'] as const) expect(readModel(format, writeModel(format, chained))).toEqual(chained);
    expect(() => writeModel('fis', chained)).toThrow(/its condition names the output "y", and FIS rows have a column per input only/);
  });

  it('what no tool has: unknown term kinds, norms and defuzzifiers, named as the file names them', () => {
    expect(refusal('fcl', fcl('TERM g := GAUSSIAN_BLUR 5 2;', goodDefuzzify, goodRules))).toMatchObject({ line: 9, construct: 'GAUSSIAN_BLUR' });
    expect(refusal('fcl', fcl(goodFuzzify, 'TERM a := (0, 0) (5, 1) (10, 0); METHOD : MIDDLE;', goodRules))).toMatchObject({
      line: 12,
      construct: 'METHOD MIDDLE',
    });
    expect(refusal('fcl', fcl(goodFuzzify, goodDefuzzify, `AND : LUKASIEWICZ; ${goodRules}`))).toMatchObject({ line: 15, construct: 'AND LUKASIEWICZ' });
    expect(refusal('fll', fll('', 'implication: Lukasiewicz'))).toMatchObject({ line: 13, construct: 'implication Lukasiewicz' });
    expect(refusal('fll', fll('term: t Triangle 0 5'))).toMatchObject({ line: 5, construct: 'triangle' });
    const fis = (mf: string) =>
      `[System]\nName='t'\n[Input1]\nName='x'\nRange=[0 10]\nMF1=${mf}\n[Output1]\nName='y'\nRange=[0 10]\nMF1='a':'trimf',[0 5 10]\n[Rules]\n1, 1 (1) : 1\n`;
    expect(refusal('fis', fis("'lo':'blurmf',[2 5]"))).toMatchObject({ line: 6, construct: 'blurmf' });
    expect(refusal('fis', fis("'lo':'trimf',[0 5 10]").replace("Name='t'", "Name='t'\nType='sugeno'"))).toMatchObject({ line: 3, construct: 'Type sugeno' });
  });

  it('rules naming what does not exist, at the rule line', () => {
    const unknown = refusal('fcl', fcl(goodFuzzify, goodDefuzzify, 'RULE 1 : IF x IS warm THEN y IS a;'));
    expect(unknown.line).toBe(15);
    expect(unknown.message).toMatch(/^line 15: column \d+: unknown set "warm" for input "x" \(known: lo, hi\)/);
    expect(refusal('fcl', fcl(goodFuzzify, goodDefuzzify, 'RULE 1 : IF x lo THEN y IS a;')).message).toMatch(
      /^line 15: cannot read the rule "IF x lo THEN y IS a": expected IS/,
    );
  });

  it('what was refused before is read: curved terms, singletons, other methods, hedges', () => {
    const gaussian = readModel(
      'fcl',
      fcl(
        'TERM lo := Gaussian 0 2; TERM hi := Bell 10 2 3; RANGE := (0 .. 10);',
        'TERM a := 5; TERM b := 7; METHOD : COGS;',
        'RULE 1 : IF x IS very lo THEN y IS a;',
      ),
    );
    expect(gaussian.definition.inputs.x).toEqual({
      lo: { type: 'gaussian', mean: 0, standardDeviation: 2 },
      hi: { type: 'bell', center: 10, width: 2, slope: 3 },
    });
    expect(gaussian.definition.outputs.y).toEqual({ a: { type: 'constant', value: 5 }, b: { type: 'constant', value: 7 } });
    expect(gaussian.definition.rules).toEqual(['IF x IS very lo THEN y IS a']);
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
    expect(() => writeModel('fis', { name: 't', definition })).toThrow(
      'this agent cannot be written as FIS: the rule "IF NOT (x IS lo AND z IS on) THEN y IS a": its rules are one AND or one OR of conditions, without nesting',
    );
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
