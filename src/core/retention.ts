import { retentionPolicySchema, type RetentionPolicy } from '../schema/retention.js';
import type { FuzzboxStore } from '../store/store.js';

/** At most one sweep an hour: a sweep reads every log once. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** The policy, checked once when the service is made: a typo should fail at start, not silently keep everything. */
export function checkRetention(policy: RetentionPolicy): RetentionPolicy {
  const parsed = retentionPolicySchema.safeParse(policy);
  if (!parsed.success) throw new TypeError(`fuzzbox: invalid retention option: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  return parsed.data;
}

/**
 * Applies the retention policy in the background: a request starts a sweep when none ran in the
 * last hour (a service worker lives only while it has requests, so a timer would not do), and
 * the sweep works in small transactions beside the requests, never in their path.
 */
export class RetentionSweeper {
  readonly #store: FuzzboxStore;
  readonly #policy: RetentionPolicy;
  #lastStart = -Infinity;
  #running: Promise<number> | undefined;

  constructor(store: FuzzboxStore, policy: RetentionPolicy) {
    this.#store = store;
    this.#policy = policy;
  }

  /** Starts a sweep unless one is running or ran within the interval; never waits for it. */
  poke(): void {
    if (this.#running || Date.now() - this.#lastStart < RETENTION_INTERVAL_MS) return;
    this.sweep().catch((error: unknown) => console.error('fuzzbox: retention sweep failed; retried after the interval', error));
  }

  /** Settles once no sweep is running, so the store can close under none. */
  async idle(): Promise<void> {
    await this.#running?.catch(() => undefined);
  }

  /** Runs a sweep now, or joins the one running; resolves to how many logs it dropped. */
  sweep(): Promise<number> {
    this.#lastStart = Date.now();
    this.#running ??= this.#store.applyRetention(this.#policy, this.#lastStart).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}
