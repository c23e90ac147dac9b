// An independent dense-integration oracle for every term kind, norm, hedge and defuzzification
// (docs/ENGINE.md, "Term kinds, universes, operators"): random agents are evaluated by the engine
// and by the code below, which shares nothing with it — its own membership formulas (fuzzylite's
// definitions, written out again), its own norms and hedges, and the aggregated set sampled on a
// grid of GRID points with the midpoint rule. The grid's error is at most about one cell times a
// jump (rectangle, binary, drastic and nilpotent norms) over the area, so crisp values are compared
// within 1e-3 of the output's range; the maxima within two grid cells (MAXIMUM_TOLERANCE).

import { describe, expect, it } from 'vitest';
import { activations, compileAgent, evaluate, type AgentDefinition, type TermDefinition } from '../../src/engine/index.js';
import { seededRandom as random } from '../../src/learn/random.js';

const sigma = (slope: number, at: number, x: number) => 1 / (1 + Math.exp(-slope * (x - at)));
const s = (a: number, b: number, x: number) => (x <= a ? 0 : x <= (a + b) / 2 ? 2 * ((x - a) / (b - a)) ** 2 : x < b ? 1 - 2 * ((x - b) / (b - a)) ** 2 : 1);

/** fuzzylite's membership of each kind, written out independently of src/engine/terms.ts. */
function degreeOf(term: TermDefinition, x: number): number {
  const height = 'height' in term && term.height !== undefined ? term.height : 1;
  const lineUp = (a: number, b: number) => (x - a) / (b - a);
  let y: number;
  switch (term.type) {
    case 'triangle':
      y =
        x < term.vertexA || x > term.vertexC
          ? 0
          : x === term.vertexB
            ? 1
            : x < term.vertexB
              ? lineUp(term.vertexA, term.vertexB)
              : lineUp(term.vertexC, term.vertexB);
      break;
    case 'trapezoid':
      y =
        x < term.vertexA || x > term.vertexD
          ? 0
          : x < term.vertexB
            ? lineUp(term.vertexA, term.vertexB)
            : x <= term.vertexC
              ? 1
              : lineUp(term.vertexD, term.vertexC);
      break;
    case 'ramp':
      y = Math.min(1, Math.max(0, lineUp(term.start, term.end)));
      break;
    case 'rectangle':
      y = x >= term.start && x <= term.end ? 1 : 0;
      break;
    case 'binary':
      y = (term.direction > term.start ? x >= term.start : x <= term.start) ? 1 : 0;
      break;
    case 'gaussian':
      y = Math.exp(-((x - term.mean) ** 2) / (2 * term.standardDeviation ** 2));
      break;
    case 'gaussianProduct':
      y =
        (x < term.meanA ? Math.exp(-((x - term.meanA) ** 2) / (2 * term.standardDeviationA ** 2)) : 1) *
        (x > term.meanB ? Math.exp(-((x - term.meanB) ** 2) / (2 * term.standardDeviationB ** 2)) : 1);
      break;
    case 'bell':
      y = 1 / (1 + Math.abs((x - term.center) / term.width) ** (2 * term.slope));
      break;
    case 'sigmoid':
      y = sigma(term.slope, term.inflection, x);
      break;
    case 'sigmoidDifference':
      y = Math.abs(sigma(term.rising, term.left, x) - sigma(term.falling, term.right, x));
      break;
    case 'sigmoidProduct':
      y = sigma(term.rising, term.left, x) * sigma(term.falling, term.right, x);
      break;
    case 'sShape':
      y = s(term.start, term.end, x);
      break;
    case 'zShape':
      y = 1 - s(term.start, term.end, x);
      break;
    case 'piShape':
      y = s(term.bottomLeft, term.topLeft, x) * (1 - s(term.topRight, term.bottomRight, x));
      break;
    case 'cosine':
      y = Math.abs(x - term.center) > term.width / 2 ? 0 : (1 + Math.cos((2 * Math.PI * (x - term.center)) / term.width)) / 2;
      break;
    case 'spike':
      y = Math.exp(-Math.abs((10 * (x - term.center)) / term.width));
      break;
    case 'concave':
      y =
        term.inflection <= term.end
          ? x < term.end
            ? (term.end - term.inflection) / (2 * term.end - term.inflection - x)
            : 1
          : x > term.end
            ? (term.inflection - term.end) / (term.inflection - 2 * term.end + x)
            : 1;
      break;
    case 'discrete': {
      const p = term.points;
      if (x <= p[0]![0]) y = p[0]![1];
      else if (x >= p.at(-1)![0]) y = p.at(-1)![1];
      else {
        const k = p.findIndex(([px]) => px >= x);
        const [x0, y0] = p[k - 1]!;
        const [x1, y1] = p[k]!;
        y = x1 === x ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
      }
      break;
    }
    default:
      throw new Error(`no membership for ${term.type}`);
  }
  return height * y;
}

type Norm = (a: number, b: number) => number;
const T_NORMS: Record<string, Norm> = {
  min: Math.min,
  product: (a, b) => a * b,
  boundedDifference: (a, b) => Math.max(0, a + b - 1),
  drasticProduct: (a, b) => (a === 1 ? b : b === 1 ? a : 0),
  einsteinProduct: (a, b) => (a * b) / (2 - a - b + a * b),
  hamacherProduct: (a, b) => (a === 0 && b === 0 ? 0 : (a * b) / (a + b - a * b)),
  nilpotentMinimum: (a, b) => (a + b > 1 ? Math.min(a, b) : 0),
};
const S_NORMS: Record<string, Norm> = {
  max: Math.max,
  probabilisticSum: (a, b) => a + b - a * b,
  boundedSum: (a, b) => Math.min(1, a + b),
  normalizedSum: (a, b) => (a + b > 1 ? 1 : a + b),
  drasticSum: (a, b) => (a === 0 ? b : b === 0 ? a : 1),
  einsteinSum: (a, b) => (a + b) / (1 + a * b),
  // fuzzylite's (a + b − 2ab) / (1 − ab) as 1 − (1 − a)(1 − b) / (1 − ab): the same in exact arithmetic, and
  // not 2 where 1 + b rounds to 2
  hamacherSum: (a, b) => (a * b === 1 ? 1 : 1 - ((1 - a) * (1 - b)) / (1 - a * b)),
  nilpotentMaximum: (a, b) => (a + b < 1 ? Math.max(a, b) : 1),
};
/** The norms without a jump: a maximum under the others hangs on whether a rounded degree is exactly 0 or 1. */
const CONTINUOUS_T_NORMS = ['min', 'product', 'einsteinProduct', 'hamacherProduct'];
const CONTINUOUS_S_NORMS = ['max', 'probabilisticSum', 'boundedSum', 'normalizedSum', 'einsteinSum', 'hamacherSum'];
/** The others, where the maxima are checked from the engine's rule strengths (see below). */
const JUMPING_T_NORMS = ['boundedDifference', 'drasticProduct', 'nilpotentMinimum'];
const JUMPING_S_NORMS = ['drasticSum', 'nilpotentMaximum'];
const HEDGES: Record<string, (x: number) => number> = {
  very: (x) => x ** 2,
  somewhat: Math.sqrt,
  seldom: (x) => (x <= 0.5 ? Math.sqrt(x / 2) : 1 - Math.sqrt((1 - x) / 2)),
  extremely: (x) => (x <= 0.5 ? 2 * x ** 2 : 1 - 2 * (1 - x) ** 2),
};

const FUZZY_KINDS = [
  'triangle',
  'trapezoid',
  'ramp',
  'rectangle',
  'binary',
  'gaussian',
  'gaussianProduct',
  'bell',
  'sigmoid',
  'sigmoidDifference',
  'sigmoidProduct',
  'sShape',
  'zShape',
  'piShape',
  'cosine',
  'spike',
  'concave',
  'discrete',
] as const;

/** A random term of `kind` in [0, 10], with a random height half the time. */
function randomTerm(kind: (typeof FUZZY_KINDS)[number], next: () => number): TermDefinition {
  const at = () => Math.round(next() * 1000) / 100;
  const sorted = (n: number) => Array.from({ length: n }, at).sort((p, q) => p - q);
  const apart = (): [number, number] => {
    const [a, b] = sorted(2) as [number, number];
    return a === b ? [a, a + 0.5] : [a, b];
  };
  const slope = () => (next() < 0.5 ? -1 : 1) * (0.5 + next() * 4);
  const height = next() < 0.5 ? { height: 0.3 + Math.round(next() * 70) / 100 } : {};
  switch (kind) {
    case 'triangle': {
      const [a, b, c] = sorted(3);
      return { type: kind, vertexA: a!, vertexB: b!, vertexC: c! + 0.1, ...height };
    }
    case 'trapezoid': {
      const [a, b, c, d] = sorted(4);
      return { type: kind, vertexA: a!, vertexB: b!, vertexC: c!, vertexD: d! + 0.1, ...height };
    }
    case 'ramp': {
      const [a, b] = apart();
      return next() < 0.5 ? { type: kind, start: a, end: b, ...height } : { type: kind, start: b, end: a, ...height };
    }
    case 'rectangle': {
      const [a, b] = apart();
      return { type: kind, start: a, end: b, ...height };
    }
    case 'binary': {
      const start = at();
      return { type: kind, start, direction: next() < 0.5 ? start - 1 : start + 1, ...height };
    }
    case 'gaussian':
      return { type: kind, mean: at(), standardDeviation: 0.3 + next() * 3, ...height };
    case 'gaussianProduct': {
      const [a, b] = sorted(2);
      return { type: kind, meanA: a!, standardDeviationA: 0.3 + next() * 2, meanB: b!, standardDeviationB: 0.3 + next() * 2, ...height };
    }
    case 'bell':
      return { type: kind, center: at(), width: 0.5 + next() * 3, slope: 0.5 + next() * 3, ...height };
    case 'sigmoid':
      return { type: kind, inflection: at(), slope: slope(), ...height };
    case 'sigmoidDifference':
    case 'sigmoidProduct': {
      const [a, b] = apart();
      return {
        type: kind,
        left: a,
        rising: Math.abs(slope()),
        falling: kind === 'sigmoidProduct' ? -Math.abs(slope()) : Math.abs(slope()),
        right: b,
        ...height,
      };
    }
    case 'sShape':
    case 'zShape': {
      const [a, b] = apart();
      return { type: kind, start: a, end: b, ...height };
    }
    case 'piShape': {
      const [a, b, c, d] = sorted(4);
      return { type: kind, bottomLeft: a!, topLeft: b! + 0.1, topRight: c! + 0.1, bottomRight: d! + 0.2, ...height };
    }
    case 'cosine':
    case 'spike':
      return { type: kind, center: at(), width: 0.5 + next() * 6, ...height };
    case 'concave': {
      const [a, b] = apart();
      return next() < 0.5 ? { type: kind, inflection: a, end: b, ...height } : { type: kind, inflection: b, end: a, ...height };
    }
    case 'discrete':
      return { type: kind, points: sorted(4).map((x) => [x, Math.round(next() * 100) / 100] as [number, number]), ...height };
  }
}

const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)]!;

interface Case {
  agent: AgentDefinition;
  inputs: Record<string, number>;
}

/** A random agent over two inputs and one output in [0, 10], with every part drawn from everything there is. */
/** `continuousOnly`: implication and aggregation by norms without jumps (every norm still joins conditions). */
function randomCase(seed: number, defuzzification: string, norms: 'all' | 'continuous' | 'jumping' = 'all'): Case {
  const next = random(seed);
  const terms = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${i}`, randomTerm(pick(FUZZY_KINDS, next), next)]));
  const inputs = { a: terms(3), b: terms(3) };
  const output = terms(2 + Math.floor(next() * 3));
  const reference = (variable: 'a' | 'b') => {
    const hedges = Array.from({ length: Math.floor(next() * 2.5) }, () => pick(Object.keys(HEDGES), next));
    const set = next() < 0.1 ? 'any' : pick(Object.keys(inputs[variable]), next);
    const text = set === 'any' ? `${variable} IS any` : `${variable} IS ${next() < 0.2 ? 'NOT ' : ''}${[...hedges, set].join(' ')}`;
    return text;
  };
  const rules = Array.from({ length: 3 + Math.floor(next() * 4) }, () => {
    const joint = next() < 0.5 ? ' AND ' : ' OR ';
    const conclusionHedge = next() < 0.3 ? `${pick(Object.keys(HEDGES), next)} ` : '';
    const weight = next() < 0.3 ? ` WITH ${Math.round(50 + next() * 50) / 100}` : '';
    return `IF ${reference('a')}${joint}${reference('b')} THEN y IS ${conclusionHedge}${pick(Object.keys(output), next)}${weight}`;
  });
  const agent: AgentDefinition = {
    inputs,
    outputs: { y: output },
    rules,
    operators: {
      and: pick(Object.keys(T_NORMS), next) as never,
      or: pick(Object.keys(S_NORMS), next) as never,
      implication: pick({ all: Object.keys(T_NORMS), continuous: CONTINUOUS_T_NORMS, jumping: JUMPING_T_NORMS }[norms], next) as never,
      aggregation: pick({ all: Object.keys(S_NORMS), continuous: CONTINUOUS_S_NORMS, jumping: [...JUMPING_S_NORMS, 'max'] }[norms], next) as never,
      defuzzification: defuzzification as never,
      ranges: { a: [0, 10], b: [0, 10], y: [0, 10] },
    },
  };
  return { agent, inputs: { a: Math.round(next() * 1000) / 100, b: Math.round(next() * 1000) / 100 } };
}

/** The degree of a condition written as this file's rules are: `x IS [NOT] [hedges] set` or `x IS any`. */
function referenceDegree(agent: AgentDefinition, text: string, inputs: Record<string, number>): number {
  const words = text.split(' ');
  const variable = words[0]!;
  if (words[2] === 'any') return 1;
  const negated = words[2] === 'NOT';
  const rest = words.slice(negated ? 3 : 2);
  const set = rest.at(-1)!;
  let degree = degreeOf(agent.inputs[variable]![set] as TermDefinition, inputs[variable]!);
  for (const hedge of rest.slice(0, -1).reverse()) degree = HEDGES[hedge]!(degree);
  return negated ? 1 - degree : degree;
}

/**
 * Each rule's conclusion (term, hedged activation), by the oracle's own reading of the rule text;
 * from the given rule strengths instead of its own when `strengths` is given.
 */
function activated(agent: AgentDefinition, inputs: Record<string, number>, strengths?: readonly number[]): Array<{ term: TermDefinition; degree: number }> {
  const { and, or } = agent.operators as { and: string; or: string };
  const result: Array<{ term: TermDefinition; degree: number }> = [];
  for (const [r, rule] of agent.rules.entries()) {
    const [, condition, conclusion, weight] = /^IF (.*) THEN y IS (.*?)(?: WITH (.*))?$/.exec(rule)!;
    const joint = condition!.includes(' AND ') ? ' AND ' : ' OR ';
    const [left, right] = condition!.split(joint);
    const norm = joint === ' AND ' ? T_NORMS[and]! : S_NORMS[or]!;
    const strength = strengths
      ? strengths[r]!
      : norm(referenceDegree(agent, left!, inputs), referenceDegree(agent, right!, inputs)) * (weight ? Number(weight) : 1);
    if (!(strength > 0)) continue;
    const parts = conclusion!.split(' ');
    let degree = strength;
    for (const hedge of parts.slice(0, -1).reverse()) degree = HEDGES[hedge]!(degree);
    result.push({ term: agent.outputs.y![parts.at(-1)!] as TermDefinition, degree });
  }
  return result;
}

const GRID = 50_000;
/** Of the output's range: a few grid cells (2e-5 each), and the largest jump's share of the area. */
const TOLERANCE = 1e-3;
/**
 * Of the output's range, for the maxima: the oracle's maximum set is a union of grid cells, so each
 * of its ends lies within one cell of the exact end and its mean within one cell; two cells.
 */
const MAXIMUM_TOLERANCE = 2 / GRID;
/** As the engine (integral.ts): within 1e-12 of the largest value is at the maximum, a flat top ragged by rounding included. */
const AT_MAXIMUM = 1e-12;

/** The crisp output the oracle reads off its grid, or undefined when no rule fires. */
function oracle(agent: AgentDefinition, inputs: Record<string, number>, strengths?: readonly number[]): number | undefined {
  const { implication, aggregation, defuzzification } = agent.operators as Record<string, string>;
  const reached = activated(agent, inputs, strengths);
  if (reached.length === 0) return undefined;
  const t = T_NORMS[implication!]!;
  const sNorm = S_NORMS[aggregation!]!;
  // max aggregation: rules reaching the same term first combine by max, which max makes no difference to
  const h = 10 / GRID;
  const ys = new Float64Array(GRID);
  for (let i = 0; i < GRID; i++) {
    const x = (i + 0.5) * h;
    let y = 0;
    for (const { term, degree } of reached) y = sNorm(y, t(degree, degreeOf(term, x)));
    ys[i] = y;
  }
  const total = ys.reduce((sum, y) => sum + y, 0);
  // nothing to integrate, nor a maximum of any width: the output is not reached
  if (!(total > 0)) return undefined;
  if (defuzzification === 'centroid') return total > 0 ? ys.reduce((sum, y, i) => sum + y * (i + 0.5) * h, 0) / total : undefined;
  if (defuzzification === 'bisector') {
    let sum = 0;
    for (let i = 0; i < GRID; i++) {
      if (sum + ys[i]! >= total / 2) return (i + (total / 2 - sum) / ys[i]!) * h;
      sum += ys[i]!;
    }
  }
  const top = ys.reduce((m, y) => Math.max(m, y), 0);
  if (!(top > 0)) return undefined;
  const maxima: number[] = [];
  ys.forEach((y, i) => {
    if (y >= top * (1 - AT_MAXIMUM)) maxima.push((i + 0.5) * h);
  });
  if (defuzzification === 'smallestOfMaximum') return maxima[0]! - h / 2;
  if (defuzzification === 'largestOfMaximum') return maxima.at(-1)! + h / 2;
  return maxima.reduce((sum, x) => sum + x, 0) / maxima.length;
}

/** Evaluates random agents until `count` reach the output, each within `tolerance` (of the range) of the oracle. */
function compareWithOracle(defuzzification: string, count: number, tolerance: number, norms: 'all' | 'continuous' | 'jumping'): void {
  let compared = 0;
  for (let seed = 1; compared < count; seed++) {
    const { agent, inputs } = randomCase(seed * 7919 + defuzzification.length, defuzzification, norms);
    const compiled = compileAgent(agent);
    // under jumping norms a last-digit difference in a strength decides a jump: the oracle then
    // integrates from the engine's strengths, which the last test checks against its own to 12 digits
    const strengths = norms === 'jumping' ? activations(compiled, inputs).map(({ strength }) => strength) : undefined;
    const expected = oracle(agent, inputs, strengths);
    const crisp = evaluate(compiled, inputs).crisp.y;
    if (expected === undefined || crisp === undefined) {
      expect(crisp, JSON.stringify({ agent, inputs })).toBe(expected);
      continue;
    }
    compared++;
    expect(Math.abs(crisp - expected), JSON.stringify({ agent, inputs, crisp, expected })).toBeLessThanOrEqual(tolerance * 10);
  }
}

describe('random agents with every term kind, norm, hedge and defuzzification against a dense-integration oracle', () => {
  for (const defuzzification of ['centroid', 'bisector']) {
    it(`${defuzzification}: within ${TOLERANCE} of the range on 25 agents`, { timeout: 120_000 }, () =>
      compareWithOracle(defuzzification, 25, TOLERANCE, 'all'),
    );
  }

  // the maxima under implications and aggregations without jumps: under drastic, nilpotent and
  // bounded-difference norms whether a degree is exactly 0 or 1 decides, and the last digits of the
  // engine's and the oracle's rule strengths (equal to 12 digits) differ there
  for (const defuzzification of ['meanOfMaximum', 'smallestOfMaximum', 'largestOfMaximum']) {
    it(`${defuzzification}: within ${MAXIMUM_TOLERANCE} of the range on 40 agents`, { timeout: 120_000 }, () =>
      compareWithOracle(defuzzification, 40, MAXIMUM_TOLERANCE, 'continuous'),
    );
    it(
      `${defuzzification} under bounded-difference, drastic and nilpotent implication and aggregation: within ${MAXIMUM_TOLERANCE} of the range on 25 agents`,
      {
        timeout: 120_000,
      },
      () => compareWithOracle(defuzzification, 25, MAXIMUM_TOLERANCE, 'jumping'),
    );
  }

  it('rule strengths follow every t-norm, s-norm and hedge (activations against the oracle)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { agent, inputs } = randomCase(seed, 'centroid');
      const strengths = activations(compileAgent(agent), inputs).map(({ strength }) => strength);
      const { and, or } = agent.operators as { and: string; or: string };
      const expected = agent.rules.map((rule) => {
        const [, condition, , weight] = /^IF (.*) THEN y IS (.*?)(?: WITH (.*))?$/.exec(rule)!;
        const joint = condition!.includes(' AND ') ? ' AND ' : ' OR ';
        const [left, right] = condition!.split(joint);
        const norm = joint === ' AND ' ? T_NORMS[and]! : S_NORMS[or]!;
        const strength = norm(referenceDegree(agent, left!, inputs), referenceDegree(agent, right!, inputs)) * (weight ? Number(weight) : 1);
        return strength >= 1e-150 ? strength : 0;
      });
      strengths.forEach((strength, r) => expect(strength, `${agent.rules[r]} ${JSON.stringify(inputs)}`).toBeCloseTo(expected[r]!, 12));
    }
  });
});

/** A random formula over x, a and b, as the text an agent holds and as the value the oracle computes on its own. */
function randomFormula(next: () => number, depth = 0): { text: string; value: (x: number, a: number, b: number) => number } {
  const leaf = depth >= 3 || next() < 0.3;
  if (leaf) {
    const choice = pick(['x', 'a', 'b', 'number'], next);
    if (choice === 'number') {
      const n = Math.round(next() * 500) / 100;
      return { text: String(n), value: () => n };
    }
    return { text: choice, value: (x, a, b) => ({ x, a, b })[choice as 'x' | 'a' | 'b'] };
  }
  const left = randomFormula(next, depth + 1);
  const right = randomFormula(next, depth + 1);
  const kind = pick(['+', '-', '*', '/', '^', 'sin', 'cos', 'fabs', 'min', 'max', 'atan2', 'neg'], next);
  const binary = (op: string, f: (p: number, q: number) => number) => ({
    text: `(${left.text} ${op} ${right.text})`,
    value: (x: number, a: number, b: number) => f(left.value(x, a, b), right.value(x, a, b)),
  });
  const call = (name: string, f: (...v: number[]) => number, two = false) => ({
    text: two ? `${name}(${left.text}, ${right.text})` : `${name}(${left.text})`,
    value: (x: number, a: number, b: number) => (two ? f(left.value(x, a, b), right.value(x, a, b)) : f(left.value(x, a, b))),
  });
  switch (kind) {
    case '+':
      return binary('+', (p, q) => p + q);
    case '-':
      return binary('-', (p, q) => p - q);
    case '*':
      return binary('*', (p, q) => p * q);
    case '/':
      return binary('/', (p, q) => p / q);
    case '^':
      return { text: `(${left.text}) ^ 2`, value: (x, a, b) => left.value(x, a, b) ** 2 };
    case 'neg':
      return { text: `-(${left.text})`, value: (x, a, b) => -left.value(x, a, b) };
    case 'sin':
      return call('sin', Math.sin);
    case 'cos':
      return call('cos', Math.cos);
    case 'fabs':
      return call('fabs', Math.abs);
    case 'min':
      return call('min', (p, q) => Math.min(p!, q!), true);
    case 'max':
      return call('max', (p, q) => Math.max(p!, q!), true);
    default:
      return call('atan2', (p, q) => Math.atan2(p!, q!), true);
  }
}

describe('random Takagi–Sugeno agents with function terms and chained rules against the oracle', () => {
  it('formulas weighed at each activation, and conditions on their sets (summed activations under aggregation none)', () => {
    let compared = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const next = random(seed * 104729);
      const terms = () => Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`t${i}`, randomTerm(pick(FUZZY_KINDS, next), next)]));
      const inputs = { a: terms(), b: terms() };
      const formulas = Array.from({ length: 3 }, () => randomFormula(next));
      const hedge = () => (next() < 0.3 ? `${pick(Object.keys(HEDGES), next)} ` : '');
      const rules = Array.from({ length: 4 }, () => {
        const joint = next() < 0.5 ? ' AND ' : ' OR ';
        return `IF a IS ${hedge()}${pick(Object.keys(inputs.a), next)}${joint}b IS ${hedge()}${pick(Object.keys(inputs.b), next)} THEN y IS f${Math.floor(next() * 3)}`;
      });
      // the chained rules come first: the engine runs the rules concluding y before them
      const chained = Array.from({ length: 2 }, (_, k) => `IF y IS ${hedge()}f${Math.floor(next() * 3)} THEN z IS ${k === 0 ? 'low' : 'high'}`);
      const average = next() < 0.5;
      const agent: AgentDefinition = {
        inputs,
        outputs: {
          y: Object.fromEntries(formulas.map(({ text }, k) => [`f${k}`, { type: 'function', formula: text }])),
          z: { low: { type: 'constant', value: 0.2 }, high: { type: 'constant', value: 0.8 } },
        },
        rules: [...chained, ...rules],
        operators: {
          and: pick(Object.keys(T_NORMS), next) as never,
          or: pick(Object.keys(S_NORMS), next) as never,
          outputs: { y: { defuzzification: average ? 'weightedAverage' : 'weightedSum' } },
        },
      };
      const given = { a: Math.round(next() * 1000) / 100, b: Math.round(next() * 1000) / 100 };
      // the oracle: each rule's activation (its strength through the conclusion's hedges) of f_k weighs f_k at x = activation
      const { and, or } = agent.operators as { and: string; or: string };
      const setDegree = [0, 0, 0];
      let sum = 0;
      let total = 0;
      for (const rule of rules) {
        const [, left, joint, right, k] = /^IF (.*?) (AND|OR) (b IS .*) THEN y IS f(\d)$/.exec(rule)!;
        const w = (joint === 'AND' ? T_NORMS[and]! : S_NORMS[or]!)(referenceDegree(agent, left!, given), referenceDegree(agent, right!, given));
        if (!(w > 0)) continue;
        setDegree[Number(k)]! += w;
        sum += w * formulas[Number(k)]!.value(w, given.a, given.b);
        total += w;
      }
      let zSum = 0;
      let zTotal = 0;
      for (const [k, rule] of chained.entries()) {
        const [, hedges, set] = /^IF y IS (.*?)f(\d) THEN/.exec(rule)!;
        let w = setDegree[Number(set)]!;
        for (const hedge of hedges!.trim().split(' ').filter(Boolean).reverse()) w = HEDGES[hedge]!(w);
        if (!(w > 0)) continue;
        zSum += w * (k === 0 ? 0.2 : 0.8);
        zTotal += w;
      }
      const crisp = evaluate(compileAgent(agent), given).crisp;
      const y = total > 0 ? (average ? sum / total : sum) : NaN;
      const where = JSON.stringify({ agent, given, crisp });
      if (Number.isFinite(y)) expect(Math.abs(crisp.y! - y), where).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(y)));
      else if (Number.isNaN(y)) expect(crisp.y, where).toBeUndefined();
      else expect(crisp.y, where).toBe(y);
      if (zTotal > 0) {
        compared++;
        expect(crisp.z, where).toBeCloseTo(zSum / zTotal, 12);
      } else expect(crisp.z, where).toBeUndefined();
    }
    expect(compared).toBeGreaterThan(50);
  });
});
