// The worker's offline copy of an app's own files: kept fresh while online, never lost to a failed
// update, and taking only the listed files (and the app's pages), so an app's own fetch listener
// can still answer everything else. The site is written to disk here so a test can change it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useChromium } from './chromium.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const site = join(root, 'test-output/offline-site');
const write = (file: string, text: string) => writeFileSync(join(site, file), text);

const shared = useChromium(async () => {
  requireBuild('dist/fuzzbox-sw.js');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  write('index.html', '<!doctype html><title>offline site</title><p>the page</p>');
  write('files.json', JSON.stringify(['./', 'page.txt']));
  write('page.txt', 'first deploy');
  write('unlisted.txt', 'from the network');
  // An app's own worker: fuzzbox first, then the app's listener for what fuzzbox leaves alone.
  write(
    'app-sw.js',
    "importScripts('/fuzzbox-sw.js');\n" +
      "self.addEventListener('fetch', (event) => {\n" +
      "  if (new URL(event.request.url).pathname === '/unlisted.txt') event.respondWith(new Response('from the app'));\n" +
      '});\n',
  );
  return startStaticServer({ '/': 'test-output/offline-site', '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js' });
});

/** Opens the site and waits until `workerURL` controls it (its first install claims the page). */
async function openControlled(context: BrowserContext, workerURL: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.evaluate(async (url) => {
    const controlled = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    await navigator.serviceWorker.register(url);
    await controlled;
  }, workerURL);
  return page;
}

const fetchText = (page: Page, path: string) =>
  page.evaluate(async (path) => {
    try {
      return await (await fetch(path)).text();
    } catch (error) {
      return `failed: ${(error as Error).name}`;
    }
  }, path);

describe('offline files', () => {
  it('refreshes the offline copy from every successful network answer, so a redeploy under the same names is what loads offline', async () => {
    write('page.txt', 'first deploy');
    const context = await shared.browser.newContext();
    const page = await openControlled(context, '/fuzzbox-sw.js?offline=files.json');
    write('page.txt', 'second deploy');
    expect(await fetchText(page, '/page.txt')).toBe('second deploy');

    await context.setOffline(true);
    // The copy is refreshed while the answer is already on its way: poll, don't race it.
    await expect.poll(() => fetchText(page, '/page.txt')).toBe('second deploy');
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    await context.setOffline(false);
    await context.close();
  });

  it('keeps the offline copy the active worker serves when an update fails to install', async () => {
    write('page.txt', 'first deploy');
    const context = await shared.browser.newContext();
    const page = await openControlled(context, '/fuzzbox-sw.js?offline=files.json');

    // A new worker build whose install cannot fetch a listed file: the same list, so the same cache name.
    rmSync(join(site, 'page.txt'));
    shared.server.rewrite('/fuzzbox-sw.js', (body) => Buffer.concat([body, Buffer.from(`\n// build ${Date.now()}\n`)]));
    const outcome = await page.evaluate(async () => {
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
    expect(outcome).toBe('redundant');

    await context.setOffline(true);
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    await context.setOffline(false);
    await context.close();
  });

  it('answers only the listed files and the app\'s pages, leaving other requests to the app\'s own fetch listener', async () => {
    write('page.txt', 'first deploy');
    const context = await shared.browser.newContext();
    const page = await openControlled(context, '/app-sw.js?offline=files.json');
    expect(await fetchText(page, '/unlisted.txt')).toBe('from the app');
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    await context.setOffline(true);
    expect(await fetchText(page, '/page.txt')).toBe('first deploy');
    await page.reload();
    expect(await page.textContent('p')).toBe('the page');
    await context.setOffline(false);
    await context.close();
  });
});
