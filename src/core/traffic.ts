// The requests a service is answering, so that its background work (autopilot) runs between them:
// a request waits for at most the slice of background work under way when it came, not for one
// slice per statement it makes (a slice started at each of its database round trips).
import { nextMacrotask } from '../learn/slices.js';

/** Under constant traffic, background work still gets a slice at least this often. */
export const QUIET_MOST_MS = 100;

export class Traffic {
  #inFlight = 0;
  #wakers = new Set<() => void>();

  /** Runs `request`, counted as in flight till it settles. */
  async during<T>(request: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await request();
    } finally {
      if (--this.#inFlight === 0) for (const wake of this.#wakers) wake();
    }
  }

  /**
   * A yield for background work: a turn of the event loop (requests that arrived are read), then,
   * while any request is in flight, a wait until none is, or until QUIET_MOST_MS have passed.
   */
  readonly quiet = async (): Promise<void> => {
    const deadline = performance.now() + QUIET_MOST_MS;
    await nextMacrotask();
    while (this.#inFlight > 0 && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#wakers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, deadline - performance.now());
        this.#wakers.add(wake);
      });
      // a request that arrived while the others ran starts before the next slice
      await nextMacrotask();
    }
  };
}
