// Integral defuzzification of an output that is not piecewise linear under min / max (curved terms,
// discrete terms, heights, other implications and aggregations): the aggregated set
// f(x) = S_j T(w_j, μ_j(x)) over the output's universe, integrated piece by piece. The pieces are
// split at every term's breakpoints (kinks, jumps, peaks) and where f changes formula — a clip
// (μ_j = w_j), a change of the maximum, a norm's branch — located by bisection to machine
// precision between samples; each piece is smooth and integrated by adaptive Gauss–Kronrod 7–15 to
// a relative error of 1e-12 (exact for polynomials up to degree 22, so piecewise-linear and
// quadratic pieces are exact). docs/ENGINE.md, "Term kinds, universes, operators".

import { normBranch, sNorm, tNorm } from './norms.js';
import { termBreakpoints, termDegree, type CompiledTerm } from './terms.js';
import { conclusionDegree, concludingPairs, type ActivationLayout } from './activation.js';
import { drawCurve } from './drawing.js';
import type { Polygon } from './types.js';

export const CENTROID = 0;
export const BISECTOR = 1;
export const MEAN_OF_MAXIMUM = 2;
export const SMALLEST_OF_MAXIMUM = 3;
export const LARGEST_OF_MAXIMUM = 4;

export interface IntegralPlan {
  readonly low: number;
  readonly high: number;
  /** the output's first set index; its terms in order */
  readonly firstSet: number;
  readonly terms: readonly CompiledTerm[];
  readonly implication: number;
  /** s-norm code; max (0) combines a term's activations first, which max makes no difference to */
  readonly aggregation: number;
  readonly defuzzification: number;
  /** low, every breakpoint of every term strictly inside, high */
  readonly breakpoints: Float64Array;
  /** the (rule, conclusion) pairs concluding this output */
  readonly pairRule: Int32Array;
  readonly pairConclusion: Int32Array;
}

export function planIntegral(
  terms: readonly CompiledTerm[],
  firstSet: number,
  universe: readonly [number, number],
  activation: ActivationLayout,
  implication: number,
  aggregation: number,
  defuzzification: number,
): IntegralPlan {
  const [low, high] = universe;
  const inside = terms.flatMap(termBreakpoints).filter((x) => x > low && x < high);
  const breakpoints = Float64Array.from([...new Set([low, ...inside, high])].sort((p, q) => p - q));
  return { low, high, firstSet, terms, implication, aggregation, defuzzification, breakpoints, ...concludingPairs(activation, firstSet, terms.length) };
}

/** The activated terms of one evaluation: term j (an index into plan.terms) reached to degree w_j. */
interface Activated {
  readonly term: Int32Array;
  readonly degree: Float64Array;
}

/** Under max aggregation a term's activations combine first (the inferred degrees); otherwise each counts on its own. */
function activated(plan: IntegralPlan, activation: ActivationLayout, strengths: Float64Array, inferred: Float64Array): Activated {
  const term: number[] = [];
  const degree: number[] = [];
  if (plan.aggregation === 0) {
    for (let s = 0; s < plan.terms.length; s++) {
      if (inferred[plan.firstSet + s]! > 0) {
        term.push(s);
        degree.push(inferred[plan.firstSet + s]!);
      }
    }
  } else {
    for (let p = 0; p < plan.pairRule.length; p++) {
      const c = plan.pairConclusion[p]!;
      const w = conclusionDegree(activation, strengths, plan.pairRule[p]!, c);
      if (w === 0) continue;
      term.push(activation.conclusionSets[c]! - plan.firstSet);
      degree.push(w);
    }
  }
  return { term: Int32Array.from(term), degree: Float64Array.from(degree) };
}

/** The aggregated set at x. */
function aggregated(plan: IntegralPlan, active: Activated, x: number): number {
  let y = 0;
  for (let j = 0; j < active.term.length; j++) {
    const { kind, params } = plan.terms[active.term[j]!]!;
    y = sNorm(plan.aggregation, y, tNorm(plan.implication, active.degree[j]!, termDegree(kind, params, x)));
  }
  return y;
}

/** Which formula each implication and aggregation step takes at x, as one number: where it changes, f may kink or jump. */
function regime(plan: IntegralPlan, active: Activated, x: number): number {
  let y = 0;
  let code = 0;
  for (let j = 0; j < active.term.length; j++) {
    const { kind, params } = plan.terms[active.term[j]!]!;
    const w = active.degree[j]!;
    const mu = termDegree(kind, params, x);
    const implied = tNorm(plan.implication, w, mu);
    code = (code * 5 + normBranch(plan.implication, w, mu)) % 2147483647;
    code = (code * 5 + normBranch(8 + plan.aggregation, y, implied)) % 2147483647;
    y = sNorm(plan.aggregation, y, implied);
  }
  return code;
}

/** Samples per piece at which the regime is read: changes between two are then bisected. */
const REGIME_SAMPLES = 16;

/** The x in (a, b) where the regime stops being regime(a), to machine precision (a and b differ in regime). */
function regimeChange(plan: IntegralPlan, active: Activated, a: number, b: number, left: number): number {
  for (let i = 0; i < 1100; i++) {
    const middle = a + (b - a) / 2;
    if (middle <= a || middle >= b) break;
    if (regime(plan, active, middle) === left) a = middle;
    else b = middle;
  }
  return b;
}

/** Every piece boundary: the breakpoints and the regime changes between them, in order. */
function pieceBounds(plan: IntegralPlan, active: Activated): number[] {
  const bounds: number[] = [plan.breakpoints[0]!];
  for (let k = 0; k + 1 < plan.breakpoints.length; k++) {
    const a = plan.breakpoints[k]!;
    const b = plan.breakpoints[k + 1]!;
    // read the regime inside the piece (not on its ends, where the formula may jump)
    let previousX = a + (b - a) * 1e-9;
    let previous = regime(plan, active, previousX);
    for (let i = 1; i <= REGIME_SAMPLES; i++) {
      const x = i === REGIME_SAMPLES ? b - (b - a) * 1e-9 : a + ((b - a) * i) / REGIME_SAMPLES;
      const current = regime(plan, active, x);
      if (current !== previous) bounds.push(regimeChange(plan, active, previousX, x, previous));
      previousX = x;
      previous = current;
    }
    bounds.push(b);
  }
  return bounds;
}

// Gauss–Kronrod 7–15 nodes on [−1, 1] (the positive half and 0) and weights: the published
// 33-digit values written as the doubles they round to (the shortest literal of each).
const XGK = [0.9914553711208126, 0.9491079123427585, 0.8648644233597691, 0.7415311855993945, 0.5860872354676911, 0.4058451513773972, 0.20778495500789848, 0];
const WGK = [
  0.022935322010529224, 0.06309209262997856, 0.10479001032225019, 0.14065325971552592, 0.1690047266392679, 0.19035057806478542, 0.20443294007529889,
  0.20948214108472782,
];
const WG = [0.1294849661688697, 0.27970539148927664, 0.3818300505051189, 0.4179591836734694];

/**
 * ∫ f, ∫ x f, ∫ f²/2 over [a, b]: the Kronrod estimates into out[0..2]; returns whether each is
 * within its tolerance of the Gauss estimate: TOLERANCE of itself, or ABSOLUTE_TOLERANCE of the
 * piece's width (times its largest |x| for the moment), whichever is larger — degrees are at most 1.
 */
function kronrod(plan: IntegralPlan, active: Activated, a: number, b: number, out: Float64Array): boolean {
  const centre = a + (b - a) / 2;
  const half = (b - a) / 2;
  let k0 = 0,
    k1 = 0,
    k2 = 0,
    g0 = 0,
    g1 = 0,
    g2 = 0;
  for (let i = 0; i < 8; i++) {
    const offsets = i === 7 ? [0] : [-half * XGK[i]!, half * XGK[i]!];
    for (const offset of offsets) {
      const x = centre + offset;
      const y = aggregated(plan, active, x);
      k0 += WGK[i]! * y;
      k1 += WGK[i]! * x * y;
      k2 += WGK[i]! * y * y * 0.5;
      if (i % 2 === 1) {
        const wg = WG[(i - 1) / 2]!;
        g0 += wg * y;
        g1 += wg * x * y;
        g2 += wg * y * y * 0.5;
      }
    }
  }
  out[0] = k0 * half;
  out[1] = k1 * half;
  out[2] = k2 * half;
  const width = b - a;
  const reach = Math.max(Math.abs(a), Math.abs(b));
  const within = (k: number, g: number, scale: number) => Math.abs(k - g) * half <= Math.max(TOLERANCE * Math.abs(k * half), ABSOLUTE_TOLERANCE * scale);
  return within(k0, g0, width) && within(k1, g1, width * reach) && within(k2, g2, width);
}

/** The relative error each piece is integrated to... */
const TOLERANCE = 1e-12;
/** ...or, where a piece's integral is tiny, its absolute error per unit of width (degrees are at most 1). */
const ABSOLUTE_TOLERANCE = 1e-13;
/** How often a piece may be halved: smooth pieces converge within a few, a missed jump within about 40. */
const MAX_DEPTH = 48;
/**
 * Gauss–Kronrod rules one piece may take: a bound on the work where rounding makes the integrand
 * noisy (a Hamacher sum near ab = 1 cancels), and no tolerance can be met; then the estimate taken is
 * as good as the integrand's own digits.
 */
const MAX_RULES_PER_PIECE = 4000;

/** Adaptive Gauss–Kronrod over [a, b], adding ∫ f, ∫ x f, ∫ f²/2 into sums; `budget.rules` counts down the rules left. */
function integrate(plan: IntegralPlan, active: Activated, a: number, b: number, sums: Float64Array, budget = { rules: MAX_RULES_PER_PIECE }, depth = 0): void {
  const out = new Float64Array(3);
  const converged = kronrod(plan, active, a, b, out);
  budget.rules--;
  const middle = a + (b - a) / 2;
  if (converged || depth >= MAX_DEPTH || budget.rules <= 0 || middle <= a || middle >= b || Number.isNaN(out[0])) {
    sums[0]! += out[0]!;
    sums[1]! += out[1]!;
    sums[2]! += out[2]!;
    return;
  }
  integrate(plan, active, a, middle, sums, budget, depth + 1);
  integrate(plan, active, middle, b, sums, budget, depth + 1);
}

/** ∫ f over [a, b]. */
function area(plan: IntegralPlan, active: Activated, a: number, b: number): number {
  const sums = new Float64Array(3);
  if (b > a) integrate(plan, active, a, b, sums);
  return sums[0]!;
}

/** The x halving the area: the piece holding it, then bisection on the area up to x. */
function bisector(plan: IntegralPlan, active: Activated, bounds: number[], areas: number[], total: number): number {
  let before = 0;
  let k = 0;
  while (k < areas.length - 1 && before + areas[k]! < total / 2) before += areas[k++]!;
  let a = bounds[k]!;
  let b = bounds[k + 1]!;
  const start = a;
  for (let i = 0; i < 200; i++) {
    const middle = a + (b - a) / 2;
    if (middle <= a || middle >= b) break;
    if (before + area(plan, active, start, middle) < total / 2) a = middle;
    else b = middle;
  }
  return a + (b - a) / 2;
}

/**
 * How far below its largest value f still counts as at its maximum (relative): a flat top of the
 * aggregated set is ragged by a few ulps where norms round (a Hamacher or Einstein sum of 1 and b is
 * 1 only up to rounding), and comparing exactly drops whole plateaus; within the integrals' own
 * precision (TOLERANCE) they are equal.
 */
const MAXIMUM_TOLERANCE = 1e-12;

/** The maxima of f: every interval (or point) where it is within MAXIMUM_TOLERANCE of its largest value. */
function maxima(plan: IntegralPlan, active: Activated, bounds: number[]): Array<[number, number]> {
  // on each piece f has one formula: its largest value at an end or at the peak golden-section search finds
  const peaks: Array<{ a: number; b: number; x: number; y: number }> = [];
  let top = 0;
  for (let k = 0; k + 1 < bounds.length; k++) {
    let a = bounds[k]!;
    let b = bounds[k + 1]!;
    const lo = a;
    const hi = b;
    const ratio = (Math.sqrt(5) - 1) / 2;
    for (let i = 0; i < 200 && b - a > 0; i++) {
      const c = b - ratio * (b - a);
      const d = a + ratio * (b - a);
      if (c <= a || d >= b || c >= d) break;
      if (aggregated(plan, active, c) < aggregated(plan, active, d)) a = c;
      else b = d;
    }
    const candidates = [lo, hi, a + (b - a) / 2];
    let x = lo;
    let y = -1;
    for (const candidate of candidates) {
      const value = aggregated(plan, active, candidate);
      if (value > y) {
        y = value;
        x = candidate;
      }
    }
    peaks.push({ a: lo, b: hi, x, y });
    top = Math.max(top, y);
  }
  const floor = top * (1 - MAXIMUM_TOLERANCE);
  const reaches = (x: number) => aggregated(plan, active, x) >= floor;
  const edge = (inside: number, outside: number) => {
    for (let i = 0; i < 1100; i++) {
      const middle = inside + (outside - inside) / 2;
      if (middle === inside || middle === outside) break;
      if (reaches(middle)) inside = middle;
      else outside = middle;
    }
    return inside;
  };
  const found: Array<[number, number]> = [];
  const add = (from: number, to: number) => {
    const last = found.at(-1);
    if (last && last[1] >= from) last[1] = Math.max(last[1], to);
    else found.push([from, to]);
  };
  for (const { a, b, x, y } of peaks) {
    if (y < floor) continue;
    // a piece may reach the maximum at both ends and dip between (a bounded sum saturating at 1 on
    // either side of a trough): its runs of samples at the maximum, each end bisected
    const xs = Array.from({ length: REGIME_SAMPLES + 1 }, (_, i) => (i === REGIME_SAMPLES ? b : a + ((b - a) * i) / REGIME_SAMPLES));
    xs.splice(
      xs.findIndex((sample) => sample >= x),
      0,
      x,
    );
    const at = xs.map(reaches);
    for (let i = 0; i < xs.length; i++) {
      if (!at[i]) continue;
      let j = i;
      while (j + 1 < xs.length && at[j + 1]) j++;
      add(i === 0 ? xs[0]! : edge(xs[i]!, xs[i - 1]!), j === xs.length - 1 ? xs[j]! : edge(xs[j]!, xs[j + 1]!));
      i = j;
    }
  }
  return found;
}

/** The crisp value and the centroid's height, or NaN when no rule reaches the output. */
export function defuzzifyIntegral(
  plan: IntegralPlan,
  activation: ActivationLayout,
  strengths: Float64Array,
  inferred: Float64Array,
  centroid: Float64Array,
): boolean {
  const active = activated(plan, activation, strengths, inferred);
  if (active.term.length === 0) return false;
  const bounds = pieceBounds(plan, active);
  const sums = new Float64Array(3);
  const areas: number[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const before = sums[0]!;
    if (bounds[k + 1]! > bounds[k]!) integrate(plan, active, bounds[k]!, bounds[k + 1]!, sums);
    areas.push(sums[0]! - before);
  }
  const total = sums[0]!;
  // a set of no area (reached only at isolated points) has neither a centroid nor a maximum of any width
  if (!(total > 0)) return false;
  centroid[1] = sums[2]! / total;
  switch (plan.defuzzification) {
    case CENTROID:
      centroid[0] = Math.min(Math.max(sums[1]! / total, plan.low), plan.high);
      return true;
    case BISECTOR:
      centroid[0] = bisector(plan, active, bounds, areas, total);
      return true;
    default: {
      const found = maxima(plan, active, bounds);
      if (found.length === 0 || aggregated(plan, active, found[0]![0]) <= 0) return false;
      if (plan.defuzzification === SMALLEST_OF_MAXIMUM) centroid[0] = found[0]![0];
      else if (plan.defuzzification === LARGEST_OF_MAXIMUM) centroid[0] = found.at(-1)![1];
      else {
        const width = found.reduce((sum, [a, b]) => sum + (b - a), 0);
        centroid[0] =
          width > 0 ? found.reduce((sum, [a, b]) => sum + (b - a) * (a + (b - a) / 2), 0) / width : found.reduce((sum, [a]) => sum + a, 0) / found.length;
      }
      return true;
    }
  }
}

/** The trace of an integral output: each reached term implied at its inferred degree, and the aggregated set. */
export function integralTrace(
  plan: IntegralPlan,
  activation: ActivationLayout,
  strengths: Float64Array,
  inferred: Float64Array,
): { implied: Array<{ set: number; polygon: Polygon }>; combined: Polygon } {
  const active = activated(plan, activation, strengths, inferred);
  const bounds = active.term.length > 0 ? pieceBounds(plan, active) : [...plan.breakpoints];
  const implied: Array<{ set: number; polygon: Polygon }> = [];
  for (let s = 0; s < plan.terms.length; s++) {
    const degree = inferred[plan.firstSet + s]!;
    if (!(degree > 0)) continue;
    const { kind, params } = plan.terms[s]!;
    implied.push({ set: plan.firstSet + s, polygon: drawCurve((x) => tNorm(plan.implication, degree, termDegree(kind, params, x)), bounds) });
  }
  return { implied, combined: drawCurve((x) => aggregated(plan, active, x), bounds) };
}
