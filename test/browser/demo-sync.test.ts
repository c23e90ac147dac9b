// The demo's sync badge in Chromium (demo/sync-badge.ts): off by default, so the offline demo
// never calls anyone; given a `fuzzbox serve` (PGlite, in this process, `cors` for the page's
// origin) and a key, it shows when the worker last synced and what waits, the server's agents
// arrive, an error says what went wrong, and it turns off again. Screenshots at 1280×900 and
// 390×844 in test-output/ to look at.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type FuzzboxServer } from '../../src/node/index.js';
import { useChromium } from './chromium.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

let dataDir: string;
let server: FuzzboxServer;
const heard: string[] = [];
/** The page's origin: http://localhost:A, the server being on http://127.0.0.1:B */
const origin = () => shared.server.origin.replace('127.0.0.1', 'localhost');

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-demo-sync-'));
  server = await serve({ port: 0, dataDir, cors: { origins: [origin()] }, log: (entry) => heard.push(`${entry.method} ${entry.path}`) });
});
afterAll(async () => {
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const badge = (page: Page) => page.locator('.sync-badge summary');

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(join(root, 'test-output'), { recursive: true });
  await page.screenshot({ path: join(root, 'test-output', `${name}.png`), fullPage: true });
}

/** GET /sync/status from the page, answered by the demo's worker for the account of `apiKey`. */
function syncStatus(page: Page, apiKey: string): Promise<{ status: number; body: any }> {
  return page.evaluate(async (apiKey) => {
    const response = await fetch('/sync/status', { headers: { Authorization: `Bearer ${apiKey}` } });
    return { status: response.status, body: await response.json() };
  }, apiKey);
}

/** The open badge fits the screen: no sideways scrolling, its panel inside the viewport. */
function fits(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > innerWidth)
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${innerWidth}`);
    for (const element of document.querySelectorAll('.sync-badge, .sync-badge *')) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && (box.left < -0.5 || box.right > innerWidth + 0.5))
        problems.push(
          `${element.tagName.toLowerCase()} “${element.textContent!.trim().slice(0, 30)}” leaves the screen (${box.left.toFixed(0)}–${box.right.toFixed(0)})`,
        );
    }
    return problems;
  });
}

describe("the demo's sync badge", () => {
  for (const screen of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`${screen.width}×${screen.height}: off by default; on with a server and a key it syncs, shows the server's agents, an error, and turns off`, async () => {
      const { apiKey } = await server.createAccount(`demo ${screen.width}`);
      const onServer = await server.handle(
        new Request(new URL('agent', server.url), {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            name: `from the server (${screen.width})`,
            inputs: { heat: { low: [0, 50], high: [50, 100] } },
            outputs: { fan: { slow: [0, 50], fast: [50, 100] } },
            rules: ['IF heat IS low THEN fan IS slow', 'IF heat IS high THEN fan IS fast'],
          }),
        }),
      );
      expect(onServer.status).toBe(200);
      const context = await shared.browser.newContext({ viewport: screen });
      const page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await page.goto(`${origin()}/`);
      await page.waitForFunction(() => document.querySelector('#outputs svg') !== null);

      // off: the badge says so, and nobody but the page's own worker was called
      await expect.poll(() => badge(page).textContent()).toBe('Sync off');
      const before = heard.length;
      await badge(page).click();
      await screenshot(page, `demo-sync-off-${screen.width}`);
      expect(await fits(page)).toEqual([]);
      expect(heard.slice(before)).toEqual([]);

      // on: the page starts again with the worker syncing as the server account
      await page.fill('.sync-form input[name="url"]', server.url);
      await page.fill('.sync-form input[name="apiKey"]', apiKey);
      await Promise.all([page.waitForEvent('load'), page.click('.sync-form button[type="submit"]')]);
      await expect.poll(() => badge(page).textContent(), { timeout: 20_000 }).toMatch(/^Synced \d\d:\d\d( [AP]M)? · 0 waiting$/);
      await expect.poll(() => page.locator('#agent-select option').allTextContents(), { timeout: 20_000 }).toEqual([`from the server (${screen.width})`]);
      expect(heard.slice(before)).toContain('GET /sync/pull');
      expect(await syncStatus(page, apiKey)).toMatchObject({ status: 200, body: { url: server.url, lastError: null } });
      await badge(page).click();
      await expect(page.locator('[data-fact="pending"]').textContent()).resolves.toBe('0');
      await screenshot(page, `demo-sync-on-${screen.width}`);
      expect(await fits(page)).toEqual([]);

      // an evaluation here goes to the server; then the server goes away and the badge says why
      await page.click('[data-action="now"]');
      await expect.poll(() => badge(page).textContent()).toMatch(/^Synced .* · 0 waiting$/);
      await context.route(`${server.url}**`, (route) => route.abort('connectionrefused'));
      await page.click('[data-action="now"]');
      await expect.poll(() => badge(page).textContent()).toMatch(/^Sync failed · \d+ waiting$/);
      await expect(page.locator('[data-fact="lastError"]').textContent()).resolves.toMatch(/fetch/i);
      await screenshot(page, `demo-sync-error-${screen.width}`);
      expect(await fits(page)).toEqual([]);
      await context.unroute(`${server.url}**`);

      // off again: the demo's own account, and the badge back to off
      await Promise.all([page.waitForEvent('load'), page.click('[data-action="off"]')]);
      await expect.poll(() => badge(page).textContent()).toBe('Sync off');
      expect((await syncStatus(page, apiKey)).status).toBe(404); // the worker's service syncs no more
      await context.close();
    });
  }
});
