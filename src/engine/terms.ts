// Term kinds (docs/ENGINE.md, "Term kinds, universes, operators"): fuzzylite 7's terms, each named
// by its class name in lowerCamelCase with its parameters named as fuzzylite's members. This table
// is the one list of them: the JSON schema, validation and the formats all read it.

import { drawCurve } from './drawing.js';
import { membershipTrapezoid, pointsShape, shapeTrapezoid, trapezoidDegree, type Trapezoid } from './shape.js';
import type { Polygon, SetDefinition, TermDefinition, TermKind } from './types.js';

/** Each kind's numeric parameters, in fuzzylite's order (the order FLL writes them in). */
export const TERM_PARAMETERS = {
  triangle: ['vertexA', 'vertexB', 'vertexC'],
  trapezoid: ['vertexA', 'vertexB', 'vertexC', 'vertexD'],
  ramp: ['start', 'end'],
  rectangle: ['start', 'end'],
  gaussian: ['mean', 'standardDeviation'],
  gaussianProduct: ['meanA', 'standardDeviationA', 'meanB', 'standardDeviationB'],
  bell: ['center', 'width', 'slope'],
  sigmoid: ['inflection', 'slope'],
  sigmoidDifference: ['left', 'rising', 'falling', 'right'],
  sigmoidProduct: ['left', 'rising', 'falling', 'right'],
  sShape: ['start', 'end'],
  zShape: ['start', 'end'],
  piShape: ['bottomLeft', 'topLeft', 'topRight', 'bottomRight'],
  cosine: ['center', 'width'],
  spike: ['center', 'width'],
  concave: ['inflection', 'end'],
  binary: ['start', 'direction'],
  discrete: [],
  constant: ['value'],
  linear: [],
  function: [],
} as const satisfies Record<TermKind, readonly string[]>;

export const TERM_KINDS = Object.keys(TERM_PARAMETERS) as TermKind[];

/** Takagi–Sugeno terms: a value, not a fuzzy set; outputs only, defuzzified by a weighted average or sum. */
export const SUGENO_KINDS: ReadonlySet<TermKind> = new Set(['constant', 'linear', 'function']);

/** Terms that rise or fall monotonically over their whole domain: what Tsukamoto's method inverts. */
export const MONOTONIC_KINDS: ReadonlySet<TermKind> = new Set(['ramp', 'sigmoid', 'sShape', 'zShape', 'concave']);

// ---- compiled terms: a kind code and its numbers in a shared Float64Array, so that membership is one switch

/** Every kind reducible to a trapezoid times a height: triangle, trapezoid, ramp, rectangle, binary, and the arrays. */
export const TRAPEZOID = 0;
export const GAUSSIAN = 1;
export const GAUSSIAN_PRODUCT = 2;
export const BELL = 3;
export const SIGMOID = 4;
export const SIGMOID_DIFFERENCE = 5;
export const SIGMOID_PRODUCT = 6;
export const S_SHAPE = 7;
export const Z_SHAPE = 8;
export const PI_SHAPE = 9;
export const COSINE = 10;
export const SPIKE = 11;
export const CONCAVE = 12;
export const DISCRETE = 13;

/** A term ready to evaluate: `kind` and its numbers at params[offset ..] (the last of them its height). */
export interface CompiledTerm {
  readonly kind: number;
  readonly params: Float64Array;
}

/** The trapezoid [a, b, c, d] (±Infinity where it saturates) a kind reduces to, or undefined when it is curved or discrete. */
export function termTrapezoid(term: TermDefinition): [number, number, number, number] | undefined {
  switch (term.type) {
    case 'triangle':
      return [term.vertexA, term.vertexB, term.vertexB, term.vertexC];
    case 'trapezoid':
      return [term.vertexA, term.vertexB, term.vertexC, term.vertexD];
    case 'ramp':
      return term.start < term.end ? [term.start, term.end, Infinity, Infinity] : [-Infinity, -Infinity, term.end, term.start];
    case 'rectangle':
      return [term.start, term.start, term.end, term.end];
    case 'binary':
      return term.direction > term.start ? [term.start, term.start, Infinity, Infinity] : [-Infinity, -Infinity, term.start, term.start];
    default:
      return undefined;
  }
}

/** Its height: 1 unless given. */
export function termHeight(term: TermDefinition): number {
  return 'height' in term && term.height !== undefined ? term.height : 1;
}

/** Compiles a fuzzy term (not constant or linear); `trapezoid` is the one an array set or a reducible kind stands for. */
export function compileTerm(term: TermDefinition | undefined, trapezoid?: readonly [number, number, number, number]): CompiledTerm {
  if (!term || trapezoid) return { kind: TRAPEZOID, params: Float64Array.of(...trapezoid!, term ? termHeight(term) : 1) };
  const height = termHeight(term);
  const numbers = (kind: number, ...values: number[]): CompiledTerm => ({ kind, params: Float64Array.of(...values, height) });
  switch (term.type) {
    case 'gaussian':
      return numbers(GAUSSIAN, term.mean, term.standardDeviation);
    case 'gaussianProduct':
      return numbers(GAUSSIAN_PRODUCT, term.meanA, term.standardDeviationA, term.meanB, term.standardDeviationB);
    case 'bell':
      return numbers(BELL, term.center, term.width, term.slope);
    case 'sigmoid':
      return numbers(SIGMOID, term.inflection, term.slope);
    case 'sigmoidDifference':
      return numbers(SIGMOID_DIFFERENCE, term.left, term.rising, term.falling, term.right);
    case 'sigmoidProduct':
      return numbers(SIGMOID_PRODUCT, term.left, term.rising, term.falling, term.right);
    case 'sShape':
      return numbers(S_SHAPE, term.start, term.end);
    case 'zShape':
      return numbers(Z_SHAPE, term.start, term.end);
    case 'piShape':
      return numbers(PI_SHAPE, term.bottomLeft, term.topLeft, term.topRight, term.bottomRight);
    case 'cosine':
      return numbers(COSINE, term.center, term.width);
    case 'spike':
      return numbers(SPIKE, term.center, term.width);
    case 'concave':
      return numbers(CONCAVE, term.inflection, term.end);
    case 'discrete':
      return numbers(DISCRETE, term.points.length, ...term.points.map(([x]) => x), ...term.points.map(([, y]) => y));
    default: {
      const trapezoid = termTrapezoid(term);
      // constant, linear and function terms are Takagi–Sugeno values, not fuzzy sets
      if (!trapezoid) throw new TypeError(`a ${term.type} term is a Takagi–Sugeno value, not a fuzzy set: it has no membership or shape`);
      return compileTerm(term, trapezoid);
    }
  }
}

function sShape(start: number, end: number, x: number): number {
  if (x <= start) return 0;
  if (x <= (start + end) / 2) return 2 * ((x - start) / (end - start)) ** 2;
  if (x < end) return 1 - 2 * ((x - end) / (end - start)) ** 2;
  return 1;
}

/** fuzzylite's ZShape is 1 − its SShape (written out, its lower half rounds differently in the last bit). */
function zShape(start: number, end: number, x: number): number {
  return 1 - sShape(start, end, x);
}

function discreteDegree(p: Float64Array, x: number): number {
  const n = p[0]!;
  if (x <= p[1]!) return p[1 + n]!;
  if (x >= p[n]!) return p[2 * n]!;
  let low = 1;
  let high = n; // p[low] < x < p[high]
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (p[middle]! < x) low = middle;
    else if (p[middle]! > x) high = middle;
    else return p[middle + n]!;
  }
  const x0 = p[low]!;
  const x1 = p[high]!;
  const y0 = p[low + n]!;
  return y0 + ((p[high + n]! - y0) * (x - x0)) / (x1 - x0);
}

/** Whole exponents up to this are raised by multiplication (each product adds at most one rounding). */
const LARGEST_MULTIPLIED_EXPONENT = 8;

/**
 * t^e for t ≥ 0 and e > 0 (a bell's |(x − c)/w|^2s): by binary multiplication when e is a whole
 * number up to 8 (MATLAB's default slope 2 makes e = 4: two products), else as e^(e·ln t), which
 * V8 computes 2 to 3 times faster than its t ** e. Relative error: under e units in the last place
 * for the products; about |e·ln t| + 2 for the exponential, below 1e-14 wherever the bell's degree
 * is above 1e-6. Both keep t = 0 → 0 and t = ∞ → ∞.
 */
export function power(t: number, e: number): number {
  if (e <= LARGEST_MULTIPLIED_EXPONENT && Number.isInteger(e)) {
    let result = 1;
    for (let base = t, n = e; n > 0; n >>= 1, base *= base) if (n & 1) result *= base;
    return result;
  }
  return Math.exp(e * Math.log(t));
}

/**
 * fuzzylite's membership of each kind (src/term/*.cpp), without its 1e-6 tolerance in comparisons.
 * The kinds models use most are tested first, and this stays small enough for V8 to inline into
 * fuzzification's loop (a bell degree costs half again as much when called).
 */
export function termDegree(kind: number, p: Float64Array, x: number): number {
  if (kind === TRAPEZOID) return p[4]! * trapezoidDegree(p[0]!, p[1]!, p[2]!, p[3]!, x);
  if (kind === BELL) return p[3]! / (1 + power(Math.abs((x - p[0]!) / p[1]!), 2 * p[2]!));
  if (kind === GAUSSIAN) {
    const d = x - p[0]!;
    return p[2]! * Math.exp(-(d * d) / (2 * p[1]! * p[1]!));
  }
  return curvedDegree(kind, p, x);
}

/** termDegree of the other kinds. */
function curvedDegree(kind: number, p: Float64Array, x: number): number {
  switch (kind) {
    case GAUSSIAN_PRODUCT: {
      const a = x < p[0]! ? Math.exp(-((x - p[0]!) ** 2) / (2 * p[1]! * p[1]!)) : 1;
      const b = x > p[2]! ? Math.exp(-((x - p[2]!) ** 2) / (2 * p[3]! * p[3]!)) : 1;
      return p[4]! * a * b;
    }
    case SIGMOID:
      return p[2]! / (1 + Math.exp(-p[1]! * (x - p[0]!)));
    case SIGMOID_DIFFERENCE:
      return p[4]! * Math.abs(1 / (1 + Math.exp(-p[1]! * (x - p[0]!))) - 1 / (1 + Math.exp(-p[2]! * (x - p[3]!))));
    case SIGMOID_PRODUCT:
      return p[4]! / ((1 + Math.exp(-p[1]! * (x - p[0]!))) * (1 + Math.exp(-p[2]! * (x - p[3]!))));
    case S_SHAPE:
      return p[2]! * sShape(p[0]!, p[1]!, x);
    case Z_SHAPE:
      return p[2]! * zShape(p[0]!, p[1]!, x);
    case PI_SHAPE:
      return p[4]! * sShape(p[0]!, p[1]!, x) * zShape(p[2]!, p[3]!, x);
    case COSINE: {
      const c = p[0]!;
      const w = p[1]!;
      if (x < c - w / 2 || x > c + w / 2) return 0;
      return p[2]! * 0.5 * (1 + Math.cos((2 / w) * Math.PI * (x - c)));
    }
    case SPIKE:
      return p[2]! * Math.exp(-Math.abs((10 / p[1]!) * (x - p[0]!)));
    case CONCAVE: {
      const i = p[0]!;
      const e = p[1]!;
      if (i <= e) return x < e ? (p[2]! * (e - i)) / (2 * e - i - x) : p[2]!;
      return x > e ? (p[2]! * (i - e)) / (i - 2 * e + x) : p[2]!;
    }
    default:
      return p[p.length - 1]! * discreteDegree(p, x);
  }
}

/**
 * Where a term's formula changes or peaks: its kinks, jumps and maxima (finite ones). Between two
 * consecutive breakpoints of all an output's terms every term is one smooth piece, which is what
 * integration splits at.
 */
export function termBreakpoints({ kind, params: p }: CompiledTerm): number[] {
  let points: number[];
  switch (kind) {
    case TRAPEZOID:
      points = [p[0]!, p[1]!, p[2]!, p[3]!];
      break;
    case GAUSSIAN:
    case SIGMOID:
    case SPIKE:
    case BELL:
      points = [p[0]!];
      break;
    case GAUSSIAN_PRODUCT:
      points = [p[0]!, p[2]!];
      break;
    case SIGMOID_DIFFERENCE:
    case SIGMOID_PRODUCT: {
      // the two sigmoids are equal where their arguments are: the kink of |a − b|
      const [left, rising, falling, right] = [p[0]!, p[1]!, p[2]!, p[3]!];
      points = [left, right];
      if (rising !== falling) points.push((rising * left - falling * right) / (rising - falling));
      break;
    }
    case S_SHAPE:
    case Z_SHAPE:
      points = [p[0]!, (p[0]! + p[1]!) / 2, p[1]!];
      break;
    case PI_SHAPE:
      points = [p[0]!, (p[0]! + p[1]!) / 2, p[1]!, p[2]!, (p[2]! + p[3]!) / 2, p[3]!];
      break;
    case COSINE:
      points = [p[0]! - p[1]! / 2, p[0]!, p[0]! + p[1]! / 2];
      break;
    case CONCAVE:
      points = [p[1]!];
      break;
    default:
      points = Array.from(p.subarray(1, 1 + p[0]!));
  }
  return points.filter((x) => Number.isFinite(x));
}

/**
 * Tsukamoto's value of a monotonic term reached to degree y: the x where it has that degree
 * (fuzzylite's `tsukamoto` of each kind, src/term/*.cpp).
 */
export function tsukamoto(term: TermDefinition, y: number): number {
  const h = termHeight(term);
  switch (term.type) {
    case 'ramp':
      return term.start + ((term.end - term.start) * y) / h;
    case 'sigmoid':
      return term.inflection + Math.log(h / y - 1) / -term.slope;
    case 'sShape':
      return y <= h / 2 ? term.start + (term.end - term.start) * Math.sqrt(y / (2 * h)) : term.end - (term.end - term.start) * Math.sqrt((h - y) / (2 * h));
    case 'zShape':
      return y <= h / 2 ? term.end - (term.end - term.start) * Math.sqrt(y / (2 * h)) : term.start + (term.end - term.start) * Math.sqrt((h - y) / (2 * h));
    case 'concave':
      return (h * (term.inflection - term.end)) / y + 2 * term.end - term.inflection;
    default:
      throw new Error(`${term.type} is not monotonic`);
  }
}

/**
 * A set as it fuzzifies: an array's membership trapezoid (shoulders to ±Infinity, their direction
 * from the universe), a reducible kind's trapezoid, or the kind itself.
 */
export function membershipTerm(set: SetDefinition | TermDefinition, universe: readonly [number, number]): CompiledTerm {
  if (Array.isArray(set)) return compileTerm(undefined, membershipTrapezoid(set as SetDefinition, universe));
  const term = set as TermDefinition;
  return compileTerm(term, termTrapezoid(term));
}

/**
 * The trapezoid an output set is implied, aggregated and integrated as on the exact path, within
 * its universe (a ramp's or binary's saturated side reaching to its edge), or undefined when the
 * set is not one: curved, discrete, Takagi–Sugeno, or of a height below 1.
 */
export function shapeOf(set: SetDefinition | TermDefinition, universe: readonly [number, number]): Trapezoid | undefined {
  if (Array.isArray(set)) return shapeTrapezoid(set as SetDefinition, universe);
  const term = set as TermDefinition;
  const trapezoid = termTrapezoid(term);
  if (!trapezoid || termHeight(term) !== 1) return undefined;
  const [a, b, c, d] = trapezoid;
  const low = Math.min(universe[0], c);
  const high = Math.max(universe[1], b);
  return [a === -Infinity ? low : a, b === -Infinity ? low : b, c === Infinity ? high : c, d === Infinity ? high : d];
}

/** Degree of membership of x in a set (docs/ENGINE.md, "Membership"); `range` is its variable's universe (an array shoulder's direction). */
export function membership(set: SetDefinition | TermDefinition, range: readonly [number, number], x: number): number {
  const { kind, params } = membershipTerm(set, range);
  return termDegree(kind, params, x);
}

/**
 * A set's whole shape over its variable's universe as a polygon, for drawing: an array's exact
 * trapezoid (shoulders to the range's edge); a curve through points of it, chords within 1e-3.
 */
export function setShape(set: SetDefinition | TermDefinition, range: readonly [number, number]): Polygon {
  if (Array.isArray(set)) return pointsShape(set as SetDefinition, range);
  const term = membershipTerm(set as TermDefinition, range);
  const inside = termBreakpoints(term).filter((x) => x > range[0] && x < range[1]);
  const bounds = [...new Set([range[0], ...inside, range[1]])].sort((p, q) => p - q);
  return drawCurve((x) => termDegree(term.kind, term.params, x), bounds);
}
