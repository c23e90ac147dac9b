import type { Dataset } from './dataset.js';
import { POINTS_PER_BLOCK, type Pause } from './slices.js';

/** For each point, its `k` nearest other evaluations by input (the point itself left out). */
export interface Neighbourhoods {
  /** indices into the dataset of the points the metric is estimated at */
  readonly points: Int32Array;
  readonly k: number;
  /** points × k dataset indices, nearest first */
  readonly index: Int32Array;
  /** points × k squared input distances, matching `index` */
  readonly distance2: Float64Array;
}

/**
 * Brute force with a bounded max-heap per point: points × size distance computations. With
 * `among`, neighbours come only from those evaluations (cross-fitting: another fold).
 */
export function nearestNeighbours(data: Dataset, points: Int32Array, k: number, among?: Int32Array): Neighbourhoods {
  const hoods = emptyNeighbourhoods(data, points, k, among);
  const pool = among ?? everyIndex(data.size);
  for (let p = 0; p < points.length; p++) neighboursOf(data, hoods, p, pool);
  return hoods;
}

/** nearestNeighbours a block of points at a time, awaiting `pause` before each block. */
export async function nearestNeighboursInSlices(
  data: Dataset,
  points: Int32Array,
  k: number,
  among: Int32Array | undefined,
  pause: Pause,
): Promise<Neighbourhoods> {
  const hoods = emptyNeighbourhoods(data, points, k, among);
  const pool = among ?? everyIndex(data.size);
  for (let p = 0; p < points.length; p++) {
    if (p % POINTS_PER_BLOCK === 0) await pause();
    neighboursOf(data, hoods, p, pool);
  }
  return hoods;
}

/** Neighbourhoods of `points` to fill: k of them each, or all there are (the point itself left out, wherever it is in the pool). */
function emptyNeighbourhoods(data: Dataset, points: Int32Array, k: number, among: Int32Array | undefined): Neighbourhoods {
  const inPool = among ? new Uint8Array(data.size) : undefined;
  among?.forEach((j) => (inPool![j] = 1));
  const poolHoldsAPoint = !inPool || points.some((point) => inPool[point] === 1);
  const size = Math.min(k, (among ? among.length : data.size) - (poolHoldsAPoint ? 1 : 0));
  return { points, k: size, index: new Int32Array(points.length * size), distance2: new Float64Array(points.length * size) };
}

const everyIndex = (size: number) => Int32Array.from({ length: size }, (_, i) => i);

/**
 * The nearest of `hoods.points[p]` in `pool`, nearest first, into its row of `hoods`.
 * A function of its own, called per point, over an explicit pool, with the distance written out:
 * the engine optimizes it once, whatever the calls (one or in blocks, among a fold or not). A loop
 * inside nearestNeighbours ran 1,000 points among 100,000 in 0.8 s on a first call and 1.7–1.8 s
 * once it had also been called among a fold.
 */
function neighboursOf(data: Dataset, hoods: Neighbourhoods, p: number, pool: Int32Array): void {
  const count = data.inputScale.names.length;
  const { k: size, index, distance2: distances } = hoods;
  const heapIndex = new Int32Array(size);
  const heapDistance = new Float64Array(size);
  const inputs = data.inputs;
  const point = hoods.points[p]!;
  const from = point * count;
  let filled = 0;
  for (let at = 0; at < pool.length; at++) {
    const j = pool[at]!;
    if (j === point) continue;
    let d = 0;
    for (let c = 0, o = j * count; c < count; c++, o++) {
      const x = inputs[from + c]!;
      const y = inputs[o]!;
      // squared, in shares of each range; a missing input (NaN) is a whole range from a present one, none from another missing one
      d += x === x && y === y ? (x - y) * (x - y) : (x === x) !== (y === y) ? 1 : 0;
    }
    if (filled < size) {
      siftUp(heapIndex, heapDistance, filled++, j, d);
    } else if (d < heapDistance[0]!) {
      siftDown(heapIndex, heapDistance, size, j, d);
    }
  }
  // Popping the max-heap yields farthest first; fill from the back so the nearest comes first.
  for (let end = size - 1; end >= 0; end--) {
    index[p * size + end] = heapIndex[0]!;
    distances[p * size + end] = heapDistance[0]!;
    siftDown(heapIndex, heapDistance, end, heapIndex[end]!, heapDistance[end]!);
  }
}

function siftUp(index: Int32Array, distance: Float64Array, at: number, item: number, d: number): void {
  let child = at;
  while (child > 0) {
    const parent = (child - 1) >> 1;
    if (distance[parent]! >= d) break;
    index[child] = index[parent]!;
    distance[child] = distance[parent]!;
    child = parent;
  }
  index[child] = item;
  distance[child] = d;
}

/** Replaces the root with (item, d) in a heap of `length` entries and restores the heap. */
function siftDown(index: Int32Array, distance: Float64Array, length: number, item: number, d: number): void {
  let parent = 0;
  for (;;) {
    let child = 2 * parent + 1;
    if (child >= length) break;
    if (child + 1 < length && distance[child + 1]! > distance[child]!) child++;
    if (distance[child]! <= d) break;
    index[parent] = index[child]!;
    distance[parent] = distance[child]!;
    parent = child;
  }
  index[parent] = item;
  distance[parent] = d;
}
