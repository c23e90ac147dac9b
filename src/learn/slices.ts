/** Yields to whatever waits (requests, in a service worker): the default way learning lets other work run. */
export const nextMacrotask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** How long learning works between two yields unless told otherwise (autopilot asks for 20 ms). */
export const DEFAULT_SLICE_MS = 30;

/** Awaited often inside long work; `force` yields whatever the time. */
export type Pause = (force?: boolean) => Promise<void>;

/**
 * A pause that yields (by `yieldControl`) only once `sliceMs` have passed since it last did: awaited
 * after every small block of work, it cuts the work into slices of about `sliceMs`, however long
 * each step of the work is, without the cost of a yield per block.
 */
export function timeSlices(yieldControl: () => Promise<void>, sliceMs: number): Pause {
  let lastYield = performance.now();
  return async (force) => {
    if (force || performance.now() - lastYield > sliceMs) {
      await yieldControl();
      lastYield = performance.now();
    }
  };
}

/** Points per block between pauses in the learner's loops over points: a few milliseconds of work at most. */
export const POINTS_PER_BLOCK = 32;
