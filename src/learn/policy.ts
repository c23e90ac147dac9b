import type { Outputs } from '../engine/types.js';
import type { OutputRanges } from './explore.js';
import { gaussian, type Random } from './random.js';

/**
 * Autopilot's exploration: each output is drawn from a Gaussian centred on the engine's answer,
 * standard deviation its spread × that output's range, truncated to the range (redrawn until
 * inside, so the answer is always valid and its density is known exactly). Every output starts at
 * WIDEST_SPREAD; spread.ts narrows one, down to NARROWEST_SPREAD, where its log shows that
 * exploring it costs (docs/LEARNING.md: starting narrow left a cheap output under-explored).
 */
export const WIDEST_SPREAD = 0.08;
/**
 * The narrowest spread autopilot gives an output: once the log is large (spread.ts's
 * evidenceSpread), or where the metric bends sharply, as at a cliff. Not 0: every answer keeps a
 * density, which the off-policy estimates and the trials' draw correction need.
 */
export const NARROWEST_SPREAD = 0.02;

/** Each output's spread, in shares of its range; one number for every output. An output not named spreads WIDEST_SPREAD. */
export type Spread = number | Readonly<Record<string, number>>;

export const spreadOf = (spread: Spread, output: string): number => (typeof spread === 'number' ? spread : (spread[output] ?? WIDEST_SPREAD));

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/** Φ, the standard normal distribution function (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * The density, in shares of each output's range (so it does not depend on units), with which a
 * truncated Gaussian around `crisp` of standard deviation `spread` returns `returned`: the product
 * over outputs. Outputs the engine left out (no rule fired) count as 1.
 */
export function explorationDensity(crisp: Outputs, returned: Outputs, outputs: OutputRanges, spread: Spread): number {
  let density = 1;
  for (const [name, value] of Object.entries(crisp)) {
    const range = outputs[name]?.range;
    const answer = returned[name];
    if (!range || answer === undefined) continue;
    const scale = spreadOf(spread, name);
    const [min, max] = range;
    const width = max > min ? max - min : 1;
    const centre = (value - min) / width;
    const z = ((answer - min) / width - centre) / scale;
    const mass = normalCdf((1 - centre) / scale) - normalCdf((0 - centre) / scale);
    density *= Math.exp(-0.5 * z * z) / (scale * SQRT_2PI) / mass;
  }
  return density;
}

/**
 * How far, on average, a draw of spread `scale` moves an answer at `centre` (a share of the output's
 * range), in shares of the range: 0 in the middle, towards the middle near an end, where the draw is cut off.
 */
export function averageDraw(centre: number, scale: number): number {
  const [a, b] = [-centre / scale, (1 - centre) / scale];
  const mass = normalCdf(b) - normalCdf(a);
  const gaussian = (z: number) => Math.exp(-0.5 * z * z) / SQRT_2PI;
  return mass > 0 ? (scale * (gaussian(a) - gaussian(b))) / mass : 0;
}

/** One draw of the autopilot's exploration, and the density it was drawn with. */
export function exploreTruncated(crisp: Outputs, outputs: OutputRanges, spread: Spread, random: Random): { returned: Outputs; density: number } {
  const returned: Outputs = {};
  for (const [name, value] of Object.entries(crisp)) {
    const range = outputs[name]?.range;
    if (!range) throw new RangeError(`unknown output "${name}"`);
    const scale = spreadOf(spread, name);
    const [min, max] = range;
    // the answer lies in the range, so at least half the Gaussian's mass does: ~2 draws at worst
    let drawn = value + gaussian(random) * scale * (max - min);
    for (let attempt = 0; (drawn < min || drawn > max) && attempt < 64; attempt++) drawn = value + gaussian(random) * scale * (max - min);
    returned[name] = Math.min(max, Math.max(min, drawn));
  }
  return { returned, density: explorationDensity(crisp, returned, outputs, spread) };
}
