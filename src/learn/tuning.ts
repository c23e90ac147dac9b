import { centre } from '../engine/compile.js';
import { parseRule, printRule } from '../engine/parse.js';
import { isFallingShoulder } from '../engine/shape.js';
import type { AgentDefinition, RuleAst, SetDefinition, TermDefinition, TermKind, VariableDefinition } from '../engine/types.js';
import { termProblem } from '../engine/validate.js';
import { variableUniverse } from '../engine/variables.js';
import { termParameters, withParameters } from './parameters.js';
import { mean } from './statistics.js';

export type Side = 'inputs' | 'outputs';

/** One way the search may change the agent's numbers; `delta` says by how much. */
export type Move =
  /**
   * shift: every free position of the set (a point, a Gaussian's mean, a constant's value, a linear
   * term's constant …) by delta × the variable's range; spread: the free positions' distance from
   * the middle of the set's positions, and its widths, by a factor 1 + delta (its steepnesses by 1 / (1 + delta))
   */
  | { readonly kind: 'shift' | 'spread'; readonly side: Side; readonly variable: string; readonly set: string }
  /**
   * a linear term's coefficient of `input` plus delta × the output's range / the input's range,
   * its constant moved so that the plane turns about the middle of the input's universe
   */
  | { readonly kind: 'tilt'; readonly side: Side; readonly variable: string; readonly set: string; readonly input: string }
  /** a rule's weight plus delta, kept in [0.1, 1]: weakened, never switched off */
  | { readonly kind: 'weight'; readonly rule: number };

/** A move of one set's numbers. */
type SetMove = Exclude<Move, { kind: 'weight' }>;

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
  | {
      /** a number of a set named by its kind (parameters.ts) */
      readonly kind: 'term';
      readonly side: Side;
      readonly variable: string;
      readonly set: string;
      readonly type: TermKind;
      /** the term's member that moved: a parameter's name, `points` (a discrete's x) or `coefficients` / `constant` (a linear's) */
      readonly parameter: string;
      /** for `coefficients`: the input whose coefficient moved */
      readonly input?: string;
      /** for `points`: the index of the [x, y] whose x moved */
      readonly point?: number;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: 'weight'; readonly rule: number; readonly from: number; readonly to: number };

type Sets = VariableDefinition;

/** The numbers of an agent: everything the search may change. */
export interface Numbers {
  readonly inputs: Readonly<Record<string, Sets>>;
  readonly outputs: Readonly<Record<string, Sets>>;
  readonly weights: readonly number[];
}

interface VariableBounds {
  /** its universe: declared, else min..max of its sets' points (it never changes) */
  readonly min: number;
  readonly max: number;
  readonly range: readonly [number, number];
  readonly declared: boolean;
  /** the rounding step for proposed positions and widths: a ten-thousandth of the range's order of magnitude */
  readonly quantum: number;
  /** set names in ascending order of their centres, as INCREASES/DECREASES pairs them */
  readonly order: readonly string[];
}

/** A ten-thousandth of the order of magnitude of `scale`: how finely a number of that scale is proposed. */
function quantumOf(scale: number): number {
  return scale > 0 && Number.isFinite(scale) ? 10 ** Math.floor(Math.log10(scale)) / 1e4 : 1e-4;
}

/** Switching a rule off, or shrinking a set to a point, would change what the agent says, not how well. */
const MIN_WEIGHT = 0.1;
const MIN_WIDTH = 0.02;

const roundTo = (value: number, quantum: number): number => Number((Math.round(value / quantum) * quantum).toPrecision(12));

/** A set keeps at least 2% of its variable's range in width, or its own width if narrower (and at most the range, or its own if wider). */
function keepsWidth(width: number, initialWidth: number, range: number, widest = Infinity): boolean {
  return width >= Math.min(initialWidth, MIN_WIDTH * range) && width <= Math.max(initialWidth, widest);
}

/** A position moved to `target`, rounded and kept inside the universe; one at or beyond the universe's ends stays put. */
function placed(position: number, target: number, bounds: VariableBounds): number {
  if (!(position > bounds.min && position < bounds.max)) return position;
  return Math.min(bounds.max, Math.max(bounds.min, roundTo(target, bounds.quantum)));
}

/** Whether `values` are in the order `initial` were: each pair as before, below, equal or above. */
function keepsOrder(values: readonly number[], initial: readonly number[]): boolean {
  const byInitial = initial.map((_, i) => i).sort((a, b) => initial[a]! - initial[b]!);
  for (let k = 1; k < byInitial.length; k++) {
    const [a, b] = [byInitial[k - 1]!, byInitial[k]!];
    if (initial[a] === initial[b] ? values[a] !== values[b] : !(values[a]! < values[b]!)) return false;
  }
  return true;
}

/**
 * What may change and how, for one agent. Every proposal is a valid agent (a term's numbers pass the
 * engine's own check, termProblem) and keeps the agent's meaning: positions (points, means, centres,
 * constants' values …) stay inside the variable's universe and in the order they had within their
 * set, those at or beyond the universe's ends stay put (so the universe itself never changes),
 * slopes and sigmoids keep their direction, sets keep the order of their centres (so "high" stays
 * above "low" and INCREASES pairs the same sets; linear terms, which have no centre, only where
 * INCREASES/DECREASES pairs them) and at least 2% of the range in width (or their own width, if
 * narrower), widths and 1 / steepness at most the range (or their own, if wider), weights stay in
 * [0.1, 1] (or at their own weight, if lower). What each kind tunes: parameters.ts.
 */
export class Tuning {
  readonly initial: Numbers;
  readonly #definition: AgentDefinition;
  readonly #rules: readonly RuleAst[];
  readonly #bounds: Record<Side, Record<string, VariableBounds>>;

  constructor(definition: AgentDefinition) {
    this.#definition = definition;
    this.#rules = definition.rules.map(parseRule);
    const paired = new Set(this.#rules.flatMap((rule) => (rule.type === 'if' ? [] : [`inputs ${rule.input}`, `outputs ${rule.output}`])));
    const ranges = definition.operators?.ranges;
    const boundsOfSide = (side: Side) =>
      Object.fromEntries(
        Object.entries(definition[side]).map(([name, sets]) => {
          const declared = ranges && Object.hasOwn(ranges, name) ? ranges[name] : undefined;
          const range = variableUniverse(sets, declared);
          const [min, max] = range;
          const ordered = Object.keys(sets).filter((set) => paired.has(`${side} ${name}`) || (sets[set] as TermDefinition).type !== 'linear');
          const order = ordered.sort((a, b) => centre(sets[a]!, range) - centre(sets[b]!, range));
          return [name, { min, max, range, declared: declared !== undefined, quantum: quantumOf(max - min), order }];
        }),
      );
    this.#bounds = { inputs: boundsOfSide('inputs'), outputs: boundsOfSide('outputs') };
    this.initial = { inputs: definition.inputs, outputs: definition.outputs, weights: this.#rules.map((rule) => rule.weight) };
  }

  /** Every move worth trying: each set with a free position or a width, each linear coefficient, and each rule's weight. */
  moves(sides: readonly Side[]): Move[] {
    const moves: Move[] = [];
    for (const side of sides) {
      for (const [variable, sets] of Object.entries(this.#definition[side])) {
        const bounds = this.#bounds[side][variable]!;
        // a variable without a finite universe (linear terms only, none declared) has no scale to step by
        if (!(bounds.max > bounds.min && Number.isFinite(bounds.max - bounds.min))) continue;
        const free = (value: number) => value > bounds.min && value < bounds.max;
        for (const [set, definition] of Object.entries(sets)) {
          if (Array.isArray(definition)) {
            const count = (definition as SetDefinition).filter(free).length;
            if (count >= 1) moves.push({ kind: 'shift', side, variable, set });
            if (count >= 2) moves.push({ kind: 'spread', side, variable, set });
            continue;
          }
          const parameters = termParameters(definition as TermDefinition);
          const positions = parameters.filter((p) => p.role === 'position' && free(p.value)).length;
          if (positions >= 1 || parameters.some((p) => p.role === 'intercept')) moves.push({ kind: 'shift', side, variable, set });
          if (positions >= 2 || parameters.some((p) => p.role === 'width' || p.role === 'steepness')) moves.push({ kind: 'spread', side, variable, set });
          for (const { input } of parameters.filter((p) => p.role === 'coefficient')) {
            const scale = this.#bounds.inputs[input!];
            if (scale && scale.max > scale.min && Number.isFinite(scale.max - scale.min)) moves.push({ kind: 'tilt', side, variable, set, input: input! });
          }
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
    const set = sets[move.set]!;
    const initial = this.initial[move.side][move.variable]![move.set]!;
    const moved = Array.isArray(set)
      ? this.#movePoints(set as SetDefinition, initial as SetDefinition, move, delta, bounds)
      : this.#moveTerm(set as TermDefinition, initial as TermDefinition, move, delta, bounds);
    if (!moved) return undefined;
    const changed: Sets = { ...sets, [move.set]: moved };
    const initialSets = this.initial[move.side][move.variable]!;
    for (let i = 1; i < bounds.order.length; i++) {
      const [lower, upper] = [bounds.order[i - 1]!, bounds.order[i]!];
      const wasStrict = centre(initialSets[lower]!, bounds.range) < centre(initialSets[upper]!, bounds.range);
      const now = centre(changed[upper]!, bounds.range) - centre(changed[lower]!, bounds.range);
      if (wasStrict ? now <= 0 : now < 0) return undefined;
    }
    if (!bounds.declared) {
      const [min, max] = variableUniverse(changed);
      if (min !== bounds.min || max !== bounds.max) return undefined;
    }
    return { ...numbers, [move.side]: { ...numbers[move.side], [move.variable]: changed } };
  }

  /** An array's free points moved: ordered, inside the range, wide enough, a slope falling or rising as before. */
  #movePoints(points: SetDefinition, initial: SetDefinition, move: SetMove, delta: number, bounds: VariableBounds): SetDefinition | undefined {
    const middle = mean(points); // what `spread` scales the free points away from
    const moved = points.map((p) => {
      if (move.kind === 'tilt') return p;
      return placed(p, move.kind === 'shift' ? p + delta * (bounds.max - bounds.min) : middle + (p - middle) * (1 + delta), bounds);
    });
    if (moved.every((p, i) => p === points[i])) return undefined;
    if (moved.some((p, i) => i > 0 && p < moved[i - 1]!)) return undefined;
    if (!keepsWidth(moved[moved.length - 1]! - moved[0]!, initial[initial.length - 1]! - initial[0]!, bounds.max - bounds.min)) return undefined;
    if (moved.length === 2 && isFallingShoulder(moved, bounds.range) !== isFallingShoulder(points, bounds.range)) return undefined;
    return moved;
  }

  /** A term's numbers moved by their roles (parameters.ts), or undefined when the term would be invalid or mean something else. */
  #moveTerm(term: TermDefinition, initialTerm: TermDefinition, move: SetMove, delta: number, bounds: VariableBounds): TermDefinition | undefined {
    const parameters = termParameters(term);
    const initial = termParameters(initialTerm).map((p) => p.value);
    const range = bounds.max - bounds.min;
    const factor = 1 + delta;
    if (move.kind === 'spread' && !(factor > 0)) return undefined;
    const positions = parameters.flatMap((p, i) => (p.role === 'position' ? [i] : []));
    const middle = mean(positions.map((i) => parameters[i]!.value));
    const values = parameters.map(({ role, value }) => {
      if (move.kind === 'shift') {
        if (role === 'intercept') return roundTo(value + delta * range, bounds.quantum);
        return role === 'position' ? placed(value, value + delta * range, bounds) : value;
      }
      if (move.kind === 'spread') {
        if (role === 'width') return roundTo(value * factor, bounds.quantum);
        if (role === 'steepness') return roundTo(value / factor, quantumOf(1 / range));
        return role === 'position' ? placed(value, middle + (value - middle) * factor, bounds) : value;
      }
      return value;
    });
    if (move.kind === 'tilt') {
      const { min, max } = this.#bounds.inputs[move.input]!;
      const at = parameters.findIndex(({ role, input }) => role === 'coefficient' && input === move.input);
      const last = values.length - 1; // a linear term's constant
      const scale = range / (max - min);
      values[at] = roundTo(parameters[at]!.value + delta * scale, quantumOf(scale));
      values[last] = roundTo(values[last]! - (values[at]! - parameters[at]!.value) * (min + (max - min) / 2), bounds.quantum);
    }
    if (values.every((value, i) => value === parameters[i]!.value)) return undefined;
    const kept = parameters.every(({ role }, i) => {
      const [value, was] = [values[i]!, initial[i]!];
      if (role === 'width') return keepsWidth(value, was, range, range);
      if (role === 'steepness') return Math.sign(value) === Math.sign(was) && keepsWidth(1 / Math.abs(value), 1 / Math.abs(was), range, range);
      return Number.isFinite(value);
    });
    if (!kept) return undefined;
    const [now, was] = [positions.map((i) => values[i]!), positions.map((i) => initial[i]!)];
    if (!keepsOrder(now, was)) return undefined;
    if (positions.length >= 2 && !keepsWidth(Math.max(...now) - Math.min(...now), Math.max(...was) - Math.min(...was), range)) return undefined;
    const moved = withParameters(term, values);
    return termProblem(moved, move.side === 'outputs', Object.keys(this.#definition.inputs)) === undefined ? moved : undefined;
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
        for (const [set, definition] of Object.entries(sets)) {
          const now = numbers[side][variable]![set]!;
          if (Array.isArray(definition)) {
            (definition as SetDefinition).forEach((from, point) => {
              const to = (now as SetDefinition)[point]!;
              if (to !== from) changes.push({ kind: 'set', side, variable, set, point, from, to });
            });
            continue;
          }
          const term = definition as TermDefinition;
          const after = termParameters(now as TermDefinition);
          termParameters(term).forEach(({ name, value: from, input, point }, i) => {
            const to = after[i]!.value;
            if (to === from) return;
            const which = input !== undefined ? { input } : point !== undefined ? { point } : {};
            changes.push({ kind: 'term', side, variable, set, type: term.type, parameter: name, ...which, from, to });
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

/** Which number moved, in words: `price: set "high" point 1`, `service: gaussian "poor" mean`, `tip: linear "cheap" coefficient of food`, `rule 3: weight` (points and rules counted from 1). */
export function changedNumber(change: Change): string {
  if (change.kind === 'weight') return `rule ${change.rule + 1}: weight`;
  if (change.kind === 'set') return `${change.variable}: set "${change.set}" point ${change.point + 1}`;
  const member =
    change.input !== undefined ? `coefficient of ${change.input}` : change.point !== undefined ? `x of point ${change.point + 1}` : change.parameter;
  return `${change.variable}: ${change.type} "${change.set}" ${member}`;
}

/** What moved and how far, in words: `service: gaussian "poor" mean 0 → 1.2` (`show` formats the numbers). */
export function describeChange(change: Change, show: (value: number) => string = String): string {
  return `${changedNumber(change)} ${show(change.from)} → ${show(change.to)}`;
}

/** The most changes a version's evidence lists in words: a few kilobytes, far below what evidence may hold. */
const MOST_CHANGES_IN_WORDS = 50;

/** Each change in words (describeChange), the first 50 of them, and how many more when there are more: what a version's evidence keeps. */
export function changesInWords(changes: readonly Change[]): string[] {
  const words = changes.slice(0, MOST_CHANGES_IN_WORDS).map((change) => describeChange(change));
  return changes.length > MOST_CHANGES_IN_WORDS ? [...words, `and ${changes.length - MOST_CHANGES_IN_WORDS} more`] : words;
}
