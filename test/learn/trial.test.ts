import { describe, expect, it } from 'vitest';
import { gaussian, seededRandom } from '../../src/learn/random.js';
import { decideTrial, TRIAL_LEVEL, TRIAL_LOOKS } from '../../src/learn/trial.js';

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
  it('adopts a candidate that is no better in at most TRIAL_LEVEL of trials, over all its looks', () => {
    const random = seededRandom(21);
    const trials = 4000;
    let adopted = 0;
    for (let t = 0; t < trials; t++) if (runTrial(0, random).verdict === 'adopt') adopted++;
    // three binomial standard deviations of slack over the level
    expect(adopted / trials).toBeLessThan(TRIAL_LEVEL + 3 * Math.sqrt((TRIAL_LEVEL * (1 - TRIAL_LEVEL)) / trials));
  });

  it('also under heavy tails (Student t, 2 degrees of freedom): the winsorised test keeps its level', () => {
    const random = seededRandom(22);
    const t2 = () => gaussian(random) / Math.sqrt((gaussian(random) ** 2 + gaussian(random) ** 2) / 2);
    const trials = 4000;
    let adopted = 0;
    for (let t = 0; t < trials; t++) if (runTrial(0, random, t2).verdict === 'adopt') adopted++;
    expect(adopted / trials).toBeLessThan(TRIAL_LEVEL + 3 * Math.sqrt((TRIAL_LEVEL * (1 - TRIAL_LEVEL)) / trials));
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
