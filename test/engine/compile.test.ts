import { describe, expect, it } from 'vitest';
import { AgentValidationError, compileAgent, parseRule, type AgentDefinition, type ValidationIssue } from '../../src/engine/index.js';

const thermostat: AgentDefinition = {
  inputs: { temperature: { cold: [0, 10], hot: [20, 30] } },
  outputs: { fan: { off: [0, 0, 10], on: [5, 10, 10] } },
  rules: ['IF temperature IS cold THEN fan IS off', 'IF temperature IS hot THEN fan IS on'],
};

/** The issues compileAgent reports for a definition (fails the test when it compiles). */
function issuesOf(definition: unknown): ValidationIssue[] {
  try {
    compileAgent(definition as AgentDefinition);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentValidationError);
    expect((error as AgentValidationError).name).toBe('AgentValidationError');
    return (error as AgentValidationError).issues;
  }
  throw new Error('expected an AgentValidationError');
}

function withChange(change: Partial<Record<keyof AgentDefinition, unknown>>): unknown {
  return { ...thermostat, ...change };
}

describe('compileAgent', () => {
  it('describes each variable by its range (min..max over all its points) and its set names', () => {
    const agent = compileAgent(thermostat);
    expect(agent.inputs).toEqual({ temperature: { range: [0, 30], sets: ['cold', 'hot'] } });
    expect(agent.outputs).toEqual({ fan: { range: [0, 10], sets: ['off', 'on'] } });
  });

  it('keeps one parsed AST per rule string, in order, and a deep-frozen copy of the definition', () => {
    const definition = structuredClone(thermostat) as unknown as { inputs: { temperature: { cold: number[] } }; rules: string[] };
    const agent = compileAgent(definition as unknown as AgentDefinition);
    expect(agent.parsedRules).toEqual(thermostat.rules.map(parseRule));
    expect(agent.definition).toEqual(thermostat);
    // later changes to the caller's object do not reach the compiled agent
    definition.inputs.temperature.cold[0] = -5;
    definition.rules.push('nonsense');
    expect(agent.definition).toEqual(thermostat);
    expect(Object.isFrozen(agent)).toBe(true);
    expect(Object.isFrozen(agent.definition.inputs.temperature!.cold)).toBe(true);
    expect(Object.isFrozen(agent.definition.rules)).toBe(true);
    expect(Object.isFrozen(agent.parsedRules[0])).toBe(true);
    expect(Object.isFrozen(agent.inputs.temperature!.range)).toBe(true);
  });

  it('keeps a variable or set named "__proto__" as an ordinary name', () => {
    const agent = compileAgent({
      inputs: JSON.parse('{"__proto__": {"low": [0, 10]}}'),
      outputs: { fan: { on: [0, 10] } },
      rules: ['IF __proto__ IS low THEN fan IS on'],
    });
    expect(Object.keys(agent.definition.inputs)).toEqual(['__proto__']);
    expect(Object.keys(agent.inputs)).toEqual(['__proto__']);
  });
});

describe('operators', () => {
  it('default to min / max / min; a definition without them keeps none in its copy', () => {
    const agent = compileAgent(thermostat);
    expect(agent.operators).toEqual({ and: 'min', or: 'max', implication: 'min' });
    expect('operators' in agent.definition).toBe(false);
  });

  it('take what the agent chooses, filling in the rest', () => {
    const agent = compileAgent({ ...thermostat, operators: { and: 'product', implication: 'product' } });
    expect(agent.operators).toEqual({ and: 'product', or: 'max', implication: 'product' });
    expect(agent.definition.operators).toEqual({ and: 'product', implication: 'product' });
    expect(Object.isFrozen(agent.definition.operators)).toBe(true);
  });

  // the t-norms of docs/ENGINE.md, "Operators", as the message lists them
  const T_NORM_LIST = '"min" or "product" or "boundedDifference" or "drasticProduct" or "einsteinProduct" or "hamacherProduct" or "nilpotentMinimum"';
  it('refuse anything else, by path', () => {
    expect(issuesOf(withChange({ operators: 'product' }))).toEqual([
      { path: 'operators', message: 'must be an object such as {"and": "product"}, got "product"' },
    ]);
    expect(issuesOf(withChange({ operators: { and: 'mean', not: 'x', or: 'probabilisticSum', implication: 'max' } }))).toEqual([
      { path: 'operators.and', message: `and is ${T_NORM_LIST}, got "mean"` },
      {
        path: 'operators.not',
        message:
          'unknown operator "not": an agent chooses "and", "or", "implication", "aggregation", "defuzzification", "activationThreshold", "ranges" and "outputs"',
      },
      { path: 'operators.implication', message: `implication is ${T_NORM_LIST}, got "max"` },
    ]);
  });
});

describe('INCREASES / DECREASES expansion', () => {
  const agentWith = (inputSets: Record<string, number[]>, outputSets: Record<string, number[]>, rule: string) =>
    compileAgent({ inputs: { x: inputSets }, outputs: { y: outputSets }, rules: [rule] });
  const pairs = (rule: string, inputSets: Record<string, number[]>, outputSets: Record<string, number[]>) =>
    agentWith(inputSets, outputSets, rule).expandedRules.map((r) => [r.condition.type === 'is' ? r.condition.set : '?', r.conclusions[0]!.set, r.weight]);

  // Definition order is shuffled on purpose: pairing follows each set's centre (middle of its top).
  // Input centres: lo (falling shoulder [0, 2] in range 0..10 → trapezoid [0, 0, 0, 2]) 0; mid 5; hi (rising) 10.
  const three = { mid: [2, 5, 8], hi: [8, 10], lo: [0, 2] };
  // Output centres: small 1.5, medium 5, large 8.5.
  const outThree = { large: [7, 8, 9, 10], small: [0, 1, 2, 3], medium: [4, 5, 6] };

  it('pairs sets in ascending order of their centre; DECREASES reverses the output order', () => {
    expect(pairs('x INCREASES y', three, outThree)).toEqual([
      ['lo', 'small', 1],
      ['mid', 'medium', 1],
      ['hi', 'large', 1],
    ]);
    expect(pairs('x DECREASES y WITH 0.5', three, outThree)).toEqual([
      ['lo', 'large', 0.5],
      ['mid', 'medium', 0.5],
      ['hi', 'small', 0.5],
    ]);
  });

  it('maps set i of n to set round(i·(m−1)/(n−1)) of m when the counts differ', () => {
    const five = { a: [0, 1, 2], b: [1, 2, 3], c: [2, 3, 4], d: [3, 4, 5], e: [4, 5, 6] };
    // n = 5, m = 3: i·2/4 = 0, 0.5, 1, 1.5, 2 → rounded (halves up) 0, 1, 1, 2, 2
    expect(pairs('x INCREASES y', five, outThree).map(([, set]) => set)).toEqual(['small', 'medium', 'medium', 'large', 'large']);
    // n = 2, m = 3: i·2/1 = 0, 2
    expect(pairs('x INCREASES y', { lo: [0, 5], hi: [5, 10] }, outThree).map(([, set]) => set)).toEqual(['small', 'large']);
    // n = 3, m = 2: i·1/2 = 0, 0.5, 1 → 0, 1, 1
    expect(pairs('x DECREASES y', three, { low: [0, 5], high: [5, 10] }).map(([, set]) => set)).toEqual(['high', 'low', 'low']);
    // n = 1: the lone set pairs with the middle one, round((m − 1)/2)
    expect(pairs('x INCREASES y', { only: [0, 10] }, outThree).map(([, set]) => set)).toEqual(['medium']);
  });

  it('keeps parsedRules unexpanded', () => {
    const agent = agentWith(three, outThree, 'x INCREASES y');
    expect(agent.parsedRules).toEqual([{ type: 'increases', input: 'x', output: 'y', weight: 1 }]);
    expect(agent.expandedRules).toHaveLength(3);
  });
});

describe('AgentValidationError', () => {
  it('lists every problem at once, each with its path', () => {
    const issues = issuesOf({
      inputs: { temperature: { hot: [90, 80], cold: [0, 'ten'] } },
      outputs: {},
      rules: ['IF temperature IS warm THEN fan IS on', 'IF temperature hot'],
    });
    expect(issues).toEqual([
      { path: 'inputs.temperature.hot', message: 'points must be in non-decreasing order: [90, 80]' },
      { path: 'inputs.temperature.cold', message: 'points must be finite numbers: [0, "ten"]' },
      { path: 'outputs', message: 'an agent needs at least one output' },
      {
        path: 'rules[0]',
        message: 'column 19: unknown set "warm" for input "temperature" (known: hot, cold) in rule "IF temperature IS warm THEN fan IS on"',
      },
      {
        path: 'rules[0]',
        message: 'column 29: unknown output "fan" (known outputs: none) in rule "IF temperature IS warm THEN fan IS on"',
      },
      { path: 'rules[1]', message: 'column 16: expected IS after "temperature" in rule "IF temperature hot"' },
    ]);
  });

  it('sums up the first issue and how many more in its message', () => {
    expect(() => compileAgent(null as never)).toThrow(/^invalid agent: an agent must be an object/);
    expect(() => compileAgent(withChange({ inputs: 7, outputs: 'fan' }) as AgentDefinition)).toThrow(
      'invalid agent: inputs: must be an object mapping each input name to its sets, got 7 (and 1 more)',
    );
  });

  // Each case: what is wrong, the definition, and the issue it must produce. A broken input or
  // output section does not make every rule that uses it fail a second time.
  const cases: Array<[string, unknown, ValidationIssue | ValidationIssue[]]> = [
    ['not an object', 'agent', { path: '', message: 'an agent must be an object with inputs, outputs and rules, got "agent"' }],
    ['null', null, { path: '', message: 'an agent must be an object with inputs, outputs and rules, got null' }],
    ['inputs missing', withChange({ inputs: undefined }), { path: 'inputs', message: 'must be an object mapping each input name to its sets, got undefined' }],
    ['outputs an array', withChange({ outputs: [] }), { path: 'outputs', message: 'must be an object mapping each output name to its sets, got []' }],
    [
      'no inputs',
      withChange({ inputs: {}, rules: ['x INCREASES fan'] }),
      [
        { path: 'inputs', message: 'an agent needs at least one input' },
        { path: 'rules[0]', message: 'column 1: unknown input "x" (known inputs: none) in rule "x INCREASES fan"' },
      ],
    ],
    [
      'a variable that is not an object',
      withChange({ outputs: { fan: [0, 1] } }),
      {
        path: 'outputs.fan',
        message: 'must be an object mapping each set name to its points, got [0,1]',
      },
    ],
    [
      'a variable without sets',
      withChange({ outputs: { fan: {} }, rules: ['IF temperature IS cold THEN fan IS nothing'] }),
      [
        { path: 'outputs.fan', message: 'output "fan" needs at least one set' },
        {
          path: 'rules[0]',
          message: 'column 36: unknown set "nothing" for output "fan" (known: none) in rule "IF temperature IS cold THEN fan IS nothing"',
        },
      ],
    ],
    [
      'an empty variable name',
      withChange({ inputs: { '': { a: [0, 1] }, temperature: { cold: [0, 10], hot: [20, 30] } } }),
      {
        path: 'inputs.',
        message: 'input names must not be empty',
      },
    ],
    [
      'an empty set name',
      withChange({ outputs: { fan: { off: [0, 1], on: [1, 2], '': [0, 2] } } }),
      {
        path: 'outputs.fan.',
        message: 'set names must not be empty',
      },
    ],
    [
      'one point',
      withChange({ outputs: { fan: { off: [0], on: [1, 2] } } }),
      {
        path: 'outputs.fan.off',
        message: 'a set needs 2, 3 or 4 numbers (slope, triangle, trapezoid), got 1 points',
      },
    ],
    [
      'five points',
      withChange({ outputs: { fan: { off: [0, 1, 2, 3, 4], on: [1, 2] } } }),
      {
        path: 'outputs.fan.off',
        message: 'a set needs 2, 3 or 4 numbers (slope, triangle, trapezoid), got 5 points',
      },
    ],
    [
      'points not an array',
      withChange({ outputs: { fan: { off: 3, on: [1, 2] } } }),
      {
        path: 'outputs.fan.off',
        message: 'a set needs 2, 3 or 4 numbers (slope, triangle, trapezoid), got 3',
      },
    ],
    [
      'a point that is not finite',
      withChange({ outputs: { fan: { off: [0, Infinity], on: [1, 2] } } }),
      {
        path: 'outputs.fan.off',
        message: 'points must be finite numbers: [0, Infinity]',
      },
    ],
    [
      'points out of order',
      withChange({ outputs: { fan: { off: [0, 5, 3], on: [1, 2] } } }),
      {
        path: 'outputs.fan.off',
        message: 'points must be in non-decreasing order: [0, 5, 3]',
      },
    ],
    [
      'rules not an array',
      withChange({ rules: 'IF temperature IS cold THEN fan IS off' }),
      {
        path: 'rules',
        message: 'must be an array of rule strings, got "IF temperature IS cold THEN fan IS off"',
      },
    ],
    ['no rules', withChange({ rules: [] }), { path: 'rules', message: 'an agent needs at least one rule' }],
    ['a rule that is not a string', withChange({ rules: [42] }), { path: 'rules[0]', message: 'a rule must be a string, got 42' }],
    [
      'a rule that does not parse',
      withChange({ rules: ['IF temperature IS cold THEN fan IS off', 'IF temperature IS cold fan IS off'] }),
      {
        path: 'rules[1]',
        message: 'column 24: expected AND, OR or THEN after "cold" in rule "IF temperature IS cold fan IS off"',
      },
    ],
    [
      'an unknown input',
      withChange({ rules: ['IF humidity IS cold THEN fan IS off'] }),
      {
        path: 'rules[0]',
        message: 'column 4: unknown input "humidity" (known inputs: temperature) in rule "IF humidity IS cold THEN fan IS off"',
      },
    ],
    [
      'an output whose condition reads itself',
      withChange({ rules: ['IF fan IS on THEN fan IS off'] }),
      {
        path: 'rules[0]',
        message:
          'output "fan" depends on itself (fan → fan): a condition on an output is read after every rule concluding it, and a formula after the outputs it reads',
      },
    ],
    [
      'an unknown input set',
      withChange({ rules: ['IF temperature IS NOT warm THEN fan IS off'] }),
      {
        path: 'rules[0]',
        message: 'column 23: unknown set "warm" for input "temperature" (known: cold, hot) in rule "IF temperature IS NOT warm THEN fan IS off"',
      },
    ],
    [
      'an unknown output',
      withChange({ rules: ['IF temperature IS cold THEN heater IS off'] }),
      {
        path: 'rules[0]',
        message: 'column 29: unknown output "heater" (known outputs: fan) in rule "IF temperature IS cold THEN heater IS off"',
      },
    ],
    [
      'an input in a conclusion',
      withChange({ rules: ['IF temperature IS cold THEN fan IS off, temperature IS hot'] }),
      {
        path: 'rules[0]',
        message:
          'column 41: "temperature" is an input; a conclusion needs an output (outputs: fan) in rule "IF temperature IS cold THEN fan IS off, temperature IS hot"',
      },
    ],
    [
      'an unknown output set',
      withChange({ rules: ['IF temperature IS cold THEN fan IS "half on"'] }),
      {
        path: 'rules[0]',
        message: 'column 36: unknown set "half on" for output "fan" (known: off, on) in rule "IF temperature IS cold THEN fan IS \\"half on\\""',
      },
    ],
    [
      'a weight above 1',
      withChange({ rules: ['IF temperature IS cold THEN fan IS off WITH 2'] }),
      {
        path: 'rules[0]',
        message: 'column 45: expected a weight from 0 to 1, got 2 in rule "IF temperature IS cold THEN fan IS off WITH 2"',
      },
    ],
    [
      'an unknown input in a trend rule',
      withChange({ rules: ['humidity INCREASES fan'] }),
      {
        path: 'rules[0]',
        message: 'column 1: unknown input "humidity" (known inputs: temperature) in rule "humidity INCREASES fan"',
      },
    ],
    [
      'an input as the output of a trend rule',
      withChange({ rules: ['temperature DECREASES temperature'] }),
      {
        path: 'rules[0]',
        message: 'column 23: "temperature" is an input; a conclusion needs an output (outputs: fan) in rule "temperature DECREASES temperature"',
      },
    ],
  ];

  it.each(cases)('%s', (_, definition, issue) => {
    expect(issuesOf(definition)).toEqual(Array.isArray(issue) ? issue : [issue]);
  });
});

describe('size limits (issues, never a stack overflow or an unbounded evaluation)', () => {
  /** n sets named s0 .. s(n−1), each a unit triangle at its index */
  const sets = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, [i, i + 1, i + 2]]));
  const agent = (change: Partial<AgentDefinition>): AgentDefinition => ({
    inputs: { x: sets(3) },
    outputs: { tip: sets(3) },
    rules: ['IF x IS s0 THEN tip IS s0'],
    ...change,
  });

  it('at most 100 sets per variable: 100 compile, 101 is an issue naming the variable and the count', () => {
    expect(() => compileAgent(agent({ inputs: { x: sets(100) }, outputs: { tip: sets(100) } }))).not.toThrow();
    expect(issuesOf(agent({ outputs: { tip: sets(101) } }))).toEqual([
      { path: 'outputs.tip', message: 'output "tip" has 101 sets; a variable has at most 100' },
    ]);
    expect(issuesOf(agent({ inputs: { x: sets(101) } }))).toEqual([{ path: 'inputs.x', message: 'input "x" has 101 sets; a variable has at most 100' }]);
  });

  it('a variable of 50 000 sets (200 000 points) is one issue, not a stack overflow', () => {
    expect(issuesOf(agent({ outputs: { tip: sets(50_000) } }))).toEqual([
      { path: 'outputs.tip', message: 'output "tip" has 50000 sets; a variable has at most 100' },
    ]);
  });

  it('at most 100 variables per side', () => {
    const variables = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [i === 0 ? 'x' : `v${i}`, sets(2)]));
    expect(() => compileAgent(agent({ inputs: variables(100), outputs: { ...variables(99), tip: sets(3) } }))).not.toThrow();
    // (100 outputs of 2 sets each are 200 output sets, within the limit of 1000 in all)
    expect(issuesOf(agent({ inputs: variables(101) }))).toEqual([{ path: 'inputs', message: 'an agent has at most 100 inputs, got 101' }]);
    expect(issuesOf(agent({ outputs: { ...variables(100), tip: sets(3) } }))).toEqual([
      { path: 'outputs', message: 'an agent has at most 100 outputs, got 101' },
    ]);
  });

  it('at most 1000 output sets in all', () => {
    const outputs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, o) => [o === 0 ? 'tip' : `o${o}`, sets(100)]));
    expect(() => compileAgent(agent({ outputs: outputs(10) }))).not.toThrow();
    expect(issuesOf(agent({ outputs: { ...outputs(10), extra: sets(1) } }))).toEqual([
      { path: 'outputs', message: 'an agent has at most 1000 output sets in all, got 1001' },
    ]);
  });

  it('at most 1000 rules, an INCREASES/DECREASES rule counting one per set of its input', () => {
    const rules = (n: number) => Array.from({ length: n }, () => 'IF x IS s0 THEN tip IS s1');
    expect(compileAgent(agent({ rules: rules(1000) })).expandedRules).toHaveLength(1000);
    expect(issuesOf(agent({ rules: rules(1001) }))).toEqual([{ path: 'rules', message: 'an agent has at most 1000 rules, got 1001' }]);
    // x has 3 sets: 333 trend rules stand for 999 rules, plus one IF rule: 1000; one more IF rule: 1001
    const trends = Array.from({ length: 333 }, () => 'x INCREASES tip');
    expect(compileAgent(agent({ rules: [...trends, 'IF x IS s0 THEN tip IS s0'] })).expandedRules).toHaveLength(1000);
    expect(issuesOf(agent({ rules: [...trends, ...rules(2)] }))).toEqual([
      {
        path: 'rules',
        message: 'an agent has at most 1000 rules, counting INCREASES/DECREASES as one rule per set of its input; these make 1001',
      },
    ]);
  });

  it('at most 100 conclusions per rule', () => {
    const conclusions = (n: number) => `IF x IS s0 THEN ${Array.from({ length: n }, (_, i) => `tip IS s${i % 3}`).join(', ')}`;
    expect(() => compileAgent(agent({ rules: [conclusions(100)] }))).not.toThrow();
    const [issue] = issuesOf(agent({ rules: [conclusions(101)] }));
    expect(issue).toEqual({ path: 'rules[0]', message: `a rule has at most 100 conclusions, got 101 in rule ${JSON.stringify(conclusions(101))}` });
  });

  it('at most 2000 characters per rule', () => {
    const padded = (length: number) => {
      const rule = 'IF x IS s0 THEN tip IS s1';
      return rule.replace('IF', `IF${' '.repeat(length - rule.length + 1)}`.slice(0, length - rule.length + 2));
    };
    expect(padded(2000)).toHaveLength(2000);
    expect(() => compileAgent(agent({ rules: [padded(2000)] }))).not.toThrow();
    expect(issuesOf(agent({ rules: [padded(2001), 'y'.repeat(1_000_000)] }))).toEqual([
      { path: 'rules[0]', message: 'a rule has at most 2000 characters, got 2001' },
      { path: 'rules[1]', message: 'a rule has at most 2000 characters, got 1000000' },
    ]);
  });

  it('a rule nested deeper than 64 levels is an issue at its column (a 400, not a 500)', () => {
    const rule = `IF ${'('.repeat(3000)}x IS s0${')'.repeat(3000)} THEN tip IS s0`;
    expect(issuesOf(agent({ rules: [`IF ${'NOT '.repeat(400)}x IS s0 THEN tip IS s0`] }))).toEqual([
      {
        path: 'rules[0]',
        message: `column 260: conditions nest deeper than 64 levels (NOT and "(" count one level each) in rule "IF ${'NOT '.repeat(400)}x IS s0 THEN tip IS s0"`,
      },
    ]);
    expect(rule.length).toBeGreaterThan(2000); // longer than a rule may be: reported by its length
    expect(issuesOf(agent({ rules: [rule] }))).toEqual([{ path: 'rules[0]', message: `a rule has at most 2000 characters, got ${rule.length}` }]);
  });

  it('rejects a variable whose range is wider than the largest number (max − min overflows)', () => {
    // the points are finite, but 1.7e308 − (−1.7e308) = 3.4e308 is beyond Number.MAX_VALUE ≈ 1.798e308
    expect(issuesOf(agent({ outputs: { tip: { s0: [-1.7e308, -1e308, 0], s1: [0, 1e308, 1.7e308] } } }))).toEqual([
      {
        path: 'outputs.tip',
        message: 'the points of output "tip" span from -1.7e+308 to 1.7e+308, a width beyond the largest number (about 1.8e+308); bring them closer together',
      },
    ]);
    expect(issuesOf(agent({ inputs: { x: { s0: [-1e308, 0], s1: [0, 1e308] } } }))[0]!.path).toBe('inputs.x');
    // 1.6e308 wide is representable, so it compiles
    expect(() => compileAgent(agent({ outputs: { tip: { s0: [-8e307, -4e307, 0], s1: [0, 4e307, 8e307] } } }))).not.toThrow();
  });
});
