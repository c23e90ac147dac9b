import { describe, expect, it } from 'vitest';
import {
  activations,
  compileAgent,
  evaluate,
  evaluateBatch,
  InputError,
  membership,
  setShape,
  type AgentDefinition,
  type Inputs,
} from '../../src/engine/index.js';
import { tipperDefinition } from './tipper.js';

const tipper = compileAgent(tipperDefinition);

/** An agent with one input x whose set `any` is 1 on 0..10, so that WITH sets each rule's strength. */
function withStrengths(outputSets: Record<string, number[]>, rules: string[]) {
  return compileAgent({ inputs: { x: { any: [0, 0, 10, 10] } }, outputs: { o: outputSets }, rules });
}

describe('evaluate: the tipper by hand', () => {
  it('service 3, food 8: every step of the trace', () => {
    // service 3: poor [0,0,2.5,5] falls: (5 − 3)/2.5 = 0.8; good [2.5,5,7.5] rises: (3 − 2.5)/2.5 = 0.2; excellent 0.
    // food 8: rancid 0; okay 0 (8 > 7.5); delicious [5,7.5,10,10]: 1 on its top.
    // poor ∧ delicious → average: min(0.8, 1) = 0.8; good ∧ delicious → generous: 0.2; all others 0.
    // average [10,15,20] cut at 0.8: corners at 10 + 0.8·5 = 14 and 20 − 0.8·5 = 16; area 0.8·(10 + 2)/2 = 4.8, centred at 15.
    // generous [20,25,30] cut at 0.2: corners 21 and 29; area 0.2·(10 + 8)/2 = 1.8, centred at 25.
    // The two touch at 20 without overlapping, so crisp = (4.8·15 + 1.8·25)/6.6 = 117/6.6 = 17.72…
    // ȳ = ∫y²/2 dx / area: average 2·∫₀⁴(0.2t)²/2 dt + 2·0.8²/2 = 0.85333 + 0.64; generous 2·∫₀¹(0.2t)²/2 dt + 8·0.2²/2
    //   = 0.01333 + 0.16; total 1.66667/6.6 = 0.252525…
    const trace = evaluate(tipper, { service: 3, food: 8 }, { trace: true });
    expect(trace.fuzzified).toEqual({
      service: { poor: expect.closeTo(0.8, 14), good: expect.closeTo(0.2, 14), excellent: 0 },
      food: { rancid: 0, okay: 0, delicious: 1 },
    });
    expect(trace.rules).toEqual([
      'IF service IS poor AND food IS delicious THEN tip IS average',
      'IF service IS good AND food IS delicious THEN tip IS generous',
    ]);
    expect(trace.inferred).toEqual({ tip: { average: expect.closeTo(0.8, 14), generous: expect.closeTo(0.2, 14) } });
    expect(trace.clipped.tip!.average).toEqual(
      closeTo([
        [10, 0],
        [14, 0.8],
        [16, 0.8],
        [20, 0],
      ]),
    );
    expect(trace.clipped.tip!.generous).toEqual(
      closeTo([
        [20, 0],
        [21, 0.2],
        [29, 0.2],
        [30, 0],
      ]),
    );
    expect(trace.combined.tip).toEqual(
      closeTo([
        [10, 0],
        [14, 0.8],
        [16, 0.8],
        [20, 0],
        [21, 0.2],
        [29, 0.2],
        [30, 0],
      ]),
    );
    expect(trace.centroid.tip).toEqual(closeTo([[117 / 6.6, 1.6666666666666667 / 6.6]])[0]);
    expect(trace.crisp.tip).toBeCloseTo(117 / 6.6, 12);
    expect(evaluate(tipper, { service: 3, food: 8 }).crisp.tip).toBeCloseTo(117 / 6.6, 12);
  });

  it('agrees with fuzzylite 7.0.0 on its 32 × 32 grid (reference values, Centroid resolution 100000)', () => {
    // Source: fuzzylite-examples generated/tipper9-centroid100000.fld (our tipper, computed by fuzzylite
    // 7.0.0 with a 100000-sample centroid, |error| ≤ 6e-9). Inputs are the grid values i·10/31.
    const rows: Array<[number, number, number]> = [
      [3, 2, 4.999999999],
      [11, 23, 18.86577181],
      [17, 9, 10.860284603],
      [28, 3, 15.0],
    ];
    for (const [i, j, tip] of rows) {
      expect(evaluate(tipper, { service: (i * 10) / 31, food: (j * 10) / 31 }).crisp.tip).toBeCloseTo(tip, 7);
    }
  });
});

/** Expects each coordinate within 1e-12. */
function closeTo(points: Array<[number, number]>) {
  return points.map(([x, y]) => [expect.closeTo(x, 12), expect.closeTo(y, 12)]);
}

describe('evaluate: shoulders, vertical edges, zero-width sets', () => {
  // temperature's range is 10..40, midpoint 25: cold [10, 20] (midpoint 15) falls, hot [30, 40] rises.
  // power's range is 0..10 (mid spans it), midpoint 5: low [2, 6] (midpoint 4) is the trapezoid
  // [0, 0, 2, 6]; high [4, 8] (midpoint 6) is [4, 8, 10, 10].
  const heater = compileAgent({
    inputs: { temperature: { cold: [10, 20], mild: [15, 25, 35], hot: [30, 40] } },
    outputs: { power: { low: [2, 6], mid: [0, 5, 10], high: [4, 8] } },
    rules: ['IF temperature IS cold THEN power IS high', 'IF temperature IS hot THEN power IS low'],
  });

  it('shoulders saturate far outside the range', () => {
    // −1000: cold 1 → high at 1: [[4,0],[8,1],[10,1],[10,0]], a vertical edge at the range's end.
    // area 4·1/2 + 2·1 = 4; moment 2·(4 + 2/3·4) + 2·9 = 94/3; crisp 47/6.
    // ∫y²/2: ramp ∫₀⁴(t/4)²/2 dt = 2/3, top 2·1/2 = 1; ȳ = (5/3)/4 = 5/12.
    const cold = evaluate(heater, { temperature: -1000 }, { trace: true });
    expect(cold.fuzzified.temperature).toEqual({ cold: 1, mild: 0, hot: 0 });
    expect(cold.combined.power).toEqual([
      [4, 0],
      [8, 1],
      [10, 1],
      [10, 0],
    ]);
    expect(cold.centroid.power).toEqual(closeTo([[47 / 6, 5 / 12]])[0]);
    // 1e9: hot 1 → low at 1: [[0,0],[0,1],[2,1],[6,0]]; area 2 + 2 = 4; moment 2·1 + 2·(2 + 4/3) = 26/3; crisp 13/6.
    const hot = evaluate(heater, { temperature: 1e9 }, { trace: true });
    expect(hot.combined.power).toEqual([
      [0, 0],
      [0, 1],
      [2, 1],
      [6, 0],
    ]);
    expect(hot.crisp.power).toBeCloseTo(13 / 6, 12);
  });

  it('a shoulder inside the range rises and falls linearly', () => {
    // 17.5: cold (20 − 17.5)/10 = 0.25 → high cut at 0.25: [[4,0],[5,0.25],[10,0.25],[10,0]].
    // area 1·0.25/2 + 5·0.25 = 11/8; moment 0.125·(4 + 2/3) + 1.25·7.5 = 7/12 + 75/8 = 239/24; crisp 239/33.
    const trace = evaluate(heater, { temperature: 17.5 }, { trace: true });
    expect(trace.clipped.power!.high).toEqual([
      [4, 0],
      [5, 0.25],
      [10, 0.25],
      [10, 0],
    ]);
    expect(trace.crisp.power).toBeCloseTo(239 / 33, 12);
    expect(evaluate(heater, { temperature: 17.5 }).crisp.power).toBeCloseTo(239 / 33, 12);
  });

  it('jumps at vertical edges: a rectangle and a set with a vertical left edge', () => {
    // a [0,0,2,2] at 0.5 and b [2,2,6] at 1: 0.5 on 0..2, then up to 1 at 2, falling to 0 at 6.
    // area 2·0.5 + 4·1/2 = 3; moment 1·1 + 2·(2 + 4/3) = 23/3; crisp 23/9.
    const agent = withStrengths({ a: [0, 0, 2, 2], b: [2, 2, 6] }, ['IF x IS any THEN o IS a WITH 0.5', 'IF x IS any THEN o IS b']);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    expect(trace.combined.o).toEqual([
      [0, 0],
      [0, 0.5],
      [2, 0.5],
      [2, 1],
      [6, 0],
    ]);
    expect(trace.crisp.o).toBeCloseTo(23 / 9, 12);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(23 / 9, 12);
  });

  it('touching rectangles meet in one vertical edge', () => {
    // a [0,0,5,5] at 0.5, b [5,5,10,10] at 1: area 2.5 + 5 = 7.5; moment 2.5·2.5 + 5·7.5 = 43.75; crisp 35/6.
    const agent = withStrengths({ a: [0, 0, 5, 5], b: [5, 5, 10, 10] }, ['IF x IS any THEN o IS a WITH 0.5', 'IF x IS any THEN o IS b']);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    expect(trace.combined.o).toEqual([
      [0, 0],
      [0, 0.5],
      [5, 0.5],
      [5, 1],
      [10, 1],
      [10, 0],
    ]);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(35 / 6, 12);
  });

  it('overlapping sets: the envelope turns where they cross', () => {
    // a [0,10,20] cut at 0.8: (0,0) (8,0.8) (12,0.8) (20,0); b [10,20,30] cut at 0.4: (10,0) (14,0.4) (26,0.4) (30,0).
    // a's falling edge (20 − x)/10 meets b's top 0.4 at x = 16; it never meets b's rising edge (that would be x = 15 > 14).
    // Envelope (0,0) (8,0.8) (12,0.8) (16,0.4) (26,0.4) (30,0); areas 3.2, 3.2, 2.4, 4, 0.8 = 13.6;
    // moments 3.2·16/3 + 3.2·10 + 2.4·(12 + 4·1.6/3.6) + 4·21 + 0.8·(26 + 4/3) = 188; crisp 188/13.6.
    const agent = withStrengths({ a: [0, 10, 20], b: [10, 20, 30] }, ['IF x IS any THEN o IS a WITH 0.8', 'IF x IS any THEN o IS b WITH 0.4']);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    expect(trace.combined.o).toEqual(
      closeTo([
        [0, 0],
        [8, 0.8],
        [12, 0.8],
        [16, 0.4],
        [26, 0.4],
        [30, 0],
      ]),
    );
    expect(trace.crisp.o).toBeCloseTo(188 / 13.6, 12);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(188 / 13.6, 12);
  });

  it('two equal sets crossing: the crossing point is a corner', () => {
    // a [0,10,20] and b [10,20,30] both cut at 0.6: a falls as (20 − x)/10, b rises as (x − 10)/10: they cross at (15, 0.5).
    // Symmetric about 15, so crisp = 15.
    const agent = withStrengths({ a: [0, 10, 20], b: [10, 20, 30] }, ['IF x IS any THEN o IS a, o IS b WITH 0.6']);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    expect(trace.combined.o).toEqual(
      closeTo([
        [0, 0],
        [6, 0.6],
        [14, 0.6],
        [15, 0.5],
        [16, 0.6],
        [24, 0.6],
        [30, 0],
      ]),
    );
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(15, 12);
  });

  it('a region of zero area (only zero-width sets reached): the centroid of its spikes, weighted by height', () => {
    // s1 at 5 with 0.2, s2 at 15 with 0.6: x̄ = (0.2·5 + 0.6·15)/0.8 = 12.5; ȳ = (0.2²/2 + 0.6²/2)/0.8 = 0.25.
    const agent = withStrengths({ s1: [5, 5, 5], s2: [15, 15, 15, 15], wide: [0, 10, 20] }, [
      'IF x IS any THEN o IS s1 WITH 0.2',
      'IF x IS any THEN o IS s2 WITH 0.6',
    ]);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    expect(trace.combined.o).toEqual([
      [5, 0],
      [5, 0.2],
      [5, 0],
      [15, 0],
      [15, 0.6],
      [15, 0],
    ]);
    expect(trace.centroid.o).toEqual(closeTo([[12.5, 0.25]])[0]);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(12.5, 12);
  });

  it('zero-width sets at one x count once, at the higher degree', () => {
    // p and q both at 4 (0.3 and 0.9), r at 10 (0.9): x̄ = (0.9·4 + 0.9·10)/1.8 = 7.
    const agent = withStrengths({ p: [4, 4], q: [4, 4, 4], r: [10, 10, 10] }, ['IF x IS any THEN o IS p WITH 0.3', 'IF x IS any THEN o IS q, o IS r WITH 0.9']);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(7, 12);
    expect(evaluate(agent, { x: 5 }, { trace: true }).crisp.o).toBeCloseTo(7, 12);
  });

  it('a zero-width set next to a region with area adds a spike to the polygon but nothing to the centroid', () => {
    // wide [0,10,20] cut at 0.5 is symmetric about 10 (crisp 10); the spike at 18 reaches 0.9.
    const agent = withStrengths({ spike: [18, 18, 18], wide: [0, 10, 20] }, ['IF x IS any THEN o IS spike WITH 0.9', 'IF x IS any THEN o IS wide WITH 0.5']);
    const trace = evaluate(agent, { x: 5 }, { trace: true });
    // wide falls as (20 − x)/10: 0.2 at 18
    expect(trace.combined.o).toEqual(
      closeTo([
        [0, 0],
        [5, 0.5],
        [15, 0.5],
        [18, 0.2],
        [18, 0.9],
        [18, 0.2],
        [20, 0],
      ]),
    );
    expect(trace.crisp.o).toBeCloseTo(10, 12);
    expect(evaluate(agent, { x: 5 }).crisp.o).toBeCloseTo(10, 12);
  });
});

describe('evaluate: rules', () => {
  it('a rule naming one output twice reaches both sets; the same set twice counts once', () => {
    const agent = withStrengths({ a: [0, 1, 2], b: [2, 3, 4] }, ['IF x IS any THEN o IS a, o IS b, o IS a WITH 0.5']);
    expect(evaluate(agent, { x: 1 }, { trace: true }).inferred).toEqual({ o: { a: 0.5, b: 0.5 } });
    // a and b cut at 0.5 are mirror images about 2: crisp 2
    expect(evaluate(agent, { x: 1 }).crisp.o).toBeCloseTo(2, 12);
  });

  it('a set reached by several rules takes the maximum strength', () => {
    const agent = withStrengths({ a: [0, 1, 2] }, ['IF x IS any THEN o IS a WITH 0.3', 'IF x IS any THEN o IS a WITH 0.7']);
    expect(evaluate(agent, { x: 1 }, { trace: true }).inferred).toEqual({ o: { a: 0.7 } });
  });

  it('AND is min, OR is max, NOT is 1 − μ, WITH multiplies', () => {
    // x's range is 0..20 (midpoint 10), so lo [0, 10] (midpoint 5) is a falling shoulder: 0.75 at 2.5.
    const agent = compileAgent({
      inputs: { x: { lo: [0, 10], hi: [0, 10, 20] } },
      outputs: { o: { a: [0, 1, 2], b: [1, 2, 3], c: [2, 3, 4], d: [3, 4, 5] } },
      rules: [
        'IF x IS lo AND x IS hi THEN o IS a',
        'IF x IS lo OR x IS hi THEN o IS b WITH 0.5',
        'IF x IS NOT lo THEN o IS c',
        'IF NOT (x IS lo AND NOT x IS hi) THEN o IS d',
      ],
    });
    // hi is the triangle [0, 10, 20]: 0.25 at 2.5. a: min(0.75, 0.25) = 0.25; b: max · 0.5 = 0.375;
    // c: 1 − 0.75 = 0.25; d: 1 − min(0.75, 0.75) = 0.25.
    expect(activations(agent, { x: 2.5 })).toEqual([
      { rule: 'IF x IS lo AND x IS hi THEN o IS a', strength: 0.25 },
      { rule: 'IF x IS lo OR x IS hi THEN o IS b WITH 0.5', strength: 0.375 },
      { rule: 'IF x IS NOT lo THEN o IS c', strength: 0.25 },
      { rule: 'IF NOT (x IS lo AND NOT x IS hi) THEN o IS d', strength: 0.25 },
    ]);
  });

  it('a rule WITH 0 never fires', () => {
    const agent = withStrengths({ a: [0, 1, 2] }, ['IF x IS any THEN o IS a WITH 0']);
    expect(evaluate(agent, { x: 1 }).crisp).toEqual({});
  });

  it('INCREASES rules fire under their expanded, canonical text', () => {
    const agent = compileAgent({
      inputs: { service: { poor: [0, 5], great: [5, 10] } },
      outputs: { tip: { low: [0, 10], high: [10, 20] } },
      rules: ['service increases tip with 0.5'],
    });
    // service 2.5: poor (falling) 0.5 · 0.5 = 0.25; great 0
    expect(evaluate(agent, { service: 2.5 }, { trace: true }).rules).toEqual(['IF service IS poor THEN tip IS low WITH 0.5']);
    expect(activations(agent, { service: 2.5 })).toEqual([
      { rule: 'IF service IS poor THEN tip IS low WITH 0.5', strength: 0.25 },
      { rule: 'IF service IS great THEN tip IS high WITH 0.5', strength: 0 },
    ]);
  });
});

describe('evaluate: missing inputs and outputs no rule reached', () => {
  const agent = compileAgent({
    inputs: { a: { on: [0, 0, 1, 1] }, b: { on: [0, 0, 1, 1] } },
    outputs: { p: { high: [0, 1, 2] }, q: { high: [0, 1, 2] } },
    rules: ['IF a IS on THEN p IS high', 'IF a IS on OR b IS on THEN q IS high'],
  });

  it('a rule that needs a missing input does not fire, even under OR; its output is left out everywhere', () => {
    const trace = evaluate(agent, { a: 0.5 }, { trace: true });
    expect(trace.fuzzified).toEqual({ a: { on: 1 } });
    expect(trace.rules).toEqual(['IF a IS on THEN p IS high']);
    for (const field of [trace.inferred, trace.clipped, trace.combined, trace.centroid, trace.crisp]) {
      expect(Object.keys(field)).toEqual(['p']);
    }
    expect(evaluate(agent, { a: 0.5 }).crisp).toEqual({ p: 1 });
    expect(activations(agent, { a: 0.5 })).toEqual([
      { rule: 'IF a IS on THEN p IS high', strength: 1 },
      { rule: 'IF a IS on OR b IS on THEN q IS high', strength: 0 },
    ]);
  });

  it('no inputs, or inputs where no rule fires, give no outputs at all', () => {
    expect(evaluate(agent, {}).crisp).toEqual({});
    expect(evaluate(agent, { a: 5, b: 5 }, { trace: true })).toEqual({
      fuzzified: { a: { on: 0 }, b: { on: 0 } },
      rules: [],
      inferred: {},
      clipped: {},
      combined: {},
      centroid: {},
      crisp: {},
    });
  });
});

describe('InputError', () => {
  const cases: Array<[string, unknown, string]> = [
    ['an unknown name', { service: 1, food: 2, ambience: 3 }, 'unknown input "ambience": this agent\'s inputs are "service", "food"'],
    ['a string', { service: '5' }, 'input "service" must be a finite number, got "5"'],
    ['null', { food: null }, 'input "food" must be a finite number, got null'],
    ['NaN', { food: NaN }, 'input "food" must be a finite number, got NaN'],
    ['Infinity', { food: -Infinity }, 'input "food" must be a finite number, got -Infinity'],
    ['an array', [1, 2], 'inputs must be an object mapping input names to numbers, got [1,2]'],
    ['null inputs', null, 'inputs must be an object mapping input names to numbers, got null'],
  ];
  it.each(cases)('%s', (_, inputs, message) => {
    const call = () => evaluate(tipper, inputs as never);
    expect(call).toThrow(InputError);
    expect(call).toThrow(message);
    expect(() => evaluate(tipper, inputs as never, { trace: true })).toThrow(message);
    expect(() => activations(tipper, inputs as never)).toThrow(message);
  });

  it('has the name InputError', () => {
    expect(() => evaluate(tipper, { x: 1 })).toThrow(expect.objectContaining({ name: 'InputError' }));
  });

  it('treats an inherited name such as "__proto__" as missing, and an own one as an input', () => {
    const agent = compileAgent({
      inputs: JSON.parse('{"__proto__": {"on": [0, 0, 1, 1]}}') as AgentDefinition['inputs'],
      outputs: JSON.parse('{"__proto__": {"high": [0, 1, 2]}}') as AgentDefinition['outputs'],
      rules: ['IF __proto__ IS on THEN __proto__ IS high'],
    });
    expect(evaluate(agent, {}).crisp).toEqual({});
    const crisp = evaluate(agent, JSON.parse('{"__proto__": 0.5}')).crisp;
    expect(Object.keys(crisp)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(crisp, '__proto__')?.value).toBe(1);
  });
});

describe('evaluateBatch', () => {
  it('gives the same outputs as evaluate, item by item, in order', () => {
    const items: Inputs[] = [{ service: 3, food: 8 }, { service: 10 }, {}, { service: 0, food: 0 }];
    expect(evaluateBatch(tipper, items)).toEqual(items.map((item) => evaluate(tipper, item).crisp));
  });

  it('names the item at fault', () => {
    expect(() => evaluateBatch(tipper, [{ service: 1 }, { service: 1, tips: 2 }])).toThrow(
      'item 1: unknown input "tips": this agent\'s inputs are "service", "food"',
    );
    expect(() => evaluateBatch(tipper, { service: 1 } as never)).toThrow('expected an array of inputs, got {"service":1}');
  });
});

describe('membership and setShape', () => {
  const range = [0, 10] as const;
  it('triangles and trapezoids as usual, 0 outside; a vertical edge has degree 1', () => {
    expect([0, 2.5, 5, 7.5, 10, 11].map((x) => membership([0, 5, 10], range, x))).toEqual([0, 0.5, 1, 0.5, 0, 0]);
    expect([1, 2, 3, 4, 5, 6].map((x) => membership([2, 2, 4, 6], range, x))).toEqual([0, 1, 1, 1, 0.5, 0]);
    expect([4.999, 5, 5.001].map((x) => membership([5, 5, 5], range, x))).toEqual([0, 1, 0]);
  });

  it('a shoulder falls when its midpoint is below the range midpoint, rises otherwise (also when equal)', () => {
    expect([-100, 2, 3, 4, 100].map((x) => membership([2, 4], range, x))).toEqual([1, 1, 0.5, 0, 0]);
    expect([-100, 6, 7, 8, 100].map((x) => membership([6, 8], range, x))).toEqual([0, 0, 0.5, 1, 1]);
    expect([4, 5, 6].map((x) => membership([4, 6], [4, 6], x))).toEqual([0, 0.5, 1]);
    expect([4, 5, 6].map((x) => membership([5, 5], range, x))).toEqual([0, 1, 1]);
  });

  it('draws shoulders as trapezoids to the edge of the range', () => {
    expect(setShape([2, 4], range)).toEqual([
      [0, 0],
      [0, 1],
      [2, 1],
      [4, 0],
    ]);
    expect(setShape([6, 8], range)).toEqual([
      [6, 0],
      [8, 1],
      [10, 1],
      [10, 0],
    ]);
    expect(setShape([0, 5, 10], range)).toEqual([
      [0, 0],
      [5, 1],
      [10, 0],
    ]);
    expect(setShape([3, 3, 3], range)).toEqual([
      [3, 0],
      [3, 1],
      [3, 0],
    ]);
  });
});

describe('evaluate: extreme but finite numbers (integration in normalised coordinates)', () => {
  /** |actual − expected| within `relative` of `scale` */
  const near = (actual: number | undefined, expected: number, scale: number, relative = 1e-12) => {
    expect(Number.isFinite(actual)).toBe(true);
    expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(relative * scale);
  };

  it('±1e308 scale: two mirrored triangles at equal strength balance at 0; one alone has its centroid at the mean of its corners', () => {
    // range −8e307..8e307 is 1.6e308 wide (finite); the moments in x would be ~1e308² and overflow
    const agent = withStrengths({ low: [-8e307, -4e307, 0], high: [0, 4e307, 8e307] }, [
      'IF x IS any THEN o IS low, o IS high',
      'IF x IS any THEN o IS high WITH 0.5',
    ]);
    near(evaluate(agent, { x: 5 }).crisp.o, 0, 1.6e308);
    const high = withStrengths({ low: [-8e307, -4e307, 0], high: [0, 4e307, 8e307] }, ['IF x IS any THEN o IS high']);
    // a whole triangle's centroid is the mean of its corners: (0 + 4e307 + 8e307) / 3
    near(evaluate(high, { x: 5 }).crisp.o, 4e307, 1.6e308);
    const trace = evaluate(high, { x: 5 }, { trace: true });
    near(trace.centroid.o![0], 4e307, 1.6e308);
    near(trace.centroid.o![1], 1 / 3, 1);
  });

  it('1e-300 scale: a triangle [1, 2, 4]·1e-300 has its centroid at 7/3·1e-300, not at the range minimum', () => {
    const agent = withStrengths({ tiny: [1e-300, 2e-300, 4e-300] }, ['IF x IS any THEN o IS tiny']);
    near(evaluate(agent, { x: 5 }).crisp.o, (7 / 3) * 1e-300, 3e-300);
    // clipped at 0.5 it is the trapezoid [1, 1.5, 3, 4]·1e-300 of height 0.5; by parts (x in 1e-300):
    // area = 0.5·(3 + 1.5)/2 = 1.125; moment = ∫ x·y: rise 1..1.5 gives ∫(x−1)x dx = [x³/3 − x²/2] = 1/6,
    // top 1.5..3 gives 0.5·(9 − 2.25)/2 = 1.6875, fall 3..4 gives ∫0.5(4−x)x dx = 0.5·(4·3.5 − 37/3) = 5/6
    const half = withStrengths({ tiny: [1e-300, 2e-300, 4e-300] }, ['IF x IS any THEN o IS tiny WITH 0.5']);
    near(evaluate(half, { x: 5 }).crisp.o, ((1 / 6 + 1.6875 + 5 / 6) / 1.125) * 1e-300, 3e-300);
  });

  it('zero-width sets at 1e-300 scale average their positions', () => {
    const agent = withStrengths({ a: [1e-300, 1e-300, 1e-300], b: [3e-300, 3e-300, 3e-300] }, ['IF x IS any THEN o IS a, o IS b']);
    near(evaluate(agent, { x: 5 }).crisp.o, 2e-300, 2e-300);
  });

  it('an offset of 1e15 with sets a few units wide: exact up to the spacing of doubles there (0.125)', () => {
    // triangle 1e15 + [0, 1, 5]: centroid 1e15 + 2; every point is a multiple of 0.125, so representable
    const agent = withStrengths({ t: [1e15, 1e15 + 1, 1e15 + 5], u: [1e15 + 5, 1e15 + 6, 1e15 + 7] }, ['IF x IS any THEN o IS t']);
    near(evaluate(agent, { x: 5 }).crisp.o, 1e15 + 2, 1, 0.25);
  });
});
