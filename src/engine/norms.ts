// The t-norms (AND, implication), s-norms (OR, aggregation) and hedges an agent may name, as
// fuzzylite defines them (src/norm, src/hedge), compared exactly where fuzzylite allows 1e-6. Each
// has a code, so that compiled loops switch on a number. A NaN (a missing input) stays NaN through
// every one of them, so a rule that needs a missing input never fires.

import type { Hedge, SNorm, TNorm } from './types.js';

export const T_NORM_CODES: Readonly<Record<TNorm, number>> = {
  min: 0,
  product: 1,
  boundedDifference: 2,
  drasticProduct: 3,
  einsteinProduct: 4,
  hamacherProduct: 5,
  nilpotentMinimum: 6,
};

export const S_NORM_CODES: Readonly<Record<SNorm, number>> = {
  max: 0,
  probabilisticSum: 1,
  boundedSum: 2,
  normalizedSum: 3,
  drasticSum: 4,
  einsteinSum: 5,
  hamacherSum: 6,
  nilpotentMaximum: 7,
};

/** a ⊤ b under t-norm `code`. */
export function tNorm(code: number, a: number, b: number): number {
  if (a !== a || b !== b) return NaN;
  switch (code) {
    case 0:
      return Math.min(a, b);
    case 1:
      return a * b;
    case 2:
      return Math.max(0, a + b - 1);
    case 3:
      return Math.max(a, b) === 1 ? Math.min(a, b) : 0;
    case 4:
      return (a * b) / (2 - (a + b - a * b));
    case 5:
      return a + b === 0 ? 0 : (a * b) / (a + b - a * b);
    default:
      return a + b > 1 ? Math.min(a, b) : 0;
  }
}

/** a ⊥ b under s-norm `code`. */
export function sNorm(code: number, a: number, b: number): number {
  if (a !== a || b !== b) return NaN;
  switch (code) {
    case 0:
      return Math.max(a, b);
    case 1:
      return a + b - a * b;
    case 2:
      return Math.min(1, a + b);
    case 3:
      return (a + b) / Math.max(1, a + b);
    case 4:
      return Math.min(a, b) === 0 ? Math.max(a, b) : 1;
    case 5:
      return (a + b) / (1 + a * b);
    case 6:
      // (a + b − 2ab) / (1 − ab) rearranged: written so, a sum of 1 and b just below 1 gave 2
      // (1 + b rounds to 2); here 1 − a is exact near 1 and the quotient is at most 1
      return a * b === 1 ? 1 : 1 - ((1 - a) * (1 - b)) / (1 - a * b);
    default:
      return a + b < 1 ? Math.max(a, b) : 1;
  }
}

/**
 * Which formula a t-norm (`code` < 8) or s-norm (8 + code) took for a and b: the place a curve
 * built from them may kink or jump. Integration splits where this changes.
 */
export function normBranch(code: number, a: number, b: number): number {
  switch (code) {
    case 0:
    case 8:
      return a < b ? 0 : 1;
    case 2:
      return a + b > 1 ? 1 : 0;
    case 3:
      return Math.max(a, b) === 1 ? 1 : 0;
    case 6:
    case 15:
      return a + b > 1 ? 1 : a + b < 1 ? 0 : 2;
    case 10:
      return a + b > 1 ? 1 : 0;
    case 11:
      return a + b > 1 ? 1 : 0;
    case 12:
      return Math.min(a, b) === 0 ? 1 : 0;
    default:
      return 0;
  }
}

export const HEDGE_CODES: Readonly<Record<Hedge, number>> = { very: 1, somewhat: 2, seldom: 3, extremely: 4 };

/** How many hedges one reference may stack: they are packed 3 bits each into one 32-bit code. */
export const MAX_HEDGES = 10;

/** Hedges (outermost first) packed so that hedgeChain applies the innermost first; 0 for none. */
export function packHedges(hedges: readonly Hedge[] | undefined): number {
  let code = 0;
  for (const hedge of hedges ?? []) code = code * 8 + HEDGE_CODES[hedge];
  return code;
}

/** One hedge (fuzzylite's Very, Somewhat, Seldom, Extremely). */
export function hedge(code: number, x: number): number {
  switch (code) {
    case 1:
      return x * x;
    case 2:
      return Math.sqrt(x);
    case 3:
      return x <= 0.5 ? Math.sqrt(0.5 * x) : 1 - Math.sqrt(0.5 * (1 - x));
    default:
      return x <= 0.5 ? 2 * x * x : 1 - 2 * (1 - x) * (1 - x);
  }
}

/** A packed chain of hedges applied to x, innermost (last written) first. */
export function hedgeChain(chain: number, x: number): number {
  for (let code = chain; code !== 0; code = Math.floor(code / 8)) x = hedge(code % 8, x);
  return x;
}
