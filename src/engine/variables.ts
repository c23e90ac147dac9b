// Variables as the compiled agent indexes them: every set of every input (and of every output) gets
// one flat index, in definition order, which every stage's layout refers to.

import { compileTerm, termBreakpoints, termTrapezoid } from './terms.js';
import type { SetDefinition, TermDefinition, VariableDefinition, VariableSummary } from './types.js';

/** A record built with defined properties, so that a name such as "__proto__" stays an ordinary key. */
export function record<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** Sets `key` as an own property even when it is "__proto__". */
export function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A set given as fuzzy.ai's array of points. */
export function isPoints(set: SetDefinition | TermDefinition): set is SetDefinition {
  return Array.isArray(set);
}

/** The finite x a set is drawn between: its points, or its kind's breakpoints (a constant's value; none for linear and function). */
function setExtent(set: SetDefinition | TermDefinition): readonly number[] {
  if (isPoints(set)) return set;
  if (set.type === 'constant') return [set.value];
  if (set.type === 'linear' || set.type === 'function') return [];
  return termBreakpoints(compileTerm(set, termTrapezoid(set)));
}

/**
 * A variable's universe: the declared range, else min..max over all points of all its sets and
 * the kinds' breakpoints (with loops: spreading many points into Math.min overflows the stack).
 */
export function variableUniverse(sets: VariableDefinition, declared?: readonly [number, number]): [number, number] {
  if (declared) return [declared[0], declared[1]];
  let min = Infinity;
  let max = -Infinity;
  for (const set of Object.values(sets)) {
    for (const point of setExtent(set)) {
      if (point < min) min = point;
      if (point > max) max = point;
    }
  }
  return [min, max];
}

/** min..max over all points of all the sets: the universe of a variable without a declared range. */
export function range(sets: VariableDefinition): [number, number] {
  return variableUniverse(sets);
}

export function summarize(
  variables: Readonly<Record<string, VariableDefinition>>,
  ranges?: Readonly<Record<string, readonly [number, number]>>,
): Record<string, VariableSummary> {
  return record(Object.entries(variables).map(([name, sets]) => [name, { range: variableUniverse(sets, ranges?.[name]), sets: Object.keys(sets) }] as const));
}

/** The flat set indices of one side (inputs or outputs). */
export interface IndexedVariables {
  readonly names: readonly string[];
  /** variable v owns sets start[v] .. start[v + 1] − 1 */
  readonly start: Int32Array;
  readonly setNames: readonly string[];
  /** per set: its definition and its variable's universe */
  readonly points: ReadonlyArray<SetDefinition | TermDefinition>;
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  /** per variable: its universe */
  readonly universes: ReadonlyArray<readonly [number, number]>;
  /** variable name → set name → flat set index */
  readonly index: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Flat indices of every set of every variable, in definition order. */
export function indexVariables(
  variables: Readonly<Record<string, VariableDefinition>>,
  declared?: Readonly<Record<string, readonly [number, number]>>,
): IndexedVariables {
  const names = Object.keys(variables);
  const start = new Int32Array(names.length + 1);
  const setNames: string[] = [];
  const points: Array<SetDefinition | TermDefinition> = [];
  const ranges: Array<[number, number]> = [];
  const universes: Array<[number, number]> = [];
  const index = new Map<string, Map<string, number>>();
  names.forEach((name, i) => {
    start[i] = setNames.length;
    const sets = variables[name]!;
    const variableRange = variableUniverse(sets, declared && Object.hasOwn(declared, name) ? declared[name] : undefined);
    universes.push(variableRange);
    const byName = new Map<string, number>();
    for (const [setName, setPoints] of Object.entries(sets)) {
      byName.set(setName, setNames.length);
      setNames.push(setName);
      points.push(setPoints);
      ranges.push(variableRange);
    }
    index.set(name, byName);
  });
  start[names.length] = setNames.length;
  return { names, start, setNames, points, ranges, universes, index };
}
