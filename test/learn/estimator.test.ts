import { describe, expect, it } from 'vitest';
import { datasetOf, type LoggedEvaluation } from '../../src/learn/dataset.js';
import { chooseBandwidths, MetricEstimator, PRIOR_WEIGHT, returnedAtPoints, SLOPE_RIDGE } from '../../src/learn/estimator.js';
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
  it('among a pool that holds the point, with k beyond the pool, takes every other member once and nothing else', () => {
    const data = datasetOf(randomLog(40, 3), inputs, outputs);
    const among = Int32Array.from([2, 5, 9, 11, 30]);
    const hoods = nearestNeighbours(data, Int32Array.from([5, 7]), 64, among);
    expect(hoods.k).toBe(4);
    expect([...hoods.index.subarray(0, 4)].sort((a, b) => a - b)).toEqual([2, 9, 11, 30]);
    // a point outside the pool: its four nearest of the five
    const outside = [...hoods.index.subarray(4, 8)];
    expect(new Set(outside).size).toBe(4);
    expect(outside.every((j) => among.includes(j))).toBe(true);
    // and when no point is in the pool, every member counts
    expect(nearestNeighbours(data, Int32Array.from([7]), 64, among).k).toBe(5);
  });
});

describe('metric estimator', () => {
  it('fits a line in the returned outputs, weighted by input and output kernels, with the local mean as a prior (worked by hand)', () => {
    // Point 0 at x = 0 with neighbours at x = 1 (returned 10, metric 4) and x = 2 (returned 30, metric 10).
    const log: LoggedEvaluation[] = [
      { input: { x: 0 }, crisp: { y: 20 }, returned: { y: 20 }, metric: 0 },
      { input: { x: 1 }, crisp: { y: 20 }, returned: { y: 10 }, metric: 4 },
      { input: { x: 2 }, crisp: { y: 20 }, returned: { y: 30 }, metric: 10 },
    ];
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const hoods = nearestNeighbours(data, Int32Array.from([0]), 2);
    // input distances 0.1 and 0.2 of the range; with h = 0.1: weights e^-0.5 and e^-2
    const h = 0.1;
    const estimator = new MetricEstimator(data, hoods, { input: h, output: Float64Array.of(h) });
    const wx1 = Math.exp(-0.5);
    const wx2 = Math.exp(-2);
    const localMean = (wx1 * 4 + wx2 * 10) / (wx1 + wx2);
    /**
     * The intercept of the weighted line through (0, localMean) with weight PRIOR_WEIGHT and the two
     * neighbours at offsets d (returned − answer, shares of range), by Cramer's rule on the 2 × 2
     * normal equations, the slope's diagonal raised by its ridge.
     */
    const intercept = (answer: number) => {
      const d1 = 0.1 - answer;
      const d2 = 0.3 - answer;
      const w1 = wx1 * Math.exp(-(d1 * d1) / (2 * h * h));
      const w2 = wx2 * Math.exp(-(d2 * d2) / (2 * h * h));
      const s0 = PRIOR_WEIGHT + w1 + w2;
      const s1 = w1 * d1 + w2 * d2;
      const s2 = w1 * d1 * d1 + w2 * d2 * d2 + SLOPE_RIDGE * h * h * s0;
      const t0 = PRIOR_WEIGHT * localMean + w1 * 4 + w2 * 10;
      const t1 = w1 * d1 * 4 + w2 * d2 * 10;
      return (t0 * s2 - s1 * t1) / (s0 * s2 - s1 * s1);
    };
    for (const answer of [0.2, 0.1, 0.35, 0.6]) expect(estimator.estimate(Float64Array.of(answer))).toBeCloseTo(intercept(answer), 12);
    // an output no rule reached matches no returned output: only the prior remains
    expect(estimator.estimate(Float64Array.of(NaN))).toBeCloseTo(localMean, 12);
  });

  it("never falls back on a point's own metric when every input weight underflows: the neighbours' plain mean", () => {
    // four evaluations far apart in x, each with its own metric; a bandwidth far below their distances
    const log = [0, 1, 2, 3].map((i) => ({ input: { x: 3 * i, z: 0 }, crisp: { y: 50 }, returned: { y: 50 }, metric: 10 ** i }));
    const data = datasetOf(log, inputs, outputs);
    const hoods = nearestNeighbours(data, Int32Array.from([0, 1, 2, 3]), 3);
    const estimator = new MetricEstimator(data, hoods, { input: 1e-6, output: Float64Array.of(0.05) });
    // at the logged answers the line has no weight either: the estimate is the prior, the neighbours' mean
    const estimates = estimator.estimateEach(returnedAtPoints(data, hoods.points));
    expect(Array.from(estimates)).toEqual([370, 367, 337, 37].map((value) => expect.closeTo(value, 9)));
  });

  it('at the edge of the answers the log has seen, is pulled back inside about half as far as a kernel mean', () => {
    // metric = returned share, every answer returned between 0.4 and 0.6: at the edge the truth is 0.6
    const random = seededRandom(12);
    const log: LoggedEvaluation[] = Array.from({ length: 400 }, () => {
      const y = 40 + 20 * random();
      return { input: { x: 10 * random() }, crisp: { y: 50 }, returned: { y }, metric: y / 100 + 0.01 * gaussian(random) };
    });
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const points = Int32Array.from({ length: 100 }, (_, i) => i);
    const hoods = nearestNeighbours(data, points, 64);
    const h = 0.05;
    const estimator = new MetricEstimator(data, hoods, { input: h, output: Float64Array.of(h) });
    const at = (answer: number) => estimator.estimate(new Float64Array(points.length).fill(answer));
    // the kernel mean (Nadaraya–Watson with the same weights and prior), computed here from the definition
    const kernelMean = (answer: number) => {
      let total = 0;
      points.forEach((_, p) => {
        let localSum = 0;
        let localWeight = 0;
        let sum = 0;
        let weight = 0;
        for (let n = p * hoods.k; n < (p + 1) * hoods.k; n++) {
          const j = hoods.index[n]!;
          const wx = Math.exp(-hoods.distance2[n]! / (2 * h * h));
          const wy = Math.exp(-((data.returned[j]! - answer) ** 2) / (2 * h * h));
          localSum += wx * data.metric[j]!;
          localWeight += wx;
          sum += wx * wy * data.metric[j]!;
          weight += wx * wy;
        }
        total += (PRIOR_WEIGHT * (localSum / localWeight) + sum) / (PRIOR_WEIGHT + weight);
      });
      return total / points.length;
    };
    expect(at(0.5)).toBeCloseTo(0.5, 2);
    // at the edge both are pulled back inside, the line about half as far (0.025 against 0.046 here)
    expect(0.6 - kernelMean(0.6)).toBeGreaterThan(0.04);
    expect(0.6 - at(0.6)).toBeLessThan(0.6 * (0.6 - kernelMean(0.6)));
    expect(at(0.62)).toBeGreaterThan(kernelMean(0.62) + 0.005);
  });

  it('recovers a known metric surface from noisy explored data', async () => {
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
    const estimator = new MetricEstimator(data, hoods, await chooseBandwidths(data, hoods));
    const answerAt = (policy: (x: number) => number) => estimator.estimate(Float64Array.from(points, (i) => policy(data.inputs[i]!)));
    // true means over x ~ U(0,1): answering x gives 0; answering 0.5 gives −E(x − 0.5)² = −1/12
    expect(answerAt((x) => x)).toBeGreaterThan(answerAt(() => 0.5));
    expect(answerAt(() => 0.5)).toBeCloseTo(-1 / 12, 1);
    expect(answerAt((x) => x)).toBeGreaterThan(-0.03);
  });

  it('chooses bandwidths that predict held-back metrics better than the widest ones', async () => {
    const random = seededRandom(8);
    const log: LoggedEvaluation[] = Array.from({ length: 600 }, () => {
      const x = random();
      const y = 100 * random();
      return { input: { x: 10 * x }, crisp: { y: 50 }, returned: { y }, metric: Math.sin(6 * x) * (y / 100) + 0.05 * gaussian(random) };
    });
    const data = datasetOf(log, { x: { range: [0, 10] } }, outputs);
    const points = Int32Array.from({ length: 600 }, (_, i) => i);
    const hoods = nearestNeighbours(data, points, 64);
    const chosen = await chooseBandwidths(data, hoods);
    const error = (estimator: MetricEstimator) => {
      const predicted = estimator.estimateEach(returnedAtPoints(data, points));
      return predicted.reduce((sum, value, p) => sum + (value - data.metric[p]!) ** 2, 0);
    };
    const wide = { input: 10, output: Float64Array.of(10) };
    expect(error(new MetricEstimator(data, hoods, chosen))).toBeLessThan(0.8 * error(new MetricEstimator(data, hoods, wide)));
  });
});
