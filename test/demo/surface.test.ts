// The demo's control surface (demo/surface.ts) and its output terms (demo/output-terms.ts), on
// agents whose answer has a closed form: a Takagi–Sugeno agent whose two rules' weights add up to
// 1 everywhere, so the surface is that formula at every grid point, worked out here by hand.
import { describe, expect, it } from 'vitest';
import { compileAgent } from '../../src/engine/index.js';
import type { AgentDefinition } from '../../src/engine/types.js';
import { chartRange, linearFormula, weighedTerms, weightedWords } from '../../demo/output-terms.js';
import { computeSurface, gridValues, surfaceColour } from '../../demo/surface.js';

/** low falls 1 → 0 and high rises 0 → 1 over x in 0..10; y and h are wholly "all"; z = 2x − 3y + 5h + 1 or 10. */
const planeAgent: AgentDefinition = {
  inputs: {
    x: { low: { type: 'ramp', start: 10, end: 0 }, high: { type: 'ramp', start: 0, end: 10 } },
    y: { all: { type: 'rectangle', start: 0, end: 4 } },
    h: { all: { type: 'rectangle', start: 0, end: 1 } },
  },
  outputs: { z: { plane: { type: 'linear', coefficients: { x: 2, y: -3, h: 5 }, constant: 1 }, ten: { type: 'constant', value: 10 } } },
  rules: ['IF x IS high AND y IS all AND h IS all THEN z IS plane', 'IF x IS low THEN z IS ten'],
  operators: { ranges: { x: [0, 10], y: [0, 4], h: [0, 1] } },
};
/** The weights are x/10 and 1 − x/10: the weighted mean is their mix of the plane and 10. */
const planeAnswer = (x: number, y: number, h: number) => (x / 10) * (2 * x - 3 * y + 5 * h + 1) + (1 - x / 10) * 10;

describe('the control surface', () => {
  it('has evenly spaced grid values whose ends are the range’s own', () => {
    const values = gridValues([0.1, 0.7], 7);
    expect(values[0]).toBe(0.1);
    expect(values.at(-1)).toBe(0.7);
    values.slice(1).forEach((value, index) => expect(value - values[index]!).toBeCloseTo(0.1, 12));
  });

  it('is the output over x (across) and y (up) with the other inputs held, row by row', () => {
    const surface = computeSurface(compileAgent(planeAgent), { output: 'z', x: 'x', y: 'y', held: { x: 3, y: 3, h: 0.4 }, points: 5 });
    expect(surface.x).toEqual({ name: 'x', values: [0, 2.5, 5, 7.5, 10] });
    expect(surface.y).toEqual({ name: 'y', values: [0, 1, 2, 3, 4] });
    expect(surface.values).toHaveLength(25);
    const expected = surface.y!.values.flatMap((y) => surface.x.values.map((x) => planeAnswer(x, y, 0.4)));
    surface.values.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 12));
    expect(surface.extent![0]).toBeCloseTo(Math.min(...expected), 12);
    expect(surface.extent![1]).toBeCloseTo(Math.max(...expected), 12);
  });

  it('follows the held input, and swaps its axes when asked', () => {
    const agent = compileAgent(planeAgent);
    const surface = computeSurface(agent, { output: 'z', x: 'y', y: 'h', held: { x: 7.5, y: 0, h: 0 }, points: 3 });
    const expected = [0, 0.5, 1].flatMap((h) => [0, 2, 4].map((y) => planeAnswer(7.5, y, h)));
    surface.values.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 12));
  });

  it('is a curve over one input when no second is chosen', () => {
    const surface = computeSurface(compileAgent(planeAgent), { output: 'z', x: 'x', held: { x: 0, y: 2, h: 1 }, points: 11 });
    expect(surface.y).toBeUndefined();
    surface.values.forEach((value, index) => expect(value).toBeCloseTo(planeAnswer(index, 2, 1), 12));
  });

  it('has no value where no rule reaches the output, and leaves those out of its extent', () => {
    const agent = compileAgent({
      inputs: { x: { left: [0, 0, 5], right: [8, 10] } },
      outputs: { z: { ten: { type: 'constant', value: 10 } } },
      rules: ['IF x IS left THEN z IS ten'],
    });
    const surface = computeSurface(agent, { output: 'z', x: 'x', held: { x: 0 }, points: 11 });
    // the triangle [0, 0, 5] is above 0 below x = 5 only
    expect(Array.from(surface.values)).toEqual([10, 10, 10, 10, 10, NaN, NaN, NaN, NaN, NaN, NaN]);
    expect(surface.extent).toEqual([10, 10]);
  });

  it('colours from viridis’s dark blue to its yellow, clamped outside 0..1', () => {
    expect(surfaceColour(0)).toEqual([68, 1, 84]);
    expect(surfaceColour(-3)).toEqual([68, 1, 84]);
    expect(surfaceColour(1)).toEqual([253, 231, 37]);
    expect(surfaceColour(7)).toEqual([253, 231, 37]);
    expect(surfaceColour(0.5)).toEqual([33, 145, 140]); // the middle stop of nine
  });
});

describe('an output’s Takagi–Sugeno terms as the answer shows them', () => {
  it('writes a linear term as its formula, zero coefficients left out', () => {
    expect(linearFormula({ type: 'linear', coefficients: { input1: -0.912, input2: 2.517 }, constant: 0.061 })).toBe('−0.912·input1 + 2.517·input2 + 0.061');
    expect(linearFormula({ type: 'linear', coefficients: { a: 0, b: 1 }, constant: -4 })).toBe('1·b − 4');
    expect(linearFormula({ type: 'linear', coefficients: { a: 0 } })).toBe('0');
  });

  it('reads each reached term’s value and weight from its bar, strongest first, and says how they make the answer', () => {
    const clipped = {
      ten: [
        [10, 0],
        [10, 0.25],
        [10, 0],
      ] as Array<[number, number]>,
      plane: [
        [4, 0],
        [4, 0.75],
        [4, 0],
      ] as Array<[number, number]>,
    };
    expect(weighedTerms(clipped)).toEqual([
      { term: 'plane', value: 4, weight: 0.75 },
      { term: 'ten', value: 10, weight: 0.25 },
    ]);
    const mean = (0.75 * 4 + 0.25 * 10) / (0.75 + 0.25);
    expect(weightedWords('z', clipped, mean, false)).toBe(
      'The rules reached “plane” 4.00 with weight 0.75 and “ten” 10.0 with weight 0.25. Each term is a value, not a shape: z is their weighted mean, Σ weight × value ÷ Σ weight = 5.50.',
    );
  });

  it('widens the chart to the constants and the answer beyond the output’s range', () => {
    expect(chartRange([0, 1], { a: { value: -2 }, b: { linear: true } }, 3)).toEqual([-2, 3]);
    expect(chartRange([0, 10], { a: { value: 5 } }, undefined)).toEqual([0, 10]);
  });
});
