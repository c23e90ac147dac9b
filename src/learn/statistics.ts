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
