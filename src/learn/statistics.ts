export function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return values.length > 0 ? sum / values.length : NaN;
}

/** The population standard deviation. */
export function standardDeviation(values: ArrayLike<number>): number {
  const average = mean(values);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += (values[i]! - average) ** 2;
  return Math.sqrt(sum / values.length);
}

/** A metric value further than this many robust standard deviations from a median is pulled in to that bound (heavy tails). */
export const HUBER_SPREADS = 5;

/**
 * How far from its centre a metric value may lie before it is pulled in: `spreads` robust standard
 * deviations (1.4826 × the median of |deviation|, which one wild value cannot move).
 */
export function heavyTailBound(deviations: ArrayLike<number>, spreads = HUBER_SPREADS): number {
  const sorted = Float64Array.from(deviations, Math.abs).sort();
  return spreads * 1.4826 * (sorted[sorted.length >> 1] ?? 0);
}

/**
 * A mean with its 95% confidence interval (normal approximation) over `n` values: NaN and ±Infinity
 * where there are too few (the interface writes those as null: schema/autopilot.ts MeanInterval).
 */
export interface MeanEstimate {
  readonly n: number;
  readonly mean: number;
  readonly low: number;
  readonly high: number;
}

/**
 * Count, mean and sum of squared deviations of values added one at a time (Welford): a summary of
 * any number of values in constant memory, stable where the values are large next to their spread.
 */
export class Moments {
  n = 0;
  mean = 0;
  #squares = 0;

  add(value: number): void {
    this.n++;
    const delta = value - this.mean;
    this.mean += delta / this.n;
    this.#squares += delta * (value - this.mean);
  }

  /** The sample standard deviation (NaN under two values). */
  get deviation(): number {
    return this.n > 1 ? Math.sqrt(this.#squares / (this.n - 1)) : NaN;
  }

  interval(): MeanEstimate {
    const { n } = this;
    const mean = n > 0 ? this.mean : NaN;
    const half = n > 1 ? 1.96 * (this.deviation / Math.sqrt(n)) : Infinity;
    return { n, mean, low: mean - half, high: mean + half };
  }
}
