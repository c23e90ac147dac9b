// The numbers tuning may move in each term kind, and how (docs/LEARNING.md, "What is tuned per
// term kind"). Which values make a valid term is the engine's rule alone (termProblem); this table
// only says what each number means, so that a step of the search has the size that number needs.

import type { TERM_PARAMETERS } from '../engine/terms.js';
import type { TermDefinition, TermKind } from '../engine/types.js';

/**
 * What a number of a term is, which says how it moves:
 * - `position`: an x on its variable's universe. Shifted with the term by a share of the universe,
 *   spread about the middle of the term's positions; kept inside the universe, and one at or beyond
 *   its ends stays put.
 * - `width`: a length on the universe, above 0. Spread scales it.
 * - `steepness`: a rise per unit of x (a sigmoid's slope, 1 / a width). Spread divides it, so its
 *   sign (the side it rises to) is kept and it never reaches 0.
 * - `kept`: not tuned. A bell's exponent says its shape (flat-topped or pointed) as its kind does.
 */
export type Role = 'position' | 'width' | 'steepness' | 'kept';

/**
 * Each kind's numbers (TERM_PARAMETERS) by role. `discrete` lists its points' x as positions (their
 * y, its shape, are kept); `linear` its coefficients and constant (Takagi–Sugeno: see termParameters).
 * A term's `height` is never tuned: it weighs the term the way its rules' weights do, which are.
 */
export const PARAMETER_ROLES = {
  triangle: { vertexA: 'position', vertexB: 'position', vertexC: 'position' },
  trapezoid: { vertexA: 'position', vertexB: 'position', vertexC: 'position', vertexD: 'position' },
  ramp: { start: 'position', end: 'position' },
  rectangle: { start: 'position', end: 'position' },
  gaussian: { mean: 'position', standardDeviation: 'width' },
  gaussianProduct: { meanA: 'position', standardDeviationA: 'width', meanB: 'position', standardDeviationB: 'width' },
  bell: { center: 'position', width: 'width', slope: 'kept' },
  sigmoid: { inflection: 'position', slope: 'steepness' },
  sigmoidDifference: { left: 'position', rising: 'steepness', falling: 'steepness', right: 'position' },
  sigmoidProduct: { left: 'position', rising: 'steepness', falling: 'steepness', right: 'position' },
  sShape: { start: 'position', end: 'position' },
  zShape: { start: 'position', end: 'position' },
  piShape: { bottomLeft: 'position', topLeft: 'position', topRight: 'position', bottomRight: 'position' },
  cosine: { center: 'position', width: 'width' },
  spike: { center: 'position', width: 'width' },
  concave: { inflection: 'position', end: 'position' },
  // direction only says which side of start is 1: it moves with start, and keeps its side
  binary: { start: 'position', direction: 'position' },
  discrete: {},
  // a Takagi–Sugeno constant is the output's value where its rules fire: a position on the output's universe
  constant: { value: 'position' },
  linear: {},
  // a formula is the person's own expression: no number of it is tuned (docs/LEARNING.md)
  function: {},
} as const satisfies { readonly [K in TermKind]: Readonly<Record<(typeof TERM_PARAMETERS)[K][number], Role>> };

/**
 * One tunable number of a term. A linear term's are `coefficient`s (one per input it names: the
 * output's rise per unit of that input, any finite number) and its `intercept` (its constant,
 * absent meaning 0: where the plane is, shifted by a share of the output's universe).
 */
export interface Parameter {
  readonly role: Exclude<Role, 'kept'> | 'coefficient' | 'intercept';
  /** the term's member: a TERM_PARAMETERS name, `points` (a discrete's) or `coefficients` and `constant` (a linear's) */
  readonly name: string;
  readonly value: number;
  /** a linear coefficient's input */
  readonly input?: string;
  /** a discrete point's index: its x is the number */
  readonly point?: number;
}

/** Every number tuning may move in a term, in a fixed order (what withParameters takes back). */
export function termParameters(term: TermDefinition): Parameter[] {
  if (term.type === 'discrete') return term.points.map(([x], point) => ({ role: 'position', name: 'points', value: x, point }));
  if (term.type === 'linear') {
    return [
      ...Object.entries(term.coefficients).map(([input, value]) => ({ role: 'coefficient' as const, name: 'coefficients', value, input })),
      { role: 'intercept', name: 'constant', value: term.constant ?? 0 },
    ];
  }
  const roles: Readonly<Record<string, Role>> = PARAMETER_ROLES[term.type];
  const numbers = term as unknown as Readonly<Record<string, number>>;
  return Object.entries(roles).flatMap(([name, role]) => (role === 'kept' ? [] : [{ role, name, value: numbers[name]! }]));
}

/** The term with its tunable numbers replaced by `values` (in termParameters' order); everything else as it was. */
export function withParameters(term: TermDefinition, values: readonly number[]): TermDefinition {
  if (term.type === 'discrete') return { ...term, points: term.points.map(([, y], i) => [values[i]!, y] as const) };
  if (term.type === 'linear') {
    const inputs = Object.keys(term.coefficients);
    const coefficients = Object.fromEntries(inputs.map((input, i) => [input, values[i]!]));
    const constant = values[inputs.length]!;
    // a constant left out stays out while it is 0: a term nothing moved is written as it was
    return { type: 'linear', coefficients, ...(term.constant !== undefined || constant !== 0 ? { constant } : {}) };
  }
  const names = termParameters(term).map((parameter) => parameter.name);
  return { ...term, ...Object.fromEntries(names.map((name, i) => [name, values[i]!])) } as TermDefinition;
}
