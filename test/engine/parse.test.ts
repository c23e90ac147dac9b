import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRule, printRule, RuleSyntaxError, type Condition, type RuleAst } from '../../src/engine/index.js';

const is = (variable: string, set: string): Condition => ({ type: 'is', variable, set });

describe('parseRule', () => {
  it('reads an IF rule into a plain AST, keywords in any case, WITH defaulting to 1', () => {
    expect(parseRule('if service is poor and food Is rancid THEN tip IS cheap')).toEqual({
      type: 'if',
      condition: { type: 'and', operands: [is('service', 'poor'), is('food', 'rancid')] },
      conclusions: [{ variable: 'tip', set: 'cheap' }],
      weight: 1,
    });
  });

  it('gives AND precedence over OR, and parentheses precedence over both', () => {
    const ast = parseRule('IF a IS x OR b IS y AND c IS z THEN o IS p');
    expect(ast).toMatchObject({
      condition: { type: 'or', operands: [is('a', 'x'), { type: 'and', operands: [is('b', 'y'), is('c', 'z')] }] },
    });
    expect(parseRule('IF (a IS x OR b IS y) AND c IS z THEN o IS p')).toMatchObject({
      condition: { type: 'and', operands: [{ type: 'or', operands: [is('a', 'x'), is('b', 'y')] }, is('c', 'z')] },
    });
  });

  it('flattens nested ANDs and nested ORs, so one condition has one AST however it is bracketed', () => {
    const flat = parseRule('IF a IS x AND b IS y AND c IS z THEN o IS p');
    expect(parseRule('IF (a IS x AND b IS y) AND c IS z THEN o IS p')).toEqual(flat);
    expect(parseRule('IF a IS x AND (b IS y AND (c IS z)) THEN o IS p')).toEqual(flat);
    expect(parseRule('IF (a IS x OR b IS y) OR c IS z THEN o IS p')).toMatchObject({
      condition: { type: 'or', operands: [is('a', 'x'), is('b', 'y'), is('c', 'z')] },
    });
  });

  it('reads "x IS NOT s" and "NOT x IS s" as the same negation, and NOT of a group', () => {
    const negated = { type: 'not', operand: is('a', 'x') };
    expect(parseRule('IF a IS NOT x THEN o IS p')).toMatchObject({ condition: negated });
    expect(parseRule('IF NOT a IS x THEN o IS p')).toMatchObject({ condition: negated });
    expect(parseRule('IF NOT (a IS x OR b IS y) THEN o IS p')).toMatchObject({
      condition: { type: 'not', operand: { type: 'or', operands: [is('a', 'x'), is('b', 'y')] } },
    });
    expect(parseRule('IF NOT NOT a IS x THEN o IS p')).toMatchObject({ condition: { type: 'not', operand: negated } });
  });

  it('reads several conclusions, a weight, and quoted names with spaces, keywords and escapes', () => {
    expect(parseRule('IF "room temp" IS "very hot" THEN fan IS "is on", "the \\"valve\\"" IS open WITH 0.25')).toEqual({
      type: 'if',
      condition: is('room temp', 'very hot'),
      conclusions: [
        { variable: 'fan', set: 'is on' },
        { variable: 'the "valve"', set: 'open' },
      ],
      weight: 0.25,
    });
  });

  it('accepts weights written as 0, 1, .5, 1. and 5e-1', () => {
    for (const [text, weight] of [
      ['0', 0],
      ['1', 1],
      ['.5', 0.5],
      ['1.', 1],
      ['5e-1', 0.5],
    ] as const) {
      expect(parseRule(`IF a IS x THEN o IS p WITH ${text}`)).toMatchObject({ weight });
    }
  });

  it('reads INCREASES and DECREASES rules', () => {
    expect(parseRule('service increases tip')).toEqual({ type: 'increases', input: 'service', output: 'tip', weight: 1 });
    expect(parseRule('"noise level" DECREASES volume WITH 0.5')).toEqual({
      type: 'decreases',
      input: 'noise level',
      output: 'volume',
      weight: 0.5,
    });
  });
});

describe('RuleSyntaxError', () => {
  // Each case: the rule, the 1-based column of the fault, and the message, which names what was expected.
  const cases: Array<[string, number, string]> = [
    ['', 1, 'column 1: expected IF or a variable name at the start of the rule'],
    ['THEN tip IS cheap', 1, 'column 1: expected IF or a variable name at the start of the rule'],
    ['IF temperature hot THEN fan IS on', 16, 'column 16: expected IS after "temperature"'],
    ['IF  temperature  hot THEN fan IS on', 18, 'column 18: expected IS after "temperature"'],
    ['IF THEN fan IS on', 4, 'column 4: expected a variable name, NOT or "(" after IF'],
    ['IF a IS THEN fan IS on', 9, 'column 9: expected a set name or NOT after IS'],
    ['IF a IS NOT THEN fan IS on', 13, 'column 13: expected a set name after NOT'],
    ['IF a IS x fan IS on', 11, 'column 11: expected AND, OR or THEN after "x"'],
    ['IF a IS x', 10, 'column 10: expected AND, OR or THEN after "x"'],
    ['IF (a IS x THEN fan IS on', 12, 'column 12: expected AND, OR or ")" to close the "(" at column 4 after "x"'],
    ['IF a IS x) THEN fan IS on', 10, 'column 10: expected AND, OR or THEN after "x"'],
    ['IF a IS x AND THEN fan IS on', 15, 'column 15: expected a variable name, NOT or "(" after AND'],
    ['IF a IS x THEN', 15, 'column 15: expected an output variable name after THEN'],
    ['IF a IS x THEN fan on', 20, 'column 20: expected IS after "fan"'],
    ['IF a IS x THEN fan IS NOT on', 23, 'column 23: expected a set name (a conclusion cannot be negated) after IS'],
    ['IF a IS x THEN fan IS on,', 26, 'column 26: expected an output variable name after ","'],
    ['IF a IS x THEN fan IS on light IS off', 26, 'column 26: expected ",", WITH or the end of the rule after "on"'],
    ['IF a IS x THEN fan IS on WITH', 30, 'column 30: expected a weight (a number from 0 to 1) after WITH'],
    ['IF a IS x THEN fan IS on WITH -0.5', 31, 'column 31: expected a weight (a number from 0 to 1) after WITH'],
    ['IF a IS x THEN fan IS on WITH half', 31, 'column 31: expected a weight (a number from 0 to 1) after WITH'],
    ['IF a IS x THEN fan IS on WITH 1.5', 31, 'column 31: expected a weight from 0 to 1, got 1.5'],
    ['IF a IS x THEN fan IS on WITH 0.5 0.5', 35, 'column 35: expected the end of the rule after "0.5"'],
    ['service tip', 9, 'column 9: expected INCREASES or DECREASES after "service"'],
    ['service INCREASES', 18, 'column 18: expected an output variable name after INCREASES'],
    ['service INCREASES tip food', 23, 'column 23: expected WITH or the end of the rule after "tip"'],
    ['IF "room temp IS hot THEN fan IS on', 4, 'column 4: expected a closing " for the quoted name that starts here'],
    ['IF "" IS hot THEN fan IS on', 4, 'column 4: expected a name between the quotes'],
  ];

  it.each(cases)('%j fails at column %i: %s', (rule, column, message) => {
    let error: unknown;
    try {
      parseRule(rule);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RuleSyntaxError);
    expect(error).toMatchObject({ name: 'RuleSyntaxError', rule, column, message });
  });
});

describe('printRule', () => {
  it('prints canonical text: upper-case keywords, minimal parentheses, quotes only where needed', () => {
    const ast = parseRule('if (a is x or b is not y) and not (c is z and "d d" is "if") then o is p, "O" is q with 0.5');
    expect(printRule(ast)).toBe('IF (a IS x OR b IS NOT y) AND NOT (c IS z AND "d d" IS "if") THEN o IS p, O IS q WITH 0.5');
    expect(printRule(parseRule('IF NOT a IS x THEN o IS p WITH 1'))).toBe('IF a IS NOT x THEN o IS p');
    expect(printRule(parseRule('x decreases y with .5'))).toBe('x DECREASES y WITH 0.5');
    expect(printRule(parseRule('IF "a\\\\b" IS "say \\"hi\\"" THEN o IS p'))).toBe('IF "a\\\\b" IS "say \\"hi\\"" THEN o IS p');
  });
});

// Canonical ASTs, as the parser produces them: AND/OR with at least two operands, never directly
// nested in one of the same type; names drawn to include spaces, keywords, quotes and punctuation.
const names = fc.oneof(
  fc.constantFrom('a', 'service', 'very low', 'IS', 'then', 'x(1)', 'a,b', 'say "hi"', 'back\\slash', 'é', '42', 'if x'),
  fc.string({ minLength: 1, maxLength: 6 }),
);
const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('is' as const), variable: names, set: names }),
    fc.record({ type: fc.constant('not' as const), operand: tie('condition') }),
    fc
      .record({
        type: fc.constantFrom('and' as const, 'or' as const),
        operands: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }),
      })
      .filter((c) => c.operands.every((operand) => operand.type !== c.type)),
  ),
}));
const weight = fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true }));
const rule: fc.Arbitrary<RuleAst> = fc.oneof(
  fc.record({
    type: fc.constant('if' as const),
    condition,
    conclusions: fc.array(fc.record({ variable: names, set: names }), { minLength: 1, maxLength: 3 }),
    weight,
  }),
  fc.record({ type: fc.constantFrom('increases' as const, 'decreases' as const), input: names, output: names, weight }),
);

describe('print → parse round trip (property)', () => {
  it('parsing the printed text of any canonical AST gives that AST back', () => {
    fc.assert(
      fc.property(rule, (ast) => {
        expect(parseRule(printRule(ast))).toEqual(ast);
      }),
      { numRuns: 2000 },
    );
  });

  it('the AST is plain JSON data', () => {
    fc.assert(
      fc.property(rule, (ast) => {
        expect(JSON.parse(JSON.stringify(parseRule(printRule(ast))))).toEqual(ast);
      }),
    );
  });
});

describe('nesting depth (MAX_NESTING = 64): a deep rule is a syntax error, never a stack overflow', () => {
  const rule = (condition: string) => `IF ${condition} THEN o IS lo`;

  it('accepts 64 levels of parentheses and of NOT', () => {
    const parenthesised = parseRule(rule(`${'('.repeat(64)}a IS lo${')'.repeat(64)}`));
    expect(parenthesised).toMatchObject({ condition: is('a', 'lo') });
    // 64 NOTs: an even number, each one level, around one IS
    let negated: Condition = is('a', 'lo');
    for (let i = 0; i < 64; i++) negated = { type: 'not', operand: negated };
    expect(parseRule(rule(`${'NOT '.repeat(64)}a IS lo`))).toMatchObject({ condition: negated });
  });

  it('rejects the 65th level at its column, for "(", NOT and a mix of them', () => {
    // "IF " takes columns 1..3, so the k-th "(" is at column 3 + k: the 65th at 68
    const deep = rule(`${'('.repeat(3000)}a IS lo${')'.repeat(3000)}`);
    expect(() => parseRule(deep)).toThrow(
      expect.objectContaining({
        name: 'RuleSyntaxError',
        column: 68,
        message: 'column 68: conditions nest deeper than 64 levels (NOT and "(" count one level each)',
      }),
    );
    // the k-th "NOT " starts at column 4 + 4(k − 1): the 65th at 260
    expect(() => parseRule(rule(`${'NOT '.repeat(3000)}a IS lo`))).toThrow('column 260: conditions nest deeper than 64 levels');
    // "NOT (" is 5 characters and two levels: the 33rd pair's NOT is the 65th level, at 4 + 5 · 32 = 164
    expect(() => parseRule(rule(`${'NOT ('.repeat(40)}a IS lo${')'.repeat(40)}`))).toThrow('column 164: conditions nest deeper than 64 levels');
    expect(() => parseRule(rule(`${'NOT '.repeat(3000)}a IS lo`))).toThrow(RuleSyntaxError);
  });

  it('counts depth, not the number of groups: many parenthesised groups side by side are fine', () => {
    const groups = Array.from({ length: 200 }, (_, i) => `(a IS s${i} OR b IS s${i})`).join(' AND ');
    const ast = parseRule(rule(groups));
    expect(ast.type === 'if' && ast.condition.type === 'and' && ast.condition.operands.length).toBe(200);
  });
});

describe('printRule on ASTs of any depth (no recursion)', () => {
  it('prints 100 000 nested NOTs', () => {
    let condition: Condition = { type: 'not', operand: is('a', 'lo') };
    for (let i = 0; i < 100_000; i++) condition = { type: 'not', operand: condition };
    const ast: RuleAst = { type: 'if', condition, conclusions: [{ variable: 'o', set: 'lo' }], weight: 1 };
    expect(printRule(ast)).toBe(`IF ${'NOT '.repeat(100_000)}a IS NOT lo THEN o IS lo`);
  });

  it('prints 50 000 levels of AND inside OR inside AND, with the parentheses precedence needs', () => {
    let condition: Condition = is('c', 's');
    let expected = 'c IS s';
    for (let i = 0; i < 50_000; i++) {
      condition = { type: 'and', operands: [is('a', 's'), { type: 'or', operands: [is('b', 's'), condition] }] };
      // an OR inside an AND needs parentheses, an AND inside an OR does not
      expected = `a IS s AND (b IS s OR ${expected})`;
    }
    const ast: RuleAst = { type: 'if', condition, conclusions: [{ variable: 'o', set: 'lo' }], weight: 1 };
    expect(printRule(ast)).toBe(`IF ${expected} THEN o IS lo`);
  });
});
