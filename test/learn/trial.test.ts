import { describe, expect, it } from 'vitest';
import { gaussian, seededRandom } from '../../src/learn/random.js';
import { decideTrial, TRIAL_LOOKS } from '../../src/learn/trial.js';

/** Plays one trial as autopilot does: values arrive one per arm at a time, the rule looks after every pair. */
function runTrial(lift: number, random: () => number, noise: () => number = () => gaussian(random)) {
  const current: number[] = [];
  const candidate: number[] = [];
  for (let n = 1; n <= TRIAL_LOOKS[TRIAL_LOOKS.length - 1]!; n++) {
    current.push(noise());
    candidate.push(lift + noise());
    const { verdict } = decideTrial(current, candidate, 'maximize');
    if (verdict !== 'continue') return { verdict, n };
  }
  throw new Error('the last look must decide');
}

describe('the trial rule', () => {
  /** The share of `trials` trials with values `lift` above the current arm's that adopt the candidate. */
  const adoptedShare = (lift: number, random: () => number, noise?: () => number, trials = 4000) => {
    let adopted = 0;
    for (let t = 0; t < trials; t++) if (runTrial(lift, random, noise).verdict === 'adopt') adopted++;
    return adopted / trials;
  };
  // three binomial standard deviations of 4,000 trials at ½
  const slack = 3 * Math.sqrt(0.25 / 4000);

  it('guards against worse candidates: one worse by half the values’ standard deviation is adopted in at most 3% of trials', () => {
    // at the last look, 40 values per arm: the difference's standard error is √(2/40) = 0.22, so
    // a difference of −0.5 is 2.2 of them below 0: Φ(−2.24) = 1.3%, and the first look adopts almost never
    expect(adoptedShare(-0.5, seededRandom(21))).toBeLessThan(0.03);
    // −0.3: Φ(−1.34) = 9%
    expect(adoptedShare(-0.3, seededRandom(25))).toBeLessThan(0.13);
  });

  it('adopts a candidate that is no better about half the time, and one better by 0.3 of the values’ standard deviation in at least 85%', () => {
    expect(Math.abs(adoptedShare(0, seededRandom(26)) - 0.5)).toBeLessThan(slack + 0.02);
    // Φ(1.34) = 91%, less what the first look drops
    expect(adoptedShare(0.3, seededRandom(27))).toBeGreaterThan(0.85);
  });

  it('also under heavy tails (Student t, 2 degrees of freedom): no better is a coin flip, the winsorised test is not carried by one value', () => {
    const random = seededRandom(22);
    const t2 = () => gaussian(random) / Math.sqrt((gaussian(random) ** 2 + gaussian(random) ** 2) / 2);
    expect(Math.abs(adoptedShare(0, random, t2) - 0.5)).toBeLessThan(slack + 0.02);
    expect(adoptedShare(-0.5, random, t2)).toBeLessThan(0.15);
    expect(adoptedShare(0.5, random, t2)).toBeGreaterThan(0.85);
  });

  it('adopts a clearly better candidate at the first look, and drops a clearly worse one there', () => {
    const random = seededRandom(23);
    const better = Array.from({ length: 200 }, () => runTrial(1.5, random));
    const worse = Array.from({ length: 200 }, () => runTrial(-1.5, random));
    expect(better.filter(({ verdict, n }) => verdict === 'adopt' && n === TRIAL_LOOKS[0]).length).toBeGreaterThan(190);
    expect(worse.filter(({ verdict, n }) => verdict === 'drop' && n === TRIAL_LOOKS[0]).length).toBeGreaterThan(190);
  });

  it('decides every trial by its last look, and never before both arms have the first look’s values', () => {
    const random = seededRandom(24);
    for (const lift of [-0.3, 0, 0.3]) {
      for (let t = 0; t < 200; t++) {
        const { n } = runTrial(lift, random);
        expect(TRIAL_LOOKS).toContain(n);
      }
    }
    expect(decideTrial([1, 2, 3], [5, 6, 7, 8], 'maximize').verdict).toBe('continue');
  });
});
