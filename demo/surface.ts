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

export function computeSurface(agent: CompiledAgent, request: SurfaceRequest): Surface {
  const axis = (name: string): SurfaceAxis => ({ name, values: gridValues(agent.inputs[name]!.range, request.points) });
  const x = axis(request.x);
  const y = request.y === undefined ? undefined : axis(request.y);
  const rows = y?.values ?? [undefined];
  const batch: Inputs[] = [];
  for (const yValue of rows) {
    for (const xValue of x.values) batch.push({ ...request.held, [x.name]: xValue, ...(y ? { [y.name]: yValue! } : {}) });
  }
  const outputs = evaluateBatch(agent, batch);
  const values = Float64Array.from(outputs, (crisp) => crisp[request.output] ?? NaN);
  let low = Infinity;
  let high = -Infinity;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return { output: request.output, x, ...(y ? { y } : {}), values, ...(low <= high ? { extent: [low, high] as [number, number] } : {}) };
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
