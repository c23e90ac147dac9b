// The control surface: one output over a grid of two inputs, every other input held at a value,
// computed in the page with the engine's batch path (one call, no requests to the worker). With
// one input to vary it is the output's curve over that input.
import { evaluateBatch, type CompiledAgent } from '../src/engine/index.js';
import type { Inputs } from '../src/engine/types.js';

export interface SurfaceAxis {
  name: string;
  /** the grid's values, evenly spaced from the input's range's start to its end, both included */
  values: number[];
}

export interface Surface {
  output: string;
  x: SurfaceAxis;
  /** absent for a curve over x alone */
  y?: SurfaceAxis;
  /** the output at (x[i], y[j]) is values[j · x.length + i] (at x[i] for a curve); NaN where no rule reaches it */
  values: Float64Array;
  /** the smallest and largest values, NaN left out; undefined when no point has an answer */
  extent?: [number, number];
}

export interface SurfaceRequest {
  output: string;
  /** the input across */
  x: string;
  /** the input up; absent: a curve over x */
  y?: string;
  /** every input's value; those of x and y are replaced by the grid's */
  held: Inputs;
  /** grid points per axis, ends included (≥ 2) */
  points: number;
}

/** `points` evenly spaced values from `range[0]` to `range[1]`, both ends exact. */
export function gridValues(range: readonly [number, number], points: number): number[] {
  const [low, high] = range;
  return Array.from({ length: points }, (_, index) => (index === points - 1 ? high : low + ((high - low) * index) / (points - 1)));
}

/** The grid's axes for a request: x across; y up, absent for a curve. */
export function surfaceAxes(agent: CompiledAgent, request: SurfaceRequest): { x: SurfaceAxis; y?: SurfaceAxis } {
  const axis = (name: string): SurfaceAxis => ({ name, values: gridValues(agent.inputs[name]!.range, request.points) });
  return { x: axis(request.x), ...(request.y === undefined ? {} : { y: axis(request.y) }) };
}

/**
 * The values of the grid's points `from` up to (not including) `to`, counted row after row (point
 * k is at x[k mod columns], y[k div columns]); NaN where no rule reaches the output.
 */
export function surfacePoints(agent: CompiledAgent, request: SurfaceRequest, from: number, to: number): Float64Array {
  const { x, y } = surfaceAxes(agent, request);
  const columns = x.values.length;
  const batch: Inputs[] = [];
  for (let k = from; k < to; k++) {
    batch.push({ ...request.held, [x.name]: x.values[k % columns]!, ...(y ? { [y.name]: y.values[Math.floor(k / columns)]! } : {}) });
  }
  return Float64Array.from(evaluateBatch(agent, batch), (crisp) => crisp[request.output] ?? NaN);
}

/** The smallest and largest of the values, NaN left out; undefined when every one is NaN. */
export function extentOf(values: Float64Array): [number, number] | undefined {
  let low = Infinity;
  let high = -Infinity;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return low <= high ? [low, high] : undefined;
}

/** The whole surface at once. */
export function computeSurface(agent: CompiledAgent, request: SurfaceRequest): Surface {
  const axes = surfaceAxes(agent, request);
  const values = surfacePoints(agent, request, 0, axes.x.values.length * (axes.y?.values.length ?? 1));
  const extent = extentOf(values);
  return { output: request.output, ...axes, values, ...(extent ? { extent } : {}) };
}

/** Perceptually even colours from dark blue (0) through green to yellow (1): viridis at nine stops. */
const stops = [
  [68, 1, 84],
  [71, 45, 123],
  [59, 82, 139],
  [44, 114, 142],
  [33, 145, 140],
  [40, 174, 128],
  [94, 201, 98],
  [173, 220, 48],
  [253, 231, 37],
] as const;

/** The colour of `t` in 0..1 (clamped) as [r, g, b]. */
export function surfaceColour(t: number): [number, number, number] {
  const position = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const index = Math.min(Math.floor(position), stops.length - 2);
  const share = position - index;
  const [from, to] = [stops[index]!, stops[index + 1]!];
  return [0, 1, 2].map((channel) => Math.round(from[channel]! + (to[channel]! - from[channel]!) * share)) as [number, number, number];
}
