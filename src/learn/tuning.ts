import { parseRule, printRule } from '../engine/parse.js';
import { isFallingShoulder, shapeTrapezoid } from '../engine/shape.js';
import type { AgentDefinition, RuleAst, SetDefinition, TermDefinition } from '../engine/types.js';
import { mean } from './statistics.js';

export type Side = 'inputs' | 'outputs';

/** One way the search may change the agent's numbers; `delta` says by how much. */
export type Move =
  /** shift: every free point of the set by delta × the variable's range; spread: the free points' distance from the set's centre by a factor 1 + delta */
  | { readonly kind: 'shift' | 'spread'; readonly side: Side; readonly variable: string; readonly set: string }
  /** a rule's weight plus delta, kept in [0.1, 1]: weakened, never switched off */
  | { readonly kind: 'weight'; readonly rule: number };

/** One number that moved between the agent given and the agent proposed. */
export type Change =
  | {
      readonly kind: 'set';
      readonly side: Side;
      readonly variable: string;
      readonly set: string;
      readonly point: number;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: 'weight'; readonly rule: number; readonly from: number; readonly to: number };

type Sets = Readonly<Record<string, SetDefinition | TermDefinition>>;

/** The sets given as points: what tuning moves (a term named by its kind stays as it is). */
function pointSets(sets: Sets): Record<string, SetDefinition> {
  return Object.fromEntries(Object.entries(sets).filter((entry): entry is [string, SetDefinition] => Array.isArray(entry[1])));
}

/** The numbers of an agent: everything the search may change. */
export interface Numbers {
  readonly inputs: Readonly<Record<string, Sets>>;
  readonly outputs: Readonly<Record<string, Sets>>;
  readonly weights: readonly number[];
}

interface VariableBounds {
  readonly min: number;
  readonly max: number;
  readonly range: readonly [number, number];
  /** the rounding step for proposed points: a ten-thousandth of the range's order of magnitude */
  readonly quantum: number;
  /** set names in ascending order of their centres, as INCREASES/DECREASES pairs them */
  readonly order: readonly string[];
}

/** Where a set is fully true, midway: the order INCREASES/DECREASES pairs sets in. */
function centre(points: SetDefinition, range: readonly [number, number]): number {
  const [, b, c] = shapeTrapezoid(points, range);
  return (b + c) / 2;
}

function boundsOf(sets: Readonly<Record<string, SetDefinition>>): VariableBounds {
  const all = Object.values(sets).flat();
  const min = Math.min(...all);
  const max = Math.max(...all);
  const order = Object.keys(sets).sort((a, b) => centre(sets[a]!, [min, max]) - centre(sets[b]!, [min, max]));
  const magnitude = max > min ? 10 ** Math.floor(Math.log10(max - min)) : 1;
  return { min, max, range: [min, max], quantum: magnitude / 1e4, order };
}

/** Switching a rule off, or shrinking a set to a point, would change what the agent says, not how well. */
const MIN_WEIGHT = 0.1;
const MIN_WIDTH = 0.02;

const roundTo = (value: number, quantum: number): number => Number((Math.round(value / quantum) * quantum).toPrecision(12));

/**
 * What may change and how, for one agent. Every proposal is a valid agent and keeps the agent's
 * meaning: points stay ordered and inside the variable's range, points at the range's ends stay
 * put (so the range itself never changes), slopes keep their direction, sets keep the order of
 * their centres (so "high" stays above "low" and INCREASES pairs the same sets) and at least 2% of
 * the range in width (or their own width, if narrower), weights stay in [0.1, 1] (or at their own
 * weight, if lower).
 */
export class Tuning {
  readonly initial: Numbers;
  readonly #definition: AgentDefinition;
  readonly #rules: readonly RuleAst[];
  readonly #bounds: Record<Side, Record<string, VariableBounds>>;

  constructor(definition: AgentDefinition) {
    this.#definition = definition;
    this.#rules = definition.rules.map(parseRule);
    const boundsOfSide = (variables: AgentDefinition['inputs']) =>
      Object.fromEntries(Object.entries(variables).map(([name, sets]) => [name, boundsOf(pointSets(sets))]));
    this.#bounds = { inputs: boundsOfSide(definition.inputs), outputs: boundsOfSide(definition.outputs) };
    this.initial = { inputs: definition.inputs, outputs: definition.outputs, weights: this.#rules.map((rule) => rule.weight) };
  }

  /** Every move worth trying: each set with a free point, and each rule's weight. */
  moves(sides: readonly Side[]): Move[] {
    const moves: Move[] = [];
    for (const side of sides) {
      for (const [variable, sets] of Object.entries(this.#definition[side])) {
        const bounds = this.#bounds[side][variable]!;
        for (const [set, points] of Object.entries(pointSets(sets))) {
          const free = points.filter((p) => p > bounds.min && p < bounds.max).length;
          if (free >= 1) moves.push({ kind: 'shift', side, variable, set });
          if (free >= 2) moves.push({ kind: 'spread', side, variable, set });
        }
      }
    }
    this.#rules.forEach((_, rule) => moves.push({ kind: 'weight', rule }));
    return moves;
  }

  /** The numbers after `move` by `delta`, or undefined when that changes nothing or breaks a rule above. */
  apply(numbers: Numbers, move: Move, delta: number): Numbers | undefined {
    if (move.kind === 'weight') {
      const from = numbers.weights[move.rule]!;
      const floor = Math.min(MIN_WEIGHT, this.initial.weights[move.rule]!);
      const to = Math.min(1, Math.max(floor, roundTo(from + delta, 1e-3)));
      if (to === from) return undefined;
      return { ...numbers, weights: numbers.weights.map((w, i) => (i === move.rule ? to : w)) };
    }
    const bounds = this.#bounds[move.side][move.variable]!;
    const sets = numbers[move.side][move.variable]!;
    const points = sets[move.set] as SetDefinition;
    const middle = mean(points); // what `spread` scales the free points away from
    const moved = points.map((p) => {
      if (p <= bounds.min || p >= bounds.max) return p;
      const target = move.kind === 'shift' ? p + delta * (bounds.max - bounds.min) : middle + (p - middle) * (1 + delta);
      return Math.min(bounds.max, Math.max(bounds.min, roundTo(target, bounds.quantum)));
    });
    if (moved.every((p, i) => p === points[i])) return undefined;
    if (moved.some((p, i) => i > 0 && p < moved[i - 1]!)) return undefined;
    const width = moved[moved.length - 1]! - moved[0]!;
    const initialPoints = this.initial[move.side][move.variable]![move.set] as SetDefinition;
    const initialWidth = initialPoints[initialPoints.length - 1]! - initialPoints[0]!;
    if (width < Math.min(initialWidth, MIN_WIDTH * (bounds.max - bounds.min))) return undefined;
    if (moved.length === 2 && isFallingShoulder(moved, bounds.range) !== isFallingShoulder(points, bounds.range)) return undefined;
    const changed = { ...sets, [move.set]: moved };
    for (let i = 1; i < bounds.order.length; i++) {
      const lower = this.initial[move.side][move.variable]![bounds.order[i - 1]!] as SetDefinition;
      const upper = this.initial[move.side][move.variable]![bounds.order[i]!] as SetDefinition;
      const wasStrict = centre(lower, bounds.range) < centre(upper, bounds.range);
      const now = centre(changed[bounds.order[i]!] as SetDefinition, bounds.range) - centre(changed[bounds.order[i - 1]!] as SetDefinition, bounds.range);
      if (wasStrict ? now <= 0 : now < 0) return undefined;
    }
    return { ...numbers, [move.side]: { ...numbers[move.side], [move.variable]: changed } };
  }

  /** The agent with these numbers; a rule whose weight did not move keeps its text exactly. */
  definitionOf(numbers: Numbers): AgentDefinition {
    return {
      inputs: numbers.inputs,
      outputs: numbers.outputs,
      rules: this.#definition.rules.map((text, i) => {
        const rule = this.#rules[i]!;
        const weight = numbers.weights[i]!;
        return weight === rule.weight ? text : printRule({ ...rule, weight });
      }),
      ...(this.#definition.operators && { operators: this.#definition.operators }),
    };
  }

  /** Every number that differs between the initial numbers and these. */
  changes(numbers: Numbers): Change[] {
    const changes: Change[] = [];
    for (const side of ['inputs', 'outputs'] as const) {
      for (const [variable, sets] of Object.entries(this.initial[side])) {
        for (const [set, points] of Object.entries(pointSets(sets))) {
          const now = numbers[side][variable]![set] as SetDefinition;
          points.forEach((from, point) => {
            const to = now[point]!;
            if (to !== from) changes.push({ kind: 'set', side, variable, set, point, from, to });
          });
        }
      }
    }
    this.initial.weights.forEach((from, rule) => {
      const to = numbers.weights[rule]!;
      if (to !== from) changes.push({ kind: 'weight', rule, from, to });
    });
    return changes;
  }
}
