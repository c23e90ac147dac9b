// Registration with workbox-window that resolves only once the worker controls the page, so the
// app's first fetch() to the REST interface is answered by fuzzbox rather than the network.
import { Workbox } from 'workbox-window';
import { requestPersistence } from './persistence.js';
import type { SyncEvent } from '../core/replicator.js';
import { CLAIM, INSTALL_FAILED, SKIP_WAITING, type InstallFailure, type WorkerSyncSettings } from '../sw/messages.js';
import { onWorkerSync, workerSync, type WorkerSync } from './sync.js';

export interface RegisterOptions {
  /** The worker's scope; default the directory of its URL. The page must lie inside it. */
  scope?: string;
  /** How long to wait for the worker to control the page, in ms; default 10 000. A failed install rejects at once. */
  timeout?: number;
  /** Called each time a newer worker is installed and waiting, however many a page lives through; data is kept across the switch. */
  onUpdate?: (update: WorkerUpdate) => void;
  /**
   * Also ask the browser to keep the origin's storage (`requestPersistence()`): only a page can,
   * the worker cannot. The answer is `FuzzyWorker.persisted`.
   */
  persist?: boolean;
  /**
   * Sync the worker's data with a fuzzbox server (docs/SYNC.md): `{url, apiKey}`, optionally
   * `interval` and `batchSize`; `null` turns sync off. The worker keeps the settings (a restarted
   * worker syncs on its own); leave it out to keep what the worker has. While the page is open, a
   * round runs each time it comes back online. Rounds are posted on the BroadcastChannel `fuzzbox-sync`.
   * Registration resolves once the worker has the settings.
   */
  sync?: WorkerSyncSettings | null;
  /** Called with each sync round the worker reports (the BroadcastChannel `fuzzbox-sync`). */
  onSync?: (event: SyncEvent) => void;
}

export interface WorkerUpdate {
  /** Lets the waiting worker take over; resolves once it controls the page. */
  activate(): Promise<void>;
}

export interface FuzzyWorker {
  readonly registration: ServiceWorkerRegistration;
  /** Asks the server whether the worker script changed; a new one is announced through `onUpdate`. */
  update(): Promise<void>;
  /** With `persist: true`, whether the browser made the storage persistent; else undefined. */
  readonly persisted: boolean | undefined;
  /** The worker's sync: settings, a round now, the status. */
  readonly sync: WorkerSync;
}

export class WorkerRegistrationError extends Error {
  override readonly name = 'WorkerRegistrationError';
}

export async function registerFuzzyWorker(url: string | URL, options: RegisterOptions = {}): Promise<FuzzyWorker> {
  const timeout = options.timeout ?? 10_000;
  const container = globalThis.navigator?.serviceWorker;
  if (!container) {
    throw new WorkerRegistrationError(
      'fuzzbox: service workers are not available here; they need a secure context (https:// or ' + 'http://localhost) and a browser that supports them.',
    );
  }
  const scriptURL = new URL(url, globalThis.location.href).href;
  // Listening before registering: a worker can fail its install before register() resolves.
  const installFailed = new InstallFailures(scriptURL);
  try {
    return await register(container, url, scriptURL, timeout, installFailed, options);
  } finally {
    installFailed.close();
  }
}

async function register(
  container: ServiceWorkerContainer,
  url: string | URL,
  scriptURL: string,
  timeout: number,
  installFailed: InstallFailures,
  options: RegisterOptions,
): Promise<FuzzyWorker> {
  const workbox = new Workbox(scriptURL, options.scope === undefined ? {} : { scope: options.scope });
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
  // An update failing while a worker of the same URL is active or waiting: that one takes the page.
  const ours = workerAt(scriptURL);
  const failed = installFailed.reported.catch((error: unknown) => {
    if (ours(registration.active) || ours(registration.waiting)) return new Promise<never>(() => {});
    throw error;
  });
  const controlled = untilControlled(container, registration, scriptURL, installFailed).then(() => untilRegistrationShows(registration, container.controller!));
  await withTimeout(Promise.race([controlled, failed]), timeout, 'the fuzzbox worker did not take control of this page');
  const { onUpdate } = options;
  if (onUpdate) announceUpdates(container, registration, timeout, onUpdate);
  const sync = workerSync(() => registration.active, timeout);
  if (options.onSync) onWorkerSync(options.onSync);
  if (options.sync !== undefined) {
    await sync.configure(options.sync);
    if (options.sync) globalThis.addEventListener('online', () => void sync.now().catch(() => undefined));
  }
  const persisted = options.persist ? await requestPersistence() : undefined;
  return { registration, update: () => workbox.update(), persisted, sync };
}

/**
 * Controlled means controlled by the worker at `scriptURL`: an older worker, registered before
 * the app changed the URL (say, added `?basePath=/api/`), would answer with its old options.
 * First visit: the worker claims the page as it activates. Reload: the page starts controlled.
 * Hard reload: the worker is active but leaves the page alone until asked to claim it. Changed
 * URL: the new worker installs and waits behind the old one, and is activated at once, as on a
 * first install, since the page cannot work with the old one.
 */
async function untilControlled(
  container: ServiceWorkerContainer,
  registration: ServiceWorkerRegistration,
  scriptURL: string,
  installFailed: InstallFailures,
): Promise<void> {
  const ours = workerAt(scriptURL);
  while (container.controller?.scriptURL !== scriptURL) {
    const controlled = nextControllerChange(container);
    const active = ours(registration.active);
    const waiting = ours(registration.waiting);
    const installing = ours(registration.installing);
    if (active) active.postMessage({ type: CLAIM });
    else if (waiting) waiting.postMessage({ type: SKIP_WAITING });
    if (active || waiting) {
      await controlled;
    } else {
      await nextChange(registration, installing);
      if (installing?.state === 'redundant') await installFailed.redundant();
    }
  }
}

/**
 * The page's registration object catches up with its worker in tasks of its own: WebKit and
 * Firefox can fire `controllerchange` on a first visit while `registration.active` is still null
 * and the worker that took control still shows as `waiting`. Sync messages go to
 * `registration.active`, and updates are announced from `waiting`, so registration waits until
 * the registration shows the controller active and activated, and nothing else of it.
 */
async function untilRegistrationShows(registration: ServiceWorkerRegistration, controller: ServiceWorker): Promise<void> {
  const shown = () =>
    registration.active === controller && registration.waiting !== controller && registration.installing !== controller && controller.state === 'activated';
  while (!shown()) {
    // the registration's attributes change without an event of their own
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function workerAt(scriptURL: string): (worker: ServiceWorker | null) => ServiceWorker | undefined {
  return (worker) => (worker?.scriptURL === scriptURL ? worker : undefined);
}

/**
 * A worker whose install fails only turns `redundant`; fuzzbox's worker says why on the
 * INSTALL_FAILED channel first (a worker of the app's own may not), in a message that can arrive
 * just after the state change.
 */
class InstallFailures {
  readonly reported: Promise<never>;
  private readonly channel = new BroadcastChannel(INSTALL_FAILED);
  private fail!: (reason: string) => void;

  constructor(private readonly scriptURL: string) {
    this.reported = new Promise<never>((_, reject) => {
      this.fail = (reason) => reject(new WorkerRegistrationError(`fuzzbox: the worker ${scriptURL} failed to install: ${reason}`));
    });
    this.reported.catch(() => {}); // raced later; never an unhandled rejection
    this.channel.onmessage = ({ data }: MessageEvent<InstallFailure>) => {
      if (data?.scriptURL === scriptURL) this.fail(data.reason);
    };
  }

  /** Waits a moment for the reason, then fails without one. */
  async redundant(): Promise<never> {
    const unexplained = new Promise<never>((_, reject) =>
      setTimeout(() => {
        reject(
          new WorkerRegistrationError(
            `fuzzbox: the worker ${this.scriptURL} failed to install (or a worker registered since replaced it); ` +
              "its console in the browser's developer tools says why.",
          ),
        );
      }, 500),
    );
    return Promise.race([this.reported, unexplained]);
  }

  close(): void {
    this.channel.close();
  }
}

/** Until the registration has something new to look at: a worker found, or one changing state. */
function nextChange(registration: ServiceWorkerRegistration, installing: ServiceWorker | undefined): Promise<void> {
  return new Promise((resolve) => {
    registration.addEventListener('updatefound', () => resolve(), { once: true });
    installing?.addEventListener('statechange', () => resolve(), { once: true });
  });
}

/**
 * Every newer worker that installs and waits is announced, however many a page lives through
 * (workbox-window's own `waiting` event stops after the first update found by another page).
 */
function announceUpdates(
  container: ServiceWorkerContainer,
  registration: ServiceWorkerRegistration,
  timeout: number,
  onUpdate: (update: WorkerUpdate) => void,
): void {
  const announced = new WeakSet<ServiceWorker>();
  const announceIfWaiting = (worker: ServiceWorker) => {
    if (worker.state !== 'installed' || registration.waiting !== worker || announced.has(worker)) return;
    announced.add(worker);
    onUpdate({
      activate: () => {
        const controlled = nextControllerChange(container);
        worker.postMessage({ type: SKIP_WAITING });
        return withTimeout(controlled, timeout, 'the updated fuzzbox worker did not take control');
      },
    });
  };
  const watch = (worker: ServiceWorker | null) => {
    if (!worker) return;
    worker.addEventListener('statechange', () => announceIfWaiting(worker));
    announceIfWaiting(worker);
  };
  registration.addEventListener('updatefound', () => watch(registration.installing));
  watch(registration.installing);
  watch(registration.waiting);
}

function nextControllerChange(container: ServiceWorkerContainer): Promise<void> {
  return new Promise((resolve) => container.addEventListener('controllerchange', () => resolve(), { once: true }));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WorkerRegistrationError(`fuzzbox: ${what} within ${ms} ms; check the browser console for the worker's errors.`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
