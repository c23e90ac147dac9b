import { describe, expect, it } from 'vitest';
import { datasetOf, type LoggedEvaluation } from '../../src/learn/dataset.js';
import { chooseBandwidths, MetricEstimator, PRIOR_WEIGHT, returnedAtPoints } from '../../src/learn/estimator.js';
import { nearestNeighbours } from '../../src/learn/neighbours.js';
import { gaussian, seededRandom } from '../../src/learn/random.js';

const inputs = { x: { range: [0, 10] as const }, z: { range: [0, 1] as const } };
const outputs = { y: { range: [0, 100] as const } };

function randomLog(size: number, seed: number): LoggedEvaluation[] {
  const random = seededRandom(seed);
  return Array.from({ length: size }, (_, i) => {
    const input: Record<string, number> = i % 7 === 0 ? { x: 10 * random() } : { x: 10 * random(), z: random() };
    const crisp = { y: 50 };
    return { input, crisp, returned: { y: 100 * random() }, metric: random() };
  });
}

describe('nearest neighbours', () => {
  it('finds the same neighbours as sorting every distance, a missing input counting as a whole range apart', () => {
    const data = datasetOf(randomLog(300, 5), inputs, outputs);
    const points = Int32Array.from([0, 1, 7, 150, 299]);
    const hoods = nearestNeighbours(data, points, 20);
    points.forEach((point, p) => {
      const a = randomLog(300, 5)[point]!.input;
      const sorted = randomLog(300, 5)
        .map((entry, j) => {
          const b = entry.input;
          const dz = a.z === undefined || b.z === undefined ? (a.z === b.z ? 0 : 1) : a.z - b.z;
          return { j, d: ((a.x! - b.x!) / 10) ** 2 + dz ** 2 };
        })
        .filter(({ j }) => j !== point)
        .sort((u, v) => u.d - v.d);
      const found = Array.from(hoods.distance2.subarray(p * 20, (p + 1) * 20));
      expect(found).toEqual(sorted.slice(0, 20).map(({ d }) => expect.closeTo(d, 12)));
      expect(Array.from(hoods.index.subarray(p * 20, (p + 1) * 20))).not.toContain(point);
    });
  });

  it('takes every other evaluation when there are fewer than k', () => {
    const data = datasetOf(randomLog(6, 1), inputs, outputs);
    const hoods = nearestNeighbours(data, Int32Array.from([2]), 64);
    expect(hoods.k).toBe(5);
    expect([...hoods.index].sort()).toEqual([0, 1, 3, 4, 5]);
  });
});

describe('metric estimator', () => {
  it('weights each neighbour by its input and output kernels and shrinks towards the local mean (worked by hand)', () => {
    // Point 0 at x = 0 with neighbours at x = 1 (returned 10, metric 4) and x = 2 (returned 30, metric 10).
    const log: LoggedEvaluation[] = [
      { input: { x: 0 }, crisp: { y: 20 }, returned: { y: 20 }, metric: 0 },
      { input: { x: 1 }, crisp: { y: 20 }, returned: { y: 10 }, metric: 4 },
      { input: { x: 2 }, crisp: { y: 20 }, returned: { y: 30 }, metric: 10 },
    ];
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const hoods = nearestNeighbours(data, Int32Array.from([0]), 2);
    // input distances 0.1 and 0.2 of the range; with h = 0.1: weights e^-0.5 and e^-2
    const estimator = new MetricEstimator(data, hoods, { input: 0.1, output: Float64Array.of(0.1) });
    const wx1 = Math.exp(-0.5);
    const wx2 = Math.exp(-2);
    const localMean = (wx1 * 4 + wx2 * 10) / (wx1 + wx2);
    // the agent answers 20: both neighbours' returned outputs lie 10 = 0.1 of the range away, e^-0.5 each
    const wy = Math.exp(-0.5);
    const expected = (PRIOR_WEIGHT * localMean + wx1 * wy * 4 + wx2 * wy * 10) / (PRIOR_WEIGHT + wx1 * wy + wx2 * wy);
    expect(estimator.estimate(Float64Array.of(0.2))).toBeCloseTo(expected, 12);
    // answering 10 sits on the first neighbour: (10 − 30) / 100 = 0.2 from the second, e^-2
    const atTen = (PRIOR_WEIGHT * localMean + wx1 * 4 + wx2 * Math.exp(-2) * 10) / (PRIOR_WEIGHT + wx1 + wx2 * Math.exp(-2));
    expect(estimator.estimate(Float64Array.of(0.1))).toBeCloseTo(atTen, 12);
    // an output no rule reached matches no returned output: only the prior remains
    expect(estimator.estimate(Float64Array.of(NaN))).toBeCloseTo(localMean, 12);
  });

  it('recovers a known metric surface from noisy explored data', () => {
    // metric = −(y − x)² in shares of range, plus noise: the best output at x is y = x
    const random = seededRandom(4);
    const log: LoggedEvaluation[] = Array.from({ length: 2000 }, () => {
      const x = random();
      const crisp = { y: 50 };
      const y = Math.min(100, Math.max(0, 50 + 25 * gaussian(random)));
      return { input: { x: 10 * x }, crisp, returned: { y }, metric: -((y / 100 - x) ** 2) + 0.02 * gaussian(random) };
    });
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const points = Int32Array.from({ length: 400 }, (_, i) => i);
    const hoods = nearestNeighbours(data, points, 64);
    const estimator = new MetricEstimator(data, hoods, chooseBandwidths(data, hoods));
    const answerAt = (policy: (x: number) => number) =>
      estimator.estimate(Float64Array.from(points, (i) => policy(data.inputs[i]!)));
    // true means over x ~ U(0,1): answering x gives 0; answering 0.5 gives −E(x − 0.5)² = −1/12
    expect(answerAt((x) => x)).toBeGreaterThan(answerAt(() => 0.5));
    expect(answerAt(() => 0.5)).toBeCloseTo(-1 / 12, 1);
    expect(answerAt((x) => x)).toBeGreaterThan(-0.03);
  });

  it('chooses bandwidths that predict held-back metrics better than the widest ones', () => {
    const random = seededRandom(8);
    const log: LoggedEvaluation[] = Array.from({ length: 600 }, () => {
      const x = random();
      const y = 100 * random();
      return { input: { x: 10 * x }, crisp: { y: 50 }, returned: { y }, metric: Math.sin(6 * x) * (y / 100) + 0.05 * gaussian(random) };
    });
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const points = Int32Array.from({ length: 600 }, (_, i) => i);
    const hoods = nearestNeighbours(data, points, 64);
    const chosen = chooseBandwidths(data, hoods);
    const error = (estimator: MetricEstimator) => {
      const predicted = estimator.estimateEach(returnedAtPoints(data, points));
      return predicted.reduce((sum, value, p) => sum + (value - data.metric[p]!) ** 2, 0);
    };
    const wide = { input: 10, output: Float64Array.of(10) };
    expect(error(new MetricEstimator(data, hoods, chosen))).toBeLessThan(0.8 * error(new MetricEstimator(data, hoods, wide)));
  });
});
