import { distance2, type Dataset } from './dataset.js';

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
  const count = data.inputScale.names.length;
  const pool = among ?? null;
  const poolSize = pool ? pool.length : data.size;
  const size = Math.min(k, pool ? pool.length : data.size - 1);
  const index = new Int32Array(points.length * size);
  const distances = new Float64Array(points.length * size);
  const heapIndex = new Int32Array(size);
  const heapDistance = new Float64Array(size);
  points.forEach((point, p) => {
    let filled = 0;
    for (let at = 0; at < poolSize; at++) {
      const j = pool ? pool[at]! : at;
      if (j === point) continue;
      const d = distance2(data.inputs, point * count, data.inputs, j * count, count);
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
  });
  return { points, k: size, index, distance2: distances };
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
