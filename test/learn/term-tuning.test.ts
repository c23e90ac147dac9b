// Tuning agents whose sets are named by their kind (src/learn/parameters.ts): every proposal over
// random agents with every term kind is a valid agent (the schema and the engine's validation
// accept it) that answers with finite numbers and means what the agent given meant.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate, TERM_KINDS } from '../../src/engine/index.js';
import type { AgentDefinition, TermDefinition, TermKind } from '../../src/engine/types.js';
import { validateAgent } from '../../src/engine/validate.js';
import { seededRandom } from '../../src/learn/random.js';
import { changedNumber, changesInWords, describeChange, Tuning, type Change, type Numbers } from '../../src/learn/tuning.js';
import { agentBodySchema } from '../../src/schema/agent.js';

/** Tsukamoto's kinds but the sigmoid, which only reaches 1 at infinity: a rule firing fully answers ±Infinity, tuned or not. */
const MONOTONIC = ['ramp', 'sShape', 'zShape', 'concave'] as const;
const FUZZY = TERM_KINDS.filter((kind) => kind !== 'constant' && kind !== 'linear' && kind !== 'function');

/** A valid term of `kind` on 0..10, drawn by `next`. */
function randomTerm(kind: TermKind, next: () => number): TermDefinition {
  const at = () => Math.round(next() * 1000) / 100;
  const sorted = (n: number) => Array.from({ length: n }, at).sort((p, q) => p - q);
  const apart = (): [number, number] => {
    const [p, q] = sorted(2);
    return p === q ? [p!, p! + 1] : [p!, q!];
  };
  const positive = (low: number, high: number) => low + next() * (high - low);
  const sign = () => (next() < 0.5 ? -1 : 1);
  const height = next() < 0.3 ? { height: 0.5 + next() / 2 } : {};
  switch (kind) {
    case 'triangle': {
      const [a, b, c] = sorted(3);
      return { type: kind, vertexA: a!, vertexB: b!, vertexC: c!, ...height };
    }
    case 'trapezoid': {
      const [a, b, c, d] = sorted(4);
      return { type: kind, vertexA: a!, vertexB: b!, vertexC: c!, vertexD: d!, ...height };
    }
    case 'ramp': {
      const [p, q] = apart();
      return next() < 0.5 ? { type: kind, start: p, end: q } : { type: kind, start: q, end: p };
    }
    case 'rectangle': {
      const [start, end] = sorted(2);
      return { type: kind, start: start!, end: end!, ...height };
    }
    case 'gaussian':
      return { type: kind, mean: at(), standardDeviation: positive(0.3, 3), ...height };
    case 'gaussianProduct': {
      const [a, b] = sorted(2);
      return { type: kind, meanA: a!, standardDeviationA: positive(0.3, 3), meanB: b!, standardDeviationB: positive(0.3, 3), ...height };
    }
    case 'bell':
      return { type: kind, center: at(), width: positive(0.5, 3), slope: positive(1, 4), ...height };
    case 'sigmoid':
      return { type: kind, inflection: at(), slope: sign() * positive(0.5, 4) };
    case 'sigmoidDifference':
    case 'sigmoidProduct': {
      const [left, right] = apart();
      return { type: kind, left, rising: positive(0.5, 4), falling: sign() * positive(0.5, 4), right, ...height };
    }
    case 'sShape':
    case 'zShape': {
      const [start, end] = apart();
      return { type: kind, start, end };
    }
    case 'piShape': {
      const [a, b, c, d] = sorted(4);
      return { type: kind, bottomLeft: a!, topLeft: a! + 0.5 + b! / 10, topRight: c! + 1, bottomRight: d! + 2, ...height };
    }
    case 'cosine':
    case 'spike':
      return { type: kind, center: at(), width: positive(1, 5), ...height };
    case 'concave': {
      const [p, q] = apart();
      return next() < 0.5 ? { type: kind, inflection: p, end: q } : { type: kind, inflection: q, end: p };
    }
    case 'binary': {
      const start = at();
      return { type: kind, start, direction: start + sign(), ...height };
    }
    case 'discrete':
      return { type: kind, points: sorted(3 + Math.floor(next() * 3)).map((x) => [x, Math.round(next() * 100) / 100] as const), ...height };
    case 'constant':
      return { type: kind, value: positive(-5, 15) };
    case 'linear':
      return { type: kind, coefficients: { a: positive(-2, 2), b: positive(-2, 2) }, ...(next() < 0.7 ? { constant: positive(-5, 5) } : {}) };
    case 'function':
      return { type: kind, formula: `${at()} + a * ${positive(-2, 2)} - b` };
  }
}

const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)]!;

/**
 * Two inputs of random fuzzy kinds (one universe declared, one the span of its terms), a Mamdani
 * output of random fuzzy kinds, a Takagi–Sugeno output (constants and linear terms) and a
 * Tsukamoto output (monotonic kinds), each rule concluding on all three.
 */
function randomAgent(seed: number): AgentDefinition {
  const next = seededRandom(seed);
  const terms = (kinds: readonly TermKind[], count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${i}`, randomTerm(pick(kinds, next), next)]));
  const inputs = { a: terms(FUZZY, 3), b: terms(FUZZY, 2) };
  const outputs = {
    m: terms(FUZZY, 3),
    s: { c0: randomTerm('constant', next), l1: randomTerm('linear', next), c2: randomTerm('constant', next), f3: randomTerm('function', next) },
    t: terms(MONOTONIC, 3),
  };
  const rules = Array.from({ length: 5 }, (_, i) => {
    const [x, y] = [pick(Object.keys(inputs.a), next), pick(Object.keys(inputs.b), next)];
    const [m, s, t] = [`t${i % 3}`, pick(['c0', 'l1', 'c2', 'f3'], next), `t${(i + 1) % 3}`];
    return `IF a IS ${x} ${next() < 0.5 ? 'AND' : 'OR'} b IS ${y} THEN m IS ${m}, s IS ${s}, t IS ${t}`;
  });
  return {
    inputs,
    outputs,
    rules,
    operators: { ranges: { a: [0, 10], m: [0, 10], s: [-20, 30], t: [0, 10] }, outputs: { t: { defuzzification: 'weightedAverage' } } },
  };
}

/** Every number of a term beside its type, flattened in a fixed order, with the names of those that are not tuned. */
function flatten(term: TermDefinition): Array<[string, number]> {
  const entries: Array<[string, number]> = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'number') entries.push([path, value]);
    else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key);
  };
  walk({ ...term, type: undefined }, '');
  return entries;
}

describe('tuning terms named by their kind', () => {
  it('keeps thousands of random proposals over random agents with every term kind valid, finite and meaning the same', () => {
    const kindsSeen = new Set<string>();
    let proposals = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const agent = randomAgent(seed);
      const tuning = new Tuning(agent);
      const moves = tuning.moves(['outputs', 'inputs']);
      expect(moves.some((move) => move.kind === 'tilt')).toBe(true);
      const original = compileAgent(agent);
      const [low, high] = original.inputs.b!.range;
      const situations = Array.from({ length: 4 }, (_, i) => ({ a: (i * 10) / 3, b: low + ((high - low) * ((i * 2) % 4)) / 3 }));
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.nat(moves.length - 1), fc.double({ min: -0.4, max: 0.4, noNaN: true })), { minLength: 10, maxLength: 30 }),
          (steps) => {
            let numbers: Numbers = tuning.initial;
            for (const [which, delta] of steps) {
              const next = tuning.apply(numbers, moves[which]!, delta);
              if (!next) continue;
              // every proposal is valid: the schema and the engine's validation accept it
              const proposal = tuning.definitionOf(next);
              expect(agentBodySchema.safeParse(proposal).error?.issues ?? []).toEqual([]);
              expect(validateAgent(proposal).issues).toEqual([]);
              proposals++;
              numbers = next;
            }
            const definition = tuning.definitionOf(numbers);
            const compiled = compileAgent(definition);
            for (const input of situations) {
              for (const [name, value] of Object.entries(evaluate(compiled, input).crisp))
                expect(value, `${name} at ${JSON.stringify(input)} of ${JSON.stringify(definition)}`).toSatisfy(Number.isFinite);
            }
            for (const side of ['inputs', 'outputs'] as const) {
              for (const [variable, sets] of Object.entries(agent[side])) {
                // the universe never changes
                expect(compiled[side][variable]!.range).toEqual(original[side][variable]!.range);
                for (const [set, given] of Object.entries(sets)) {
                  const term = given as TermDefinition;
                  const now = definition[side][variable]![set] as TermDefinition;
                  kindsSeen.add(term.type);
                  // the same kind with the same members; what is never tuned stays
                  expect(now.type).toBe(term.type);
                  expect(flatten(now).map(([name]) => name)).toEqual(
                    flatten(term)
                      .map(([name]) => name)
                      .concat(term.type === 'linear' && term.constant === undefined && 'constant' in now ? ['constant'] : []),
                  );
                  if ('height' in term) expect((now as { height?: number }).height).toBe(term.height);
                  if (term.type === 'bell') expect((now as typeof term).slope).toBe(term.slope);
                  if (term.type === 'discrete') expect((now as typeof term).points.map(([, y]) => y)).toEqual(term.points.map(([, y]) => y));
                  // which side rises, falls or is 1 stays
                  if (term.type === 'ramp' || term.type === 'sShape' || term.type === 'zShape') {
                    const moved = now as typeof term;
                    expect(Math.sign(moved.end - moved.start)).toBe(Math.sign(term.end - term.start));
                  }
                  if (term.type === 'concave')
                    expect(Math.sign((now as typeof term).end - (now as typeof term).inflection)).toBe(Math.sign(term.end - term.inflection));
                  if (term.type === 'binary')
                    expect(Math.sign((now as typeof term).direction - (now as typeof term).start)).toBe(Math.sign(term.direction - term.start));
                  if (term.type === 'sigmoid') expect(Math.sign((now as typeof term).slope)).toBe(Math.sign(term.slope));
                  if (term.type === 'sigmoidDifference' || term.type === 'sigmoidProduct') {
                    expect(Math.sign((now as typeof term).rising)).toBe(Math.sign(term.rising));
                    expect(Math.sign((now as typeof term).falling)).toBe(Math.sign(term.falling));
                  }
                }
              }
            }
            // the changes are every number that differs, in the agent's order, and only those
            const expected: string[] = [];
            for (const side of ['inputs', 'outputs'] as const) {
              for (const [variable, sets] of Object.entries(agent[side])) {
                for (const [set, given] of Object.entries(sets)) {
                  const after = new Map(flatten(definition[side][variable]![set] as TermDefinition));
                  for (const [name, from] of flatten(given as TermDefinition)) if (after.get(name) !== from) expected.push(`${variable}.${set}.${name}`);
                  if (!flatten(given as TermDefinition).some(([name]) => name === 'constant') && (after.get('constant') ?? 0) !== 0)
                    expected.push(`${variable}.${set}.constant`);
                }
              }
            }
            const named = (change: Change) => {
              if (change.kind !== 'term') return `${change.kind}`;
              const member =
                change.input !== undefined ? `coefficients.${change.input}` : change.point !== undefined ? `points.${change.point}.0` : change.parameter;
              return `${change.variable}.${change.set}.${member}`;
            };
            expect(
              tuning
                .changes(numbers)
                .filter((change) => change.kind === 'term')
                .map(named)
                .sort(),
            ).toEqual(expected.sort());
          },
        ),
        { numRuns: 50, seed },
      );
    }
    // every kind was drawn and thousands of moves were proposals (the rest were refused)
    expect([...kindsSeen].sort()).toEqual([...TERM_KINDS].sort());
    expect(proposals).toBeGreaterThan(2000);
  }, 120_000);

  it('moves each kind by its roles: a shift moves positions, a spread widths and steepness, a tilt turns a linear term about its input’s middle', () => {
    const agent: AgentDefinition = {
      inputs: { x: { low: { type: 'gaussian', mean: 2, standardDeviation: 1 }, high: { type: 'sigmoid', inflection: 6, slope: 2 } } },
      outputs: { y: { base: { type: 'constant', value: 10 }, plane: { type: 'linear', coefficients: { x: 3 }, constant: 1 } } },
      rules: ['IF x IS low THEN y IS base', 'IF x IS high THEN y IS plane'],
      operators: { ranges: { x: [0, 10], y: [0, 40] } },
    };
    const tuning = new Tuning(agent);
    expect(tuning.moves(['outputs', 'inputs']).filter((move) => move.kind !== 'weight')).toEqual([
      { kind: 'shift', side: 'outputs', variable: 'y', set: 'base' },
      { kind: 'shift', side: 'outputs', variable: 'y', set: 'plane' },
      { kind: 'tilt', side: 'outputs', variable: 'y', set: 'plane', input: 'x' },
      { kind: 'shift', side: 'inputs', variable: 'x', set: 'low' },
      { kind: 'spread', side: 'inputs', variable: 'x', set: 'low' },
      { kind: 'shift', side: 'inputs', variable: 'x', set: 'high' },
      { kind: 'spread', side: 'inputs', variable: 'x', set: 'high' },
    ]);
    const at = (numbers: Numbers | undefined, side: 'inputs' | 'outputs', variable: string, set: string) => numbers![side][variable]![set];
    // 0.1 of x's universe (10) is 1
    expect(at(tuning.apply(tuning.initial, { kind: 'shift', side: 'inputs', variable: 'x', set: 'low' }, 0.1), 'inputs', 'x', 'low')).toEqual({
      type: 'gaussian',
      mean: 3,
      standardDeviation: 1,
    });
    // a spread by half widens a Gaussian by half and makes a sigmoid rise two thirds as steeply
    expect(at(tuning.apply(tuning.initial, { kind: 'spread', side: 'inputs', variable: 'x', set: 'low' }, 0.5), 'inputs', 'x', 'low')).toEqual({
      type: 'gaussian',
      mean: 2,
      standardDeviation: 1.5,
    });
    expect(
      (at(tuning.apply(tuning.initial, { kind: 'spread', side: 'inputs', variable: 'x', set: 'high' }, 0.5), 'inputs', 'x', 'high') as { slope: number }).slope,
    ).toBeCloseTo(4 / 3, 4);
    // a constant's value by 0.1 of y's universe (40): 4
    expect(at(tuning.apply(tuning.initial, { kind: 'shift', side: 'outputs', variable: 'y', set: 'base' }, 0.1), 'outputs', 'y', 'base')).toEqual({
      type: 'constant',
      value: 14,
    });
    // a tilt of 0.1: the coefficient by 0.1 × 40 / 10 = 0.4, the constant by −0.4 × 5 so the plane keeps its value at x = 5
    const tilted = at(tuning.apply(tuning.initial, { kind: 'tilt', side: 'outputs', variable: 'y', set: 'plane', input: 'x' }, 0.1), 'outputs', 'y', 'plane');
    expect(tilted).toEqual({ type: 'linear', coefficients: { x: 3.4 }, constant: -1 });
    // the low Gaussian's centre (2) may not pass the high sigmoid's (6): the order of centres stays
    expect(tuning.apply(tuning.initial, { kind: 'shift', side: 'inputs', variable: 'x', set: 'low' }, 0.45)).toBeUndefined();
    const changes = tuning.changes({
      ...tuning.initial,
      outputs: { y: { ...agent.outputs.y!, plane: tilted! } },
      inputs: { x: { ...agent.inputs.x!, low: { type: 'gaussian', mean: 3, standardDeviation: 1 } } },
    });
    expect(changes.map((change) => describeChange(change))).toEqual([
      'x: gaussian "low" mean 2 → 3',
      'y: linear "plane" coefficient of x 3 → 3.4',
      'y: linear "plane" constant 1 → -1',
    ]);
    expect(changedNumber({ kind: 'set', side: 'outputs', variable: 'price', set: 'high', point: 0, from: 0.5, to: 1 })).toBe('price: set "high" point 1');
    expect(describeChange({ kind: 'weight', rule: 2, from: 1, to: 0.75 })).toBe('rule 3: weight 1 → 0.75');
    // a version's evidence keeps the first 50 in words, and how many more
    const many = Array.from({ length: 53 }, (_, rule) => ({ kind: 'weight' as const, rule, from: 1, to: 0.5 }));
    expect(changesInWords(many.slice(0, 50))).toHaveLength(50);
    expect(changesInWords(many)).toEqual([...many.slice(0, 50).map((change) => describeChange(change)), 'and 3 more']);
  });

  it('keeps a term at the end of an undeclared universe where it is, so the universe stays', () => {
    const agent: AgentDefinition = {
      inputs: { x: { low: { type: 'gaussian', mean: 0, standardDeviation: 2 }, mid: { type: 'gaussian', mean: 5, standardDeviation: 2 }, high: [8, 10] } },
      outputs: { y: { a: [0, 5], b: [5, 10] } },
      rules: ['IF x IS low THEN y IS a', 'IF x IS mid THEN y IS b', 'IF x IS high THEN y IS b'],
    };
    const tuning = new Tuning(agent);
    const inputMoves = tuning.moves(['inputs']).filter((move) => move.kind !== 'weight');
    // low's mean is the universe's start: only its width may move; mid may shift and spread; high's 8 may shift
    expect(inputMoves).toEqual([
      { kind: 'spread', side: 'inputs', variable: 'x', set: 'low' },
      { kind: 'shift', side: 'inputs', variable: 'x', set: 'mid' },
      { kind: 'spread', side: 'inputs', variable: 'x', set: 'mid' },
      { kind: 'shift', side: 'inputs', variable: 'x', set: 'high' },
    ]);
    const [min, max] = compileAgent(agent).inputs.x!.range;
    for (const move of inputMoves) {
      for (const delta of [-0.9, -0.3, 0.3, 0.9]) {
        const numbers = tuning.apply(tuning.initial, move, delta);
        if (numbers) expect(compileAgent(tuning.definitionOf(numbers)).inputs.x!.range).toEqual([min, max]);
      }
    }
  });
});
