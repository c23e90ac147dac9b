// registerFuzzyWorker resolves only once the worker controls the page, whatever way the page
// was loaded, and announces an updated worker that can then take over.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useChromium } from './chromium.js';
import { startFixtureServer } from './harness.js';

const shared = useChromium(startFixtureServer);

async function openFixture(page: Page): Promise<void> {
  await page.goto(`${shared.server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
}

/** Registers, then reports whether the page started controlled and is controlled now. */
function register(page: Page) {
  return page.evaluate(async () => {
    await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js');
    return {
      controlledAtStart: window.fuzzbox.controlledAtStart,
      controlledNow: navigator.serviceWorker.controller !== null,
    };
  });
}

describe('registerFuzzyWorker', () => {
  it('resolves controlled on the first visit, a reload and a hard reload', async () => {
    const context = await shared.browser.newContext();
    const page = await context.newPage();

    await openFixture(page);
    expect(await register(page)).toEqual({ controlledAtStart: false, controlledNow: true });

    await page.reload();
    await page.waitForFunction(() => 'fuzzbox' in window);
    expect(await register(page)).toEqual({ controlledAtStart: true, controlledNow: true });

    // Shift-reload: the browser bypasses the active worker, which must be asked to claim the page.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.reload', { ignoreCache: true });
    await page.waitForFunction(() => 'fuzzbox' in window);
    expect(await register(page)).toEqual({ controlledAtStart: false, controlledNow: true });
    await context.close();
  });

  it('resolves only once the worker at the registered URL controls the page, after the app changed that URL', async () => {
    const context = await shared.browser.newContext();
    const page = await context.newPage();
    await openFixture(page);
    await register(page);
    await page.reload();
    await page.waitForFunction(() => 'fuzzbox' in window);
    // The app now serves its interface under /api/: the old worker (basePath /) still controls the page.
    const after = await page.evaluate(async () => {
      await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js?basePath=/api/');
      const response = await fetch('/api/version');
      return { controller: navigator.serviceWorker.controller!.scriptURL, status: response.status };
    });
    expect(after).toEqual({ controller: `${shared.server.origin}/fuzzbox-sw.js?basePath=/api/`, status: 200 });
    expect(shared.server.requests).not.toContain('/api/version');
    await context.close();
  });

  it('announces every update a page lives through, not only the first', async () => {
    const context = await shared.browser.newContext();
    const page = await context.newPage();
    await openFixture(page);
    await page.evaluate(async () => {
      const announced: Array<{ activate(): Promise<void> }> = [];
      const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { onUpdate: (update) => announced.push(update) });
      Object.assign(window, { announced, worker });
    });
    const controllers: string[] = [];
    for (const build of [1, 2]) {
      shared.server.rewrite('/fuzzbox-sw.js', (body) => Buffer.concat([body, Buffer.from(`\n// build ${build} ${Date.now()}\n`)]));
      await page.evaluate(() => (window as unknown as { worker: { update(): Promise<void> } }).worker.update());
      await page.waitForFunction((count) => (window as unknown as { announced: unknown[] }).announced.length === count, build);
      controllers.push(
        await page.evaluate(async () => {
          const { announced } = window as unknown as { announced: Array<{ activate(): Promise<void> }> };
          const before = navigator.serviceWorker.controller;
          await announced.at(-1)!.activate();
          return navigator.serviceWorker.controller !== before ? 'switched' : 'same';
        }),
      );
    }
    expect(controllers).toEqual(['switched', 'switched']);
    expect(await page.evaluate(() => (window as unknown as { announced: unknown[] }).announced.length)).toBe(2);
    await context.close();
  });

  it('rejects with a clear error when the worker cannot be registered or never takes control', async () => {
    const context = await shared.browser.newContext();
    const page = await context.newPage();
    await openFixture(page);
    const failures = await page.evaluate(async () => {
      const attempt = (url: string) =>
        window.fuzzbox.registerFuzzyWorker(url, { timeout: 1_500 }).then(
          () => 'resolved',
          (error: Error) => `${error.name}: ${error.message}`,
        );
      return {
        missing: await attempt('/missing-worker.js'),
        stuck: await attempt('/stuck-worker.js'),
        // Served from /dist/, the worker's scope is /dist/: it could never control this page at /.
        outOfScope: await attempt('/dist/fuzzbox-sw.js'),
      };
    });
    expect(failures.missing).toMatch(/^WorkerRegistrationError: fuzzbox: could not register \/missing-worker\.js: .*404/);
    expect(failures.stuck).toBe(
      'WorkerRegistrationError: fuzzbox: the fuzzbox worker did not take control of this page within 1500 ms; ' +
        "check the browser console for the worker's errors.",
    );
    expect(failures.outOfScope).toMatch(/^WorkerRegistrationError: fuzzbox: this page \(http:.*\/\) lies outside the worker's scope http:.*\/dist\//);
    await context.close();
  });

  it("rejects at once with the reason when the worker's install fails, not after the timeout", async () => {
    const context = await shared.browser.newContext();
    const page = await context.newPage();
    await openFixture(page);
    // The default timeout is 10 s; the test's own is 30 s, so a timeout would also be reported, by its message.
    const failure = await page.evaluate(() =>
      window.fuzzbox.registerFuzzyWorker('/failing-worker.js').then(
        () => 'resolved',
        (error: Error) => `${error.name}: ${error.message}`,
      ),
    );
    expect(failure).toBe(
      `WorkerRegistrationError: fuzzbox: the worker ${shared.server.origin}/failing-worker.js failed to install: ` +
        `could not keep ${shared.server.origin}/missing.js for an offline start: the server answered 404`,
    );
    await context.close();
  });
});
