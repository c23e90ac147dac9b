import { describe, expect, it } from 'vitest';
import { explore, MAX_EXPLORATION } from '../../src/learn/explore.js';
import { gaussian, seededRandom, shuffle } from '../../src/learn/random.js';

describe('seeded randomness', () => {
  it('repeats exactly for a seed and differs between seeds', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    for (const value of draw(9)) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it('draws standard normal numbers', () => {
    const random = seededRandom(3);
    const draws = Array.from({ length: 40_000 }, () => gaussian(random));
    const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
    const variance = draws.reduce((s, x) => s + (x - mean) ** 2, 0) / draws.length;
    // standard error of the mean is 1/sqrt(40000) = 0.005; of the variance about sqrt(2/40000) = 0.007
    expect(Math.abs(mean)).toBeLessThan(0.025);
    expect(Math.abs(variance - 1)).toBeLessThan(0.035);
    // P(|z| > 1.96) = 5%
    const outside = draws.filter((x) => Math.abs(x) > 1.96).length / draws.length;
    expect(Math.abs(outside - 0.05)).toBeLessThan(0.006);
  });

  it('shuffles into a permutation', () => {
    const items = shuffle(
      Array.from({ length: 50 }, (_, i) => i),
      seededRandom(1),
    );
    expect([...items].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(items).not.toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});

describe('explore', () => {
  const outputs = { tip: { range: [0, 30] as const }, speed: { range: [-1, 1] as const } };

  it('moves each output by noise of sd scale × range, inside the range', () => {
    const random = seededRandom(11);
    const moved: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const returned = explore({ tip: 15, speed: 0.99 }, outputs, 0.1, random);
      moved.push(returned.tip! - 15);
      expect(returned.speed).toBeLessThanOrEqual(1);
      expect(returned.speed).toBeGreaterThanOrEqual(-1);
    }
    // sd 0.1 × 30 = 3; 15 ± 3 stays far from 0 and 30, so clamping barely touches the tip
    const sd = Math.sqrt(moved.reduce((s, x) => s + x * x, 0) / moved.length);
    expect(Math.abs(sd - 3)).toBeLessThan(0.1);
  });

  it('clamps into the range rather than leaving it', () => {
    const random = seededRandom(2);
    const speeds = Array.from({ length: 2000 }, () => explore({ speed: 0.99 }, outputs, 0.5, random).speed!);
    // noise of sd 1 from 0.99: about half the draws land above 1 and are clamped onto it
    const atTop = speeds.filter((s) => s === 1).length / speeds.length;
    expect(atTop).toBeGreaterThan(0.45);
    expect(atTop).toBeLessThan(0.56);
    expect(Math.min(...speeds)).toBeGreaterThanOrEqual(-1);
  });

  it('leaves outputs it was not given out, and refuses scales outside (0, 0.5]', () => {
    expect(Object.keys(explore({ tip: 3 }, outputs, 0.2, seededRandom(1)))).toEqual(['tip']);
    for (const scale of [0, -0.1, MAX_EXPLORATION + 0.01, NaN]) {
      expect(() => explore({ tip: 3 }, outputs, scale, seededRandom(1))).toThrow(RangeError);
    }
  });
});
