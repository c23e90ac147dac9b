// Function terms (formulas) and chained outputs (conditions on outputs), against values worked out by
// hand from fuzzylite's definitions (docs/ENGINE.md, "Function terms" and "Chained outputs").

import { describe, expect, it } from 'vitest';
import { AgentValidationError, compileAgent, evaluate, evaluationCost } from '../../src/engine/index.js';
import { compileFormula, evaluateFormula, formulaNames } from '../../src/engine/formula.js';
import { MAX_FORMULA_DEPTH, MAX_FORMULA_LENGTH, MAX_FORMULA_NODES } from '../../src/engine/limits.js';
import type { AgentDefinition } from '../../src/engine/types.js';
import { agentBodySchema } from '../../src/schema/agent.js';

const names = formulaNames(['a', 'b'], ['out']);
const value = (text: string, x = 0, a = 2, b = 3, out = NaN) => evaluateFormula(compileFormula(text, names), x, Float64Array.of(a, b), Float64Array.of(out));

describe('formulas', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512], // right-associative
    ['-2 ^ 2', -4], // unary minus below ^
    ['~2 ^ 2', 4], // fuzzylite's ~ binds tightest
    ['7 % 4', 3],
    ['-7 % 4', -3], // C's fmod: the sign of the dividend
    ['fmod(7.5, 2)', 1.5],
    ['a * x + b', 2 * 0.5 + 3],
    ['sin(x) / x', Math.sin(0.5) / 0.5],
    ['atan2(b, a)', Math.atan2(3, 2)],
    ['max(a, b) - min(a, b)', 1],
    ['pow(a, b)', 8],
    ['round(2.5) + round(-2.5)', 0], // half away from zero
    ['eq(a, 2.0000001) + neq(a, b) + gt(b, a) + ge(a, a) + lt(a, b) + le(b, a)', 5], // 1e-6 tolerance
    ['a and 1', 0],
    ['1 and 1.0000001 or 0', 1],
    ['!1 + !0', 1],
    ['1e-3 * 2', 0.002],
    ['.5 + 1.', 1.5],
    ['fabs(out - a)', 3],
    ['log10(1000) + exp(0) + sqrt(16) + abs(-1) + floor(1.5) + ceil(1.5)', 3 + 1 + 4 + 1 + 1 + 2],
  ])('%s = %d', (text, expected) => {
    expect(value(text, 0.5, 2, 3, 5)).toBeCloseTo(expected, 12);
  });

  it('NaN and infinities as fuzzylite has them: min and max of NaN are NaN, 1 to any power 1, nan and inf constants', () => {
    expect(value('max(nan, 1)')).toBeNaN();
    expect(value('pow(1, nan) + 1 ^ inf')).toBe(2);
    expect(value('out', 0, 2, 3, NaN)).toBeNaN();
  });

  it.each([
    ['', /column 1: a formula must not be empty/],
    ['1 +', /column 4: expected a number, a name or "\(", got the end/],
    ['(1 + 2', /column 7: expected "\)", got the end/],
    ['sin(1, 2)', /column 6: expected "\)" after the argument of sin, got ","/],
    ['atan2(1)', /column 8: expected "," and the 2 arguments of atan2/],
    ['eval(a)', /column 1: unknown function "eval"/],
    ['sin', /column 1: sin is a function: write sin\(…\)/],
    ['c + 1', /column 1: unknown name "c": a formula reads x, the agent's inputs and outputs, nan and inf/],
    ['a < b', /column 3: unexpected "<"/],
    ['a b', /column 3: expected an operator or the end of the formula, got "b"/],
    ['constructor', /unknown name "constructor"/],
    ['__proto__(1)', /unknown function "__proto__"/],
    ['x'.repeat(MAX_FORMULA_LENGTH + 1), new RegExp(`at most ${MAX_FORMULA_LENGTH} characters`)],
    [`${'('.repeat(MAX_FORMULA_DEPTH + 2)}1${')'.repeat(MAX_FORMULA_DEPTH + 2)}`, new RegExp(`nests at most ${MAX_FORMULA_DEPTH} levels`)],
    [Array.from({ length: MAX_FORMULA_NODES }, () => '1').join('+'), new RegExp(`at most ${MAX_FORMULA_NODES} numbers, names and operations`)],
  ])('refuses %j', (text, message) => {
    expect(() => compileFormula(text, names)).toThrow(message);
  });
});

/** A Takagi–Sugeno agent whose output y is a formula of its input a and of x, the rule's activation. */
const sugeno = (formula: string): AgentDefinition => ({
  inputs: { a: { low: { type: 'ramp', start: 10, end: 0 }, high: { type: 'ramp', start: 0, end: 10 } } },
  outputs: { y: { f: { type: 'function', formula }, g: { type: 'constant', value: 1 } } },
  rules: ['IF a IS low THEN y IS f', 'IF a IS high THEN y IS g'],
});

describe('function terms', () => {
  it('a weighted output: each activation w weighs the formula at x = w and the inputs (fuzzylite: Function::membership(w))', () => {
    const agent = compileAgent(sugeno('a * x + 1'));
    // a = 2.5: low (falling shoulder) 0.75, high 0.25; z_f = 2.5 · 0.75 + 1 = 2.875, z_g = 1
    expect(evaluate(agent, { a: 2.5 }).crisp.y).toBeCloseTo((0.75 * 2.875 + 0.25 * 1) / (0.75 + 0.25), 14);
  });

  it('a formula without a value (sin(x)/x at 0) leaves the output to its default, as fuzzylite', () => {
    const agent = compileAgent({ ...sugeno('sin(a) / a'), rules: ['IF a IS low THEN y IS f'] });
    expect(evaluate(agent, { a: 0 }).crisp).toEqual({});
    expect(evaluate(agent, { a: 2 }).crisp.y).toBeCloseTo(Math.sin(2) / 2, 14);
  });

  it('a formula may read other outputs: they are defuzzified first, whatever their order; the trace shows its bar', () => {
    const definition: AgentDefinition = {
      inputs: sugeno('x').inputs,
      outputs: {
        gap: { d: { type: 'function', formula: 'fabs(lo - hi)' } },
        lo: { c: { type: 'linear', coefficients: { a: 2 } } },
        hi: { k: { type: 'constant', value: 3 } },
      },
      rules: ['IF a IS any THEN gap IS d', 'IF a IS low THEN lo IS c', 'IF a IS high THEN hi IS k'],
    };
    const agent = compileAgent(definition);
    // a = 4: low 0.6, high 0.4 reach lo (2a = 8) and hi (3) alone; gap reads both
    const { crisp } = evaluate(agent, { a: 4 });
    expect(crisp.lo).toBeCloseTo(8, 14);
    expect(crisp.hi).toBeCloseTo(3, 14);
    expect(crisp.gap).toBe(Math.abs(crisp.lo! - crisp.hi!));
    expect(Object.keys(evaluate(agent, { a: 4 }).crisp)).toEqual(['gap', 'lo', 'hi']);
    const trace = evaluate(agent, { a: 4 }, { trace: true });
    expect(trace.clipped.gap!.d).toEqual([
      [5, 0],
      [5, 1],
      [5, 0],
    ]);
  });

  it('is refused where it cannot be: in an input, in an integrated output, reading itself, or malformed', () => {
    const issues = (definition: unknown) => {
      try {
        compileAgent(definition as AgentDefinition);
      } catch (error) {
        if (error instanceof AgentValidationError) return error.issues.map(({ path, message }) => `${path}: ${message}`);
        throw error;
      }
      return [];
    };
    expect(issues({ ...sugeno('x'), inputs: { a: { low: { type: 'function', formula: 'x' }, high: [0, 10] } } })).toEqual([
      "inputs.a.low: a function term gives a Takagi–Sugeno output's value; inputs have fuzzy sets",
    ]);
    expect(issues({ ...sugeno('x'), operators: { defuzzification: 'centroid' } })[0]).toMatch(/which a centroid cannot integrate/);
    expect(issues({ ...sugeno('y + 1') })).toEqual([
      'outputs.y.f: output "y" depends on itself (y → y): a condition on an output is read after every rule concluding it, and a formula after the outputs it reads',
    ]);
    expect(issues({ ...sugeno('a +') })).toEqual(['outputs.y.f: function: column 4: expected a number, a name or "(", got the end in formula "a +"']);
    expect(issues({ ...sugeno('x'), outputs: { y: { f: { type: 'function', formula: 2 } } } })[0]).toMatch(/formula is a string/);
  });

  it("an evaluation's cost counts each formula's steps per activation weighing it", () => {
    const cost = (formula: string) => evaluationCost(compileAgent(sugeno(formula)));
    // one rule concludes f: 'a * x + 1' is 5 steps, 'x' 1, at 5 steps of cost each
    expect(cost('a * x + 1') - cost('x')).toBe(4 * 5);
  });

  it('the JSON schema reads {"type": "function", "formula": …} and bounds the formula', () => {
    const body = { ...sugeno('a * x'), name: 'f' };
    expect(agentBodySchema.safeParse(body).success).toBe(true);
    const long = agentBodySchema.safeParse({ ...body, outputs: { y: { f: { type: 'function', formula: 'x'.repeat(MAX_FORMULA_LENGTH + 1) } } } });
    expect(long.success).toBe(false);
    expect(JSON.stringify(long.error?.issues)).toMatch(/at most 1000 characters/);
    const extra = agentBodySchema.safeParse({ ...body, outputs: { y: { f: { type: 'function', formula: 'x', height: 1 } } } });
    expect(JSON.stringify(extra.error?.issues)).toMatch(/a function term has type, formula, not height/);
  });
});

describe('chained outputs', () => {
  // SimpleDimmerChained's structure: power from ambient, inverse from power's sets
  const dimmer = (rules: string[]): AgentDefinition => ({
    inputs: { ambient: { dark: [0, 0.25, 0.5], medium: [0.25, 0.5, 0.75], bright: [0.5, 0.75, 1] } },
    outputs: {
      power: { low: [0, 0.25, 0.5], medium: [0.25, 0.5, 0.75], high: [0.5, 0.75, 1] },
      inverse: { low: { type: 'constant', value: 0.2 }, high: { type: 'constant', value: 0.8 } },
    },
    rules,
  });

  it("a condition on an output set is the degree its rules gave it (max aggregation), whatever the rules' order", () => {
    const rules = ['IF ambient IS dark THEN power IS high', 'IF ambient IS bright THEN power IS low', 'IF ambient IS medium THEN power IS high'];
    const chained = ['IF power IS low THEN inverse IS high', 'IF power IS high THEN inverse IS low'];
    // ambient 0.4: dark 0.4, medium 0.6, bright 0 → power high max(0.4, 0.6) = 0.6, low 0 → inverse 0.2
    for (const order of [
      [...rules, ...chained],
      [...chained, ...rules],
    ]) {
      const agent = compileAgent(dimmer(order));
      expect(evaluate(agent, { ambient: 0.4 }).crisp.inverse).toBe(0.2);
      // ambient 0.7: medium 0.2, bright 0.8 → power high 0.2, low 0.8 → inverse (0.8 · 0.8 + 0.2 · 0.2) / 1
      expect(evaluate(agent, { ambient: 0.7 }).crisp.inverse).toBeCloseTo((0.8 * 0.8 + 0.2 * 0.2) / 1, 14);
      expect(evaluate(agent, { ambient: 0.7 }, { trace: true }).rules).toEqual(order.filter((rule) => !rule.includes('dark')));
    }
  });

  it('under aggregation none the activations are summed (fuzzylite: Aggregated::activationDegree), and hedges apply', () => {
    const definition = dimmer([
      'IF ambient IS medium THEN inverse IS low',
      'IF ambient IS bright THEN inverse IS low',
      'IF inverse IS very low THEN power IS high',
    ]);
    const agent = compileAgent(definition);
    // ambient 0.7: medium 0.2, bright 0.8 → inverse low 0.2 + 0.8 = 1 → very 1 → power high at 1: centroid 0.75
    expect(evaluate(agent, { ambient: 0.7 }).crisp.power).toBeCloseTo(0.75, 12);
    // ambient 0.6: medium 0.6, bright 0.4 → 1 again; ambient 0.55: medium 0.8, bright 0.2 → 1
    const half = compileAgent({ ...definition, rules: definition.rules.slice(1) });
    // only bright: 0.8 → very 0.64 → power high clipped at 0.64: symmetric, centroid 0.75
    expect(evaluate(half, { ambient: 0.7 }, { trace: true }).inferred.power!.high).toBeCloseTo(0.8 * 0.8, 15);
  });

  it('refuses a circle through conditions, naming the rule that closes it', () => {
    const circle = dimmer(['IF power IS low THEN inverse IS high', 'IF inverse IS high THEN power IS low']);
    expect(() => compileAgent(circle)).toThrow(/rules\[0\]: output "power" depends on itself \(power → inverse → power\)/);
  });
});
