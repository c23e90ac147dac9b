// The worker's offline copy of an app's own files (Workbox's precaching): served from the cache,
// replaced only by an updated worker with a new file list, never lost to a failed update, and
// taking only the listed files and pages, so an app's own fetch listener can still answer the rest.
// The site and its worker are written to disk here so a test can change them; the worker is an
// app's own classic script that lists its files where the prebuilt worker reads them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { useChromium } from './chromium.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const site = join(root, 'test-output/offline-site');
const write = (file: string, text: string) => writeFileSync(join(site, file), text);

/** The app's worker: its file list, fuzzbox, then the app's own listener for what fuzzbox leaves alone. */
function writeWorker(files: Array<{ url: string; revision: string }>): void {
  write(
    'app-sw.js',
    `self.__WB_MANIFEST = ${JSON.stringify(files)};\n` +
      "importScripts('/fuzzbox-sw.js');\n" +
      "self.addEventListener('fetch', (event) => {\n" +
      "  if (new URL(event.request.url).pathname === '/unlisted.txt') event.respondWith(new Response('from the app'));\n" +
      '});\n',
  );
}

const shared = useChromium(async () => {
  requireBuild('dist/fuzzbox-sw.js', 'dist/sw.js');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  write('index.html', '<!doctype html><title>offline site</title><p>the page</p>');
  write('unlisted.txt', 'from the network');
  // An app's own worker written with fuzzbox/sw (the package by its name), bundled by Vite.
  write(
    'own-sw-source.ts',
    "import { installFuzzyService } from 'fuzzbox/sw';\n" +
      "installFuzzyService(self as unknown as ServiceWorkerGlobalScope, { offlineFiles: [{ url: 'index.html', revision: '1' }, { url: 'page.txt', revision: '1' }] });\n",
  );
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir: site,
      emptyOutDir: false,
      lib: { entry: join(site, 'own-sw-source.ts'), formats: ['iife'], name: 'ownWorker', fileName: () => 'own-sw.js' },
    },
  });
  return startStaticServer({ '/': 'test-output/offline-site', '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js' });
});

function firstDeploy(): void {
  write('page.txt', 'first deploy');
  writeWorker([
    { url: 'index.html', revision: '1' },
    { url: 'page.txt', revision: '1' },
  ]);
}

/** Opens the site and waits until the app's worker controls it (its first install claims the page). */
async function openControlled(context: BrowserContext, workerURL = '/app-sw.js'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.evaluate(async (workerURL) => {
    const controlled = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    await navigator.serviceWorker.register(workerURL);
    await controlled;
  }, workerURL);
  return page;
}

/** Asks the browser for the worker again; resolves with the new worker's state once it settles. */
const updateWorker = (page: Page) =>
  page.evaluate(async () => {
    const registration = (await navigator.serviceWorker.getRegistration())!;
    const found = new Promise<ServiceWorker>((resolve) =>
      registration.addEventListener('updatefound', () => resolve(registration.installing!), { once: true }),
    );
    await registration.update();
    const worker = await found;
    await new Promise<void>((resolve) => {
      const settled = () => (worker.state === 'redundant' || worker.state === 'installed') && resolve();
      worker.addEventListener('statechange', settled);
      settled();
    });
    return worker.state;
  });

const fetchText = (page: Page, path: string) =>
  page.evaluate(async (path) => {
    try {
      return await (await fetch(path)).text();
    } catch (error) {
      return `failed: ${(error as Error).name}`;
    }
  }, path);

describe('offline files', () => {
  it('serves the listed files from the cache until an updated worker lists new revisions, which then load offline', async () => {
    firstDeploy();
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    write('page.txt', 'second deploy');
    // Same revision listed: the cached copy, whatever the server has now.
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');

    writeWorker([
      { url: 'index.html', revision: '1' },
      { url: 'page.txt', revision: '2' },
    ]);
    expect(await updateWorker(page)).toBe('installed');
    await page.evaluate(async () => {
      const controlled = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
      (await navigator.serviceWorker.getRegistration())!.waiting!.postMessage({ type: 'SKIP_WAITING' });
      await controlled;
    });
    await context.setOffline(true);
    expect(await fetchText(page, '/page.txt')).toBe('second deploy');
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    await context.setOffline(false);
    await context.close();
  });

  it('drops the per-install caches fuzzbox kept before it used Workbox, keeping other caches', async () => {
    firstDeploy();
    const context = await shared.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${shared.server.origin}/`);
    await page.evaluate(async () => {
      for (const name of ['fuzzbox-offline-1', 'fuzzbox-offline-2', 'the-apps-own']) await (await caches.open(name)).put('/x', new Response('x'));
    });
    await page.close();
    const controlled = await openControlled(context);
    // activation (which drops them) may finish just after the worker claims the page
    await expect.poll(() => controlled.evaluate(async () => (await caches.keys()).sort())).toEqual(['fuzzbox-offline', 'the-apps-own']);
    await context.close();
  });

  it('keeps the offline copy the active worker serves when an update fails to install', async () => {
    firstDeploy();
    const context = await shared.browser.newContext();
    const page = await openControlled(context);

    // A new list naming a file the server does not have: the install fails, the update is dropped.
    writeWorker([
      { url: 'index.html', revision: '2' },
      { url: 'page.txt', revision: '2' },
      { url: 'missing.txt', revision: '1' },
    ]);
    write('page.txt', 'second deploy');
    expect(await updateWorker(page)).toBe('redundant');

    await context.setOffline(true);
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    await context.setOffline(false);
    await context.close();
  });

  it("answers only the listed files and the app's pages, leaving other requests to the app's own fetch listener", async () => {
    firstDeploy();
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const served = shared.server.requests.length;
    expect(await fetchText(page, '/unlisted.txt')).toBe('from the app');
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    expect(shared.server.requests.length).toBe(served);
    await context.setOffline(true);
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    // A page is the same page whatever its query.
    await page.goto(`${shared.server.origin}/?from=a-link`);
    expect(await page.textContent('p')).toBe('the page');
    await context.setOffline(false);
    await context.close();
  });

  it("works the same in an app's own worker bundled from fuzzbox/sw, beside the REST interface", async () => {
    write('page.txt', 'first deploy');
    const context = await shared.browser.newContext();
    const page = await openControlled(context, '/own-sw.js');
    await context.setOffline(true);
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    expect(await page.evaluate(async () => (await fetch('/version')).status)).toBe(200);
    await context.setOffline(false);
    await context.close();
  });
});
