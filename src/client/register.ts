// Registration with workbox-window that resolves only once the worker controls the page, so the
// app's first fetch() to the REST interface is answered by fuzzbox rather than the network.
import { Workbox } from 'workbox-window';
import { CLAIM } from '../sw/messages';

export interface RegisterOptions {
  /** The worker's scope; default the directory of its URL. The page must lie inside it. */
  scope?: string;
  /** How long to wait for the worker to control the page, in ms; default 10 000. */
  timeout?: number;
  /** Called when a newer worker is installed and waiting; data is kept across the switch. */
  onUpdate?: (update: WorkerUpdate) => void;
}

export interface WorkerUpdate {
  /** Lets the waiting worker take over; resolves once it controls the page. */
  activate(): Promise<void>;
}

export interface FuzzyWorker {
  readonly registration: ServiceWorkerRegistration;
  /** Asks the server whether the worker script changed; a new one is announced through `onUpdate`. */
  update(): Promise<void>;
}

export class WorkerRegistrationError extends Error {
  override readonly name = 'WorkerRegistrationError';
}

export async function registerFuzzyWorker(url: string | URL, options: RegisterOptions = {}): Promise<FuzzyWorker> {
  const timeout = options.timeout ?? 10_000;
  const container = globalThis.navigator?.serviceWorker;
  if (!container) {
    throw new WorkerRegistrationError(
      'fuzzbox: service workers are not available here; they need a secure context (https:// or ' +
        'http://localhost) and a browser that supports them.',
    );
  }
  const workbox = new Workbox(String(url), options.scope === undefined ? {} : { scope: options.scope });
  workbox.addEventListener('waiting', () => {
    options.onUpdate?.({
      activate: () => {
        const controlled = nextControllerChange(container);
        workbox.messageSkipWaiting();
        return withTimeout(controlled, timeout, 'the updated fuzzbox worker did not take control');
      },
    });
  });

  const registration = await withTimeout(
    workbox.register({ immediate: true }).catch((error: unknown) => {
      throw new WorkerRegistrationError(`fuzzbox: could not register ${String(url)}: ${String(error)}`, { cause: error });
    }),
    timeout,
    'registering the fuzzbox worker did not finish',
  );
  if (!registration) throw new WorkerRegistrationError(`fuzzbox: the browser did not register ${String(url)}`);
  if (!globalThis.location.href.startsWith(registration.scope)) {
    throw new WorkerRegistrationError(
      `fuzzbox: this page (${globalThis.location.href}) lies outside the worker's scope ${registration.scope}, ` +
        'so the worker can never answer its requests; serve the worker from a directory above the page.',
    );
  }
  await withTimeout(untilControlled(container), timeout, 'the fuzzbox worker did not take control of this page');
  return { registration, update: () => workbox.update() };
}

/**
 * First visit: the worker claims the page as it activates. Reload: the page starts controlled.
 * Hard reload: the worker is active but leaves the page alone until asked to claim it.
 */
async function untilControlled(container: ServiceWorkerContainer): Promise<void> {
  if (container.controller) return;
  const controlled = nextControllerChange(container);
  const registration = await container.ready;
  if (!container.controller) registration.active?.postMessage({ type: CLAIM });
  await controlled;
}

function nextControllerChange(container: ServiceWorkerContainer): Promise<void> {
  return new Promise((resolve) => container.addEventListener('controllerchange', () => resolve(), { once: true }));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new WorkerRegistrationError(`fuzzbox: ${what} within ${ms} ms; check the browser console for the worker's errors.`)),
      ms,
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
