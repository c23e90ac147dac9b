// Property tests over random agents and inputs, set points on a grid of quarter units in 0..25
// (and, in one property, moved off it by a random affine map).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate, evaluateBatch, membership, printRule, type AgentDefinition, type Condition, type Polygon } from '../../src/engine/index.js';

const FRAME = 25;
const CELLS = 100_000;
const CELL = FRAME / CELLS;

const point = fc.integer({ min: 0, max: 100 }).map((k) => k / 4);
const set = fc.integer({ min: 2, max: 4 }).chain((n) => fc.array(point, { minLength: n, maxLength: n }).map((p) => p.sort((a, b) => a - b)));
const variable = fc.array(set, { minLength: 1, maxLength: 4 }).map((sets) => Object.fromEntries(sets.map((points, i) => [`s${i}`, points])));

const agentAndInputs = fc
  .record({
    inputs: fc.array(variable, { minLength: 1, maxLength: 3 }),
    outputs: fc.array(variable, { minLength: 1, maxLength: 2 }),
  })
  .chain(({ inputs, outputs }) => {
    const literal = fc
      .integer({ min: 0, max: inputs.length - 1 })
      .chain((i) => fc.constantFrom(...Object.keys(inputs[i]!)).map((s): Condition => ({ type: 'is', variable: `in${i}`, set: s })));
    const { condition } = fc.letrec<{ condition: Condition }>((tie) => ({
      condition: fc.oneof(
        { depthSize: 'small' },
        literal,
        fc.record({ type: fc.constant('not' as const), operand: tie('condition') }),
        fc.record({ type: fc.constantFrom('and' as const, 'or' as const), operands: fc.array(tie('condition'), { minLength: 2, maxLength: 3 }) }),
      ),
    }));
    const conclusion = fc
      .integer({ min: 0, max: outputs.length - 1 })
      .chain((o) => fc.constantFrom(...Object.keys(outputs[o]!)).map((s) => ({ variable: `out${o}`, set: s })));
    const rule = fc.record({
      type: fc.constant('if' as const),
      condition,
      conclusions: fc.array(conclusion, { minLength: 1, maxLength: 3 }),
      weight: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
    });
    const value = fc.oneof(fc.double({ min: -10, max: 35, noNaN: true }), point, fc.constant(undefined));
    const definition: fc.Arbitrary<AgentDefinition> = fc.array(rule, { minLength: 1, maxLength: 8 }).map((rules) => ({
      inputs: Object.fromEntries(inputs.map((sets, i) => [`in${i}`, sets])),
      outputs: Object.fromEntries(outputs.map((sets, o) => [`out${o}`, sets])),
      rules: rules.map(printRule),
    }));
    const given = fc
      .array(value, { minLength: inputs.length, maxLength: inputs.length })
      .map((values) => Object.fromEntries(values.flatMap((v, i) => (v === undefined ? [] : [[`in${i}`, v]]))));
    return fc.tuple(definition, given);
  });

/** The same agents and inputs moved and stretched along x by a random affine map, off any binary grid. */
const movedAgentAndInputs = fc
  .tuple(agentAndInputs, fc.double({ min: -1000, max: 1000, noNaN: true }), fc.double({ min: 1e-3, max: 1e3, noNaN: true }))
  .map(([[definition, inputs], offset, scale]): [AgentDefinition, Record<string, number>] => {
    const move = (x: number) => offset + scale * x;
    const moveVariables = (variables: AgentDefinition['inputs']) =>
      Object.fromEntries(
        Object.entries(variables).map(([name, sets]) => [
          name,
          Object.fromEntries(Object.entries(sets).map(([set, points]) => [set, (points as readonly number[]).map(move)])),
        ]),
      );
    return [
      { inputs: moveVariables(definition.inputs), outputs: moveVariables(definition.outputs), rules: definition.rules },
      Object.fromEntries(Object.entries(inputs).map(([name, value]) => [name, move(value)])),
    ];
  });

/**
 * The same agents moved to extreme but finite places by x → offset + scale · x: ranges up to 1.5e308
 * wide, ranges around 1e-300, and sets a few units wide at 1e15. Inputs that would leave the doubles
 * are held at ±1e308.
 */
const extremeAgentAndInputs = fc
  .tuple(
    agentAndInputs,
    fc.constantFrom(
      { offset: 0, scale: 6e306 },
      { offset: -7e307, scale: 3e306 },
      { offset: 0, scale: 1e-300 },
      { offset: 1e-290, scale: 3e-301 },
      { offset: 1e15, scale: 1 },
      { offset: -1e15, scale: 0.25 },
    ),
  )
  .map(([[definition, inputs], map]) => {
    const move = (x: number) => Math.max(-1e308, Math.min(1e308, map.offset + map.scale * x));
    const moveVariables = (variables: AgentDefinition['inputs']) =>
      Object.fromEntries(
        Object.entries(variables).map(([name, sets]) => [
          name,
          Object.fromEntries(Object.entries(sets).map(([set, points]) => [set, (points as readonly number[]).map(move)])),
        ]),
      );
    const moved: AgentDefinition = { inputs: moveVariables(definition.inputs), outputs: moveVariables(definition.outputs), rules: definition.rules };
    return { definition: moved, inputs: Object.fromEntries(Object.entries(inputs).map(([name, value]) => [name, move(value)])), map };
  });

/** The polygon's value at x: the highest point of every edge over x (the top of a vertical edge); 0 off it. */
function valueAt(polygon: Polygon, x: number): number {
  let value = 0;
  for (let i = 0; i + 1 < polygon.length; i++) {
    const [x0, y0] = polygon[i]!;
    const [x1, y1] = polygon[i + 1]!;
    if (x < x0 || x > x1) continue;
    value = Math.max(value, x1 === x0 ? Math.max(y0, y1) : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0));
  }
  return value;
}

/**
 * Area, centroid x and centroid y of the max of the polygons, numerically: the envelope is sampled
 * at the ends and middle of CELLS cells over [0, FRAME]; a cell whose middle sample lies on the line
 * through its ends counts as straight (exact trapezoid), any other (it holds a kink or a jump) is
 * halved again and again, sampling the polygons directly, down to 2^-24 of its width.
 */
function numericCentroid(polygons: Polygon[]): { area: number; x: number; y: number } {
  const samples = new Float64Array(2 * CELLS + 1); // x = k · CELL / 2
  for (const polygon of polygons) {
    for (let i = 0; i + 1 < polygon.length; i++) {
      const [x0, y0] = polygon[i]!;
      const [x1, y1] = polygon[i + 1]!;
      if (x1 === x0) continue;
      const first = Math.max(0, Math.ceil((2 * x0) / CELL));
      const last = Math.min(2 * CELLS, Math.floor((2 * x1) / CELL));
      for (let k = first; k <= last; k++) {
        const x = (k * CELL) / 2;
        samples[k] = Math.max(samples[k]!, y0 + ((y1 - y0) * (x - x0)) / (x1 - x0));
      }
    }
  }
  const envelope = (x: number) => Math.max(0, ...polygons.map((polygon) => valueAt(polygon, x)));
  const sums = { area: 0, momentX: 0, momentY: 0 };
  const straight = (a: number, fa: number, b: number, fb: number) => {
    sums.area += ((b - a) * (fa + fb)) / 2;
    sums.momentX += ((b - a) * (a * (2 * fa + fb) + b * (fa + 2 * fb))) / 6;
    sums.momentY += ((b - a) * (fa * fa + fa * fb + fb * fb)) / 6;
  };
  // straight within rounding: 1e-12 of the envelope's highest sample
  let top = 0;
  for (const sample of samples) top = Math.max(top, sample);
  const isStraight = (fa: number, fm: number, fb: number) => Math.abs(fm - (fa + fb) / 2) <= 1e-12 * top;
  const refine = (a: number, fa: number, b: number, fb: number, depth: number): void => {
    const m = (a + b) / 2;
    const fm = envelope(m);
    if (depth === 0 || (isStraight(fa, fm, fb) && isStraight(fa, envelope((a + m) / 2), fm) && isStraight(fm, envelope((m + b) / 2), fb))) {
      straight(a, fa, m, fm);
      straight(m, fm, b, fb);
      return;
    }
    refine(a, fa, m, fm, depth - 1);
    refine(m, fm, b, fb, depth - 1);
  };
  for (let c = 0; c < CELLS; c++) {
    const [fa, fm, fb] = [samples[2 * c]!, samples[2 * c + 1]!, samples[2 * c + 2]!];
    const [a, b] = [c * CELL, (c + 1) * CELL];
    if (isStraight(fa, fm, fb)) straight(a, fa, b, fb);
    else refine(a, fa, b, fb, 24);
  }
  return { area: sums.area, x: sums.momentX / sums.area, y: sums.momentY / sums.area };
}

describe('evaluation properties over random agents and inputs', () => {
  it('combined = max of clipped at every sampled x; each clipped = min(degree, membership); polygons are minimal', () => {
    fc.assert(
      fc.property(
        agentAndInputs,
        fc.array(fc.double({ min: -1, max: FRAME + 1, noNaN: true }), { minLength: 50, maxLength: 50 }),
        ([definition, inputs], xs) => {
          const agent = compileAgent(definition);
          const trace = evaluate(agent, inputs, { trace: true });
          for (const [output, combined] of Object.entries(trace.combined)) {
            const clipped = Object.values(trace.clipped[output]!);
            const corners = clipped.flatMap((polygon) => polygon.map(([x]) => x));
            for (const x of [...xs, ...corners]) {
              expect(valueAt(combined, x)).toBeCloseTo(Math.max(...clipped.map((polygon) => valueAt(polygon, x))), 9);
            }
            const { range } = agent.outputs[output]!;
            for (const [setName, polygon] of Object.entries(trace.clipped[output]!)) {
              const degree = trace.inferred[output]![setName]!;
              const points = definition.outputs[output]![setName]!;
              for (const x of xs.filter((x) => x > range[0] && x < range[1])) {
                // membership() saturates shoulders beyond the range; inside it, it is the set's shape
                if ((points as readonly number[]).every((p) => p !== x))
                  expect(valueAt(polygon, x)).toBeCloseTo(Math.min(degree, membership(points, range, x)), 9);
              }
            }
            for (const polygon of [combined, ...clipped]) expectMinimal(polygon);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('off the grid (any offset and scale): polygons stay minimal and left to right, combined = max of clipped, crisp in range', () => {
    fc.assert(
      fc.property(movedAgentAndInputs, ([definition, inputs]) => {
        const agent = compileAgent(definition);
        const trace = evaluate(agent, inputs, { trace: true });
        for (const [output, combined] of Object.entries(trace.combined)) {
          const clipped = Object.values(trace.clipped[output]!);
          for (const polygon of [combined, ...clipped]) expectMinimal(polygon);
          const [min, max] = agent.outputs[output]!.range;
          for (const x of clipped.flatMap((polygon) => polygon.map(([x]) => x)).concat(min + (max - min) / 3)) {
            expect(valueAt(combined, x)).toBeCloseTo(Math.max(...clipped.map((polygon) => valueAt(polygon, x))), 9);
          }
          const crisp = trace.crisp[output];
          if (crisp === undefined) continue;
          expect(crisp).toBeGreaterThanOrEqual(min);
          expect(crisp).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the centroid agrees with a numerical integration of the envelope (200 001 samples, refined at kinks) to 1e-6 of the output range', () => {
    fc.assert(
      fc.property(agentAndInputs, ([definition, inputs]) => {
        const agent = compileAgent(definition);
        const trace = evaluate(agent, inputs, { trace: true });
        for (const [output, [x, y]] of Object.entries(trace.centroid)) {
          const numeric = numericCentroid(Object.values(trace.clipped[output]!));
          if (numeric.area === 0) continue; // only zero-width sets reached: hand-tested in evaluate.test.ts
          const [min, max] = agent.outputs[output]!.range;
          expect(Math.abs(x - numeric.x)).toBeLessThanOrEqual(1e-6 * (max - min));
          expect(Math.abs(y - numeric.y)).toBeLessThanOrEqual(1e-6);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('at ±1e308, 1e-300 and 1e15 + small scales: crisp is finite, in range, and agrees with a numerical integration in normalised coordinates', () => {
    fc.assert(
      fc.property(extremeAgentAndInputs, ({ definition, inputs, map }) => {
        const agent = compileAgent(definition);
        const trace = evaluate(agent, inputs, { trace: true });
        const { crisp } = evaluate(agent, inputs);
        for (const [output, [x]] of Object.entries(trace.centroid)) {
          const [min, max] = agent.outputs[output]!.range;
          expect(Number.isFinite(crisp[output])).toBe(true);
          expect(crisp[output]).toBe(x);
          expect(x).toBeGreaterThanOrEqual(min);
          expect(x).toBeLessThanOrEqual(max);
          // back on the 0..25 grid, where numericCentroid samples
          const normalised = Object.values(trace.clipped[output]!).map((polygon) =>
            polygon.map(([px, py]): [number, number] => [(px - map.offset) / map.scale, py]),
          );
          const numeric = numericCentroid(normalised);
          if (numeric.area === 0) continue;
          // 1e-6 of the range, plus the spacing of doubles at the offset (the points themselves are rounded there)
          const tolerance = 1e-6 * (max - min) + 8 * Number.EPSILON * Math.abs(map.offset);
          expect(Math.abs(x - (map.offset + map.scale * numeric.x))).toBeLessThanOrEqual(tolerance);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('crisp lies in the output range, and the fast path, the trace and the batch agree', () => {
    fc.assert(
      fc.property(agentAndInputs, ([definition, inputs]) => {
        const agent = compileAgent(definition);
        const trace = evaluate(agent, inputs, { trace: true });
        const { crisp } = evaluate(agent, inputs);
        expect(evaluateBatch(agent, [inputs, inputs])).toEqual([crisp, crisp]);
        expect(Object.keys(crisp)).toEqual(Object.keys(trace.crisp));
        expect(Object.keys(trace.crisp)).toEqual(Object.keys(trace.inferred));
        for (const [output, value] of Object.entries(crisp)) {
          const [min, max] = agent.outputs[output]!.range;
          expect(value).toBeGreaterThanOrEqual(min);
          expect(value).toBeLessThanOrEqual(max);
          // both come from the same closed-form integration, the trace merely records its edges
          expect(value).toBe(trace.crisp[output]);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/**
 * Starts and ends on y = 0, runs left to right, and has no repeated point and no point on the segment
 * joining its neighbours: collinearity is judged with each triple scaled to its own extent in x and y
 * (it survives such scaling), so that neither flat degrees nor wide ranges hide a bend or fake one.
 */
function expectMinimal(polygon: Polygon): void {
  expect(polygon[0]![1]).toBe(0);
  expect(polygon.at(-1)![1]).toBe(0);
  for (let i = 1; i < polygon.length; i++) {
    const [ax, ay] = polygon[i - 1]!;
    const [bx, by] = polygon[i]!;
    expect(bx).toBeGreaterThanOrEqual(ax);
    expect(ax !== bx || ay !== by).toBe(true);
    const next = polygon[i + 1];
    if (!next || (next[0] === ax && next[1] === ay)) continue; // up and back down: a spike, not a straight line
    const [cx, cy] = next;
    const width = Math.max(Math.abs(bx - ax), Math.abs(cx - ax)) || 1;
    const height = Math.max(Math.abs(by - ay), Math.abs(cy - ay)) || 1;
    const [abx, aby, acx, acy] = [(bx - ax) / width, (by - ay) / height, (cx - ax) / width, (cy - ay) / height];
    const bend = Math.abs(abx * acy - aby * acx) / (Math.hypot(abx, aby) * Math.hypot(acx, acy)); // sine of the angle at A
    const turnsBack = (bx - ax) * (cx - bx) < 0 || (by - ay) * (cy - by) < 0;
    expect(bend > 1e-13 || turnsBack).toBe(true);
  }
}
