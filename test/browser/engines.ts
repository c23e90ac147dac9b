// The three engines Debian packages, behind one small interface, so one browser test runs in each:
// Chromium through playwright-core (CDP), Firefox ESR through puppeteer-core (WebDriver BiDi;
// playwright-core cannot drive ESR) and WebKitGTK through WebKitWebDriver (plain W3C WebDriver
// over HTTP, a client of its own below) with its MiniBrowser on an Xvfb display. Only what the
// cross-engine tests need: open pages, run a function in a page, size the viewport, restart on a
// profile where the engine keeps one. Tests that need one engine's own protocol (CDP) use
// playwright-core directly through chromium.ts.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumArgs, chromiumPath } from './harness.js';

export type EngineName = 'chromium' | 'firefox' | 'webkit';

export interface EnginePage {
  /** Loads `url` and waits for its load event. */
  goto(url: string): Promise<void>;
  /** Runs `fn(arg)` in the page (its source is sent, so it sees only the page); resolves to its JSON result. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** Polls `fn(arg)` in the page until it is true; rejects after `timeout` ms. */
  waitFor<A = undefined>(fn: (arg: A) => boolean, arg?: A, timeout?: number): Promise<void>;
  /** The size of the page's viewport (CSS pixels), window chrome aside. */
  setViewport(width: number, height: number): Promise<void>;
  close(): Promise<void>;
}

/** One running browser on one storage profile: its pages share an origin's storage and workers. */
export interface EngineSession {
  readonly engine: EngineName;
  newPage(): Promise<EnginePage>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /**
   * Every origin's storage limit, in bytes: only Firefox takes one at launch (a pref); Chromium's
   * is lowered per origin through DevTools instead, and WebKitWebDriver offers no way to lower it.
   */
  storageLimit?: number;
}

export interface Engine {
  readonly name: EngineName;
  /** The engine's version, for reports. */
  readonly label: string;
  /**
   * Whether a session can be started on a profile folder that outlives it. WebKitWebDriver's
   * automation sessions always use an ephemeral data store, so WebKit's storage cannot be shown
   * to survive a restart here.
   */
  readonly persistentProfiles: boolean;
  /** A browser on a fresh profile, or on `profile` (a folder) when the engine keeps profiles. */
  launch(profile?: string, options?: LaunchOptions): Promise<EngineSession>;
  /**
   * The browser itself showing `url` on a new profile in a temporary folder, with no automation
   * protocol attached (nothing a debugger charges for): for benchmarks whose page reports on its own.
   */
  open(url: string): Promise<{ close(): Promise<void> }>;
  /** The browser's own version string. */
  version(): string;
}

/** What `fetchInPage` gives back: the status, the `X-Evaluation-ID` header, the parsed body (text for NDJSON). */
export interface PageReply {
  status: number;
  evaluationID: string | null;
  body: any;
}

/** A fetch() from the page, as any app sends it: JSON in (a string goes as NDJSON), JSON or text out. */
export function fetchInPage(page: Pick<EnginePage, 'evaluate'>, method: string, path: string, body?: unknown, key?: string): Promise<PageReply> {
  return page.evaluate(
    async ({ method, path, body, key }) => {
      const headers: Record<string, string> = {};
      if (key) headers.Authorization = `Bearer ${key}`;
      if (body !== undefined) headers['Content-Type'] = typeof body === 'string' ? 'application/x-ndjson' : 'application/json';
      const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
      const type = response.headers.get('Content-Type') ?? '';
      return {
        status: response.status,
        evaluationID: response.headers.get('X-Evaluation-ID'),
        body: type.startsWith('application/json') ? await response.json() : await response.text(),
      };
    },
    { method, path, body, key },
  );
}

/** Starts `command` in a process group of its own on a new temporary profile folder; close() ends the group and removes the folder. */
function openDetached(command: string, args: (profile: string) => string[], env: (profile: string) => NodeJS.ProcessEnv = () => ({})) {
  const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-browser-'));
  const child = spawnGroup(command, args(profile), { ...process.env, ...env(profile) });
  return Promise.resolve({
    close: async () => {
      await endGroup(child);
      rmSync(profile, { recursive: true, force: true });
    },
  });
}

const versionOf = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

const firefoxPath = () => process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
const webkitDriverPath = () => process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
const miniBrowserPath = () => process.env.WEBKIT_BROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

function required(path: string, what: string): string {
  if (!existsSync(path)) {
    throw new Error(`${what} is missing at ${path}: run \`node scripts/setup.mjs --browser\` (installs Debian's packages with apt-get).`);
  }
  return path;
}

/** Polls `check` every 50 ms until it is true. */
async function poll(check: () => Promise<boolean>, timeout: number, what: string): Promise<void> {
  const until = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const waitFor =
  (page: Pick<EnginePage, 'evaluate'>) =>
  <A>(fn: (arg: A) => boolean, arg?: A, timeout = 10_000) =>
    poll(() => page.evaluate(fn, arg as A), timeout, fn.toString());

const chromiumEngine: Engine = {
  name: 'chromium',
  label: 'Chromium',
  persistentProfiles: true,
  async launch(profile, { storageLimit } = {}) {
    if (storageLimit) throw new Error("Chromium's storage limit is lowered per origin through DevTools (Storage.overrideQuotaForOrigin), not at launch");
    const options = { executablePath: chromiumPath(), headless: true, args: chromiumArgs };
    const context = profile ? await chromium.launchPersistentContext(profile, options) : await (await chromium.launch(options)).newContext();
    return {
      engine: 'chromium',
      async newPage() {
        const page = await context.newPage();
        const enginePage: EnginePage = {
          goto: async (url) => void (await page.goto(url)),
          evaluate: (fn, arg) => page.evaluate(fn as never, arg) as never,
          waitFor: (fn, arg, timeout = 10_000) => page.waitForFunction(fn as never, arg, { timeout }).then(() => undefined),
          setViewport: (width, height) => page.setViewportSize({ width, height }),
          close: () => page.close(),
        };
        return enginePage;
      },
      close: async () => {
        const browser = context.browser();
        await context.close();
        await browser?.close();
      },
    };
  },
  open: (url) => openDetached(chromiumPath(), (profile) => [...chromiumArgs, '--headless', `--user-data-dir=${profile}`, url]),
  version: () => versionOf(chromiumPath(), ['--version']),
};

const firefoxEngine: Engine = {
  name: 'firefox',
  label: 'Firefox ESR',
  persistentProfiles: true,
  async launch(profile, options = {}) {
    const { default: puppeteer } = await import('puppeteer-core');
    const browser = await puppeteer.launch({
      browser: 'firefox',
      // the pref counts KiB
      ...(options.storageLimit ? { extraPrefsFirefox: { 'dom.quotaManager.temporaryStorage.fixedLimit': Math.floor(options.storageLimit / 1024) } } : {}),
      executablePath: required(firefoxPath(), 'Firefox ESR'),
      headless: true,
      userDataDir: profile ?? mkdtempSync(join(tmpdir(), 'fuzzbox-firefox-')),
      defaultViewport: null,
    });
    return {
      engine: 'firefox',
      async newPage() {
        const page = await browser.newPage();
        const enginePage: EnginePage = {
          goto: async (url) => void (await page.goto(url, { waitUntil: 'load' })),
          evaluate: (fn, arg) => page.evaluate(fn as never, arg) as never,
          waitFor: (fn, arg, timeout = 10_000) => page.waitForFunction(fn as never, { timeout, polling: 50 }, arg).then(() => undefined),
          setViewport: (width, height) => page.setViewport({ width, height }),
          close: () => page.close(),
        };
        return enginePage;
      },
      close: () => browser.close(),
    };
  },
  open: (url) =>
    openDetached(required(firefoxPath(), 'Firefox ESR'), (profile) => {
      // no first-run pages, update checks or telemetry pings beside the page measured
      writeFileSync(
        join(profile, 'user.js'),
        [
          'browser.shell.checkDefaultBrowser',
          'browser.aboutwelcome.enabled',
          'datareporting.policy.dataSubmissionEnabled',
          'toolkit.telemetry.enabled',
          'app.update.auto',
        ]
          .map((pref) => `user_pref("${pref}", false);`)
          .concat('user_pref("browser.startup.homepage_override.mstone", "ignore");')
          .join('\n'),
      );
      return ['--headless', '--no-remote', '--profile', profile, url];
    }),
  version: () => versionOf(firefoxPath(), ['--version']),
};

/** A free TCP port on 127.0.0.1, for a driver that cannot be told to pick one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Process groups started here and not ended yet: ended when this process exits, even when a test crashed it. */
const groups = new Set<number>();
process.once('exit', () => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** `spawn` in a process group of its own, ended with this process at the latest. */
function spawnGroup(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(command, args, { detached: true, stdio: 'ignore', env });
  groups.add(child.pid!);
  child.once('exit', () => groups.delete(child.pid!));
  return child;
}

/** Ends a process started detached, and its children (xvfb-run's Xvfb and driver, the driver's browser). */
function endGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return Promise.resolve();
  }
  const killed = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 3_000);
  return exited.finally(() => clearTimeout(killed));
}

/** A W3C WebDriver session over HTTP: the few commands the tests use. */
class WebDriverSession {
  /** Commands run one at a time: WebDriver has one current window per session. */
  private queue: Promise<unknown> = Promise.resolve();
  private current: string | undefined;

  constructor(
    private readonly base: string,
    readonly id: string,
  ) {}

  static async start(base: string, capabilities: object): Promise<WebDriverSession> {
    const { sessionId } = await command<{ sessionId: string }>(base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } });
    return new WebDriverSession(base, sessionId);
  }

  /** Runs `commands` with `window` current, after every command queued before. */
  inWindow<T>(window: string, commands: () => Promise<T>): Promise<T> {
    const run = async () => {
      if (this.current !== window) {
        await this.send('POST', '/window', { handle: window });
        this.current = window;
      }
      return commands();
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  send<T>(method: string, path: string, body?: unknown): Promise<T> {
    return command<T>(this.base, method, `/session/${this.id}${path}`, body);
  }

  async newWindow(): Promise<string> {
    const run = async () => {
      // a window is opened from the current one, which must still exist
      if (this.current === undefined) {
        const [open] = await this.send<string[]>('GET', '/window/handles');
        await this.send('POST', '/window', { handle: open });
        this.current = open;
      }
      return (await this.send<{ handle: string }>('POST', '/window/new', { type: 'tab' })).handle;
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  forget(window: string): void {
    if (this.current === window) this.current = undefined;
  }
}

async function command<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as { value: T & { error?: string; message?: string } };
  if (!response.ok) throw new Error(`WebDriver ${method} ${path}: ${answer.value.error}: ${answer.value.message}`);
  return answer.value;
}

/**
 * The page's script for WebDriver's asynchronous execute: the function's source, called with its
 * argument, settling the command with `{value}` or `{error}` (WebDriver itself would report a
 * rejected promise only as a generic JavaScript error).
 */
function asyncScript(fn: (arg: never) => unknown, arg: unknown): string {
  return (
    'const done = arguments[arguments.length - 1];\n' +
    `Promise.resolve().then(() => (${fn.toString()})(${arg === undefined ? '' : JSON.stringify(arg)}))` +
    '.then((value) => done({ value: value === undefined ? null : value }), ' +
    '(error) => done({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }));'
  );
}

const webkitEngine: Engine = {
  name: 'webkit',
  label: 'WebKitGTK',
  persistentProfiles: false,
  async launch(profile, { storageLimit } = {}) {
    if (storageLimit) throw new Error("WebKitWebDriver offers no way to lower WebKit's storage limit");
    if (profile) throw new Error('WebKitWebDriver sessions are ephemeral: WebKit cannot be started on a kept profile here');
    const driverPath = required(webkitDriverPath(), "WebKitGTK's WebDriver (webkit2gtk-driver)");
    const binary = required(miniBrowserPath(), "WebKitGTK's MiniBrowser (webkit2gtk-driver)");
    required('/usr/bin/xvfb-run', 'xvfb-run (xvfb)');
    const port = await freePort();
    // its own X display (-a picks a free one), its own process group so close() ends all of it
    const driver = spawnGroup('/usr/bin/xvfb-run', ['-a', '-s', '-screen 0 1920x1200x24', driverPath, `--port=${port}`]);
    const base = `http://127.0.0.1:${port}`;
    try {
      await poll(async () => (await fetch(`${base}/status`).catch(() => undefined))?.ok === true, 20_000, 'WebKitWebDriver to listen');
      const session = await WebDriverSession.start(base, {
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary, args: ['--automation'] },
      });
      await session.send('POST', '/timeouts', { script: 120_000, pageLoad: 60_000 });
      // the window the session starts with stays open and blank: closing a session's last window ends it
      return {
        engine: 'webkit',
        async newPage() {
          const window = await session.newWindow();
          const inPage = <T>(commands: () => Promise<T>) => session.inWindow(window, commands);
          const enginePage: EnginePage = {
            goto: (url) => inPage(() => session.send('POST', '/url', { url })).then(() => undefined),
            evaluate: async (fn, arg) => {
              const script = asyncScript(fn as never, arg);
              const result = await inPage(() => session.send<{ value?: unknown; error?: string }>('POST', '/execute/async', { script, args: [] }));
              if (result.error !== undefined) throw new Error(result.error);
              return result.value as never;
            },
            waitFor: (fn, arg, timeout) => waitFor(enginePage)(fn, arg, timeout),
            setViewport: async (width, height) => {
              // WebDriver sizes the window; the viewport is what is left inside its chrome
              const outer = () => inPage(() => session.send<{ width: number; height: number }>('GET', '/window/rect'));
              const chrome = await enginePage.evaluate(() => ({ width: outerWidth - innerWidth, height: outerHeight - innerHeight }));
              await inPage(() => session.send('POST', '/window/rect', { width: width + chrome.width, height: height + chrome.height }));
              await outer();
            },
            close: async () => {
              await inPage(() => session.send('DELETE', '/window'));
              session.forget(window);
            },
          };
          return enginePage;
        },
        close: async () => {
          await session.send('DELETE', '').catch(() => undefined);
          await endGroup(driver);
        },
      };
    } catch (error) {
      await endGroup(driver);
      throw error;
    }
  },
  // MiniBrowser keeps its data under the XDG folders: a temporary profile, on disk as a user's would be
  open: (url) =>
    openDetached(
      '/usr/bin/xvfb-run',
      () => ['-a', '-s', '-screen 0 1280x1024x24', required(miniBrowserPath(), "WebKitGTK's MiniBrowser (webkit2gtk-driver)"), url],
      (profile) => ({ XDG_DATA_HOME: join(profile, 'data'), XDG_CACHE_HOME: join(profile, 'cache'), XDG_CONFIG_HOME: join(profile, 'config') }),
    ),
  version: () => `WebKitGTK ${versionOf('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'])}`,
};

export const engines: readonly Engine[] = [chromiumEngine, firefoxEngine, webkitEngine];

/** The engines named in FUZZBOX_ENGINES (comma-separated), every one by default. */
export function enginesToTest(): readonly Engine[] {
  const wanted = process.env.FUZZBOX_ENGINES?.split(',').map((name) => name.trim());
  return wanted ? engines.filter((engine) => wanted.includes(engine.name)) : engines;
}
