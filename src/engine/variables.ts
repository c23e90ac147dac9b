// Variables as the compiled agent indexes them: every set of every input (and of every output) gets
// one flat index, in definition order, which every stage's layout refers to.

import type { SetDefinition, VariableDefinition, VariableSummary } from './types.js';

/** A record built with defined properties, so that a name such as "__proto__" stays an ordinary key. */
export function record<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** Sets `key` as an own property even when it is "__proto__". */
export function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** min..max over all points of all the sets (with loops: spreading many points into Math.min overflows the stack). */
export function range(sets: VariableDefinition): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const points of Object.values(sets)) {
    for (const point of points) {
      if (point < min) min = point;
      if (point > max) max = point;
    }
  }
  return [min, max];
}

export function summarize(variables: Readonly<Record<string, VariableDefinition>>): Record<string, VariableSummary> {
  return record(Object.entries(variables).map(([name, sets]) => [name, { range: range(sets), sets: Object.keys(sets) }] as const));
}

/** The flat set indices of one side (inputs or outputs). */
export interface IndexedVariables {
  readonly names: readonly string[];
  /** variable v owns sets start[v] .. start[v + 1] − 1 */
  readonly start: Int32Array;
  readonly setNames: readonly string[];
  /** per set: its points and its variable's range */
  readonly points: readonly SetDefinition[];
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  /** variable name → set name → flat set index */
  readonly index: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Flat indices of every set of every variable, in definition order. */
export function indexVariables(variables: Readonly<Record<string, VariableDefinition>>): IndexedVariables {
  const names = Object.keys(variables);
  const start = new Int32Array(names.length + 1);
  const setNames: string[] = [];
  const points: SetDefinition[] = [];
  const ranges: Array<[number, number]> = [];
  const index = new Map<string, Map<string, number>>();
  names.forEach((name, i) => {
    start[i] = setNames.length;
    const sets = variables[name]!;
    const variableRange = range(sets);
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
  return { names, start, setNames, points, ranges, index };
}
