import type { Outputs } from '../engine/types.js';
import { gaussian, type Random } from './random.js';

export type OutputRanges = Readonly<Record<string, { readonly range: readonly [number, number] }>>;

/** The largest exploration scale accepted: noise of half an output's range already covers it. */
export const MAX_EXPLORATION = 0.5;

/**
 * What an app receives when it asks to explore: each output moved by Gaussian noise of standard
 * deviation `scale` × that output's range, kept inside the range. `crisp` itself is not touched.
 */
export function explore(crisp: Outputs, outputs: OutputRanges, scale: number, random: Random): Outputs {
  if (!(scale > 0 && scale <= MAX_EXPLORATION)) {
    throw new RangeError(`exploration scale must be in (0, ${MAX_EXPLORATION}], got ${scale}`);
  }
  const returned: Outputs = {};
  for (const [name, value] of Object.entries(crisp)) {
    const range = Object.hasOwn(outputs, name) ? outputs[name]!.range : undefined;
    if (!range) throw new RangeError(`unknown output "${name}"`);
    const [min, max] = range;
    const moved = value + gaussian(random) * scale * (max - min);
    returned[name] = Math.min(max, Math.max(min, moved));
  }
  return returned;
}
