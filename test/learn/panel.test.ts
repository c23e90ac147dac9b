// The demo's "Optimize" panel in Chromium: no feedback first (the service's 400 shown),
// then simulated explored evaluations, then an optimization with its progress bar, before/after
// and the list of what moved, saved as a new version of the agent on screen.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useChromium } from '../browser/chromium.js';
import { requireBuild, root, startStaticServer } from '../browser/harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

describe('the optimize panel', () => {
  it('optimizes the agent on screen from simulated feedback, showing progress and what changed (saved as a screenshot)', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${shared.server.origin}/`);
    const panel = page.locator('#optimize-panel');
    await panel.getByRole('button', { name: 'Preview' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#history tr').length >= 1);

    // no feedback yet: the service's 400 is shown as it is
    await panel.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toMatch(/carries the metric "simulated rating"/);

    await panel.getByRole('button', { name: /Simulate/ }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 20_000 }).toMatch(/200 explored evaluations/);

    // listen to the worker's progress broadcasts the way the panel does
    await page.evaluate((channel) => {
      const reports: unknown[] = [];
      (window as unknown as { reports: unknown[] }).reports = reports;
      new BroadcastChannel(channel).addEventListener('message', (event) => reports.push(event.data));
    }, 'fuzzbox-optimize-progress');
    const agentBefore = await page.evaluate(() => localStorage.getItem('fuzzbox-demo:/:agent'));
    const versionsBefore = await versions(page, agentBefore!);

    await panel.getByRole('button', { name: 'Optimize and save' }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 20_000 }).toMatch(/Saved as a new version/);
    const status = (await panel.getByRole('status').textContent())!;
    const [, before, after] = status.match(/simulated rating: (\d+(?:\.\d+)?) → (\d+(?:\.\d+)?)/)!;
    expect(Number(after)).toBeGreaterThan(Number(before));
    expect(await panel.locator('table tr').count()).toBeGreaterThan(1); // a header and one row per change
    expect(await versions(page, agentBefore!)).toBe(versionsBefore + 1);

    mkdirSync(join(root, 'test-output'), { recursive: true });
    await panel.screenshot({ path: join(root, 'test-output', 'demo-optimize.png') });

    const reports = await page.evaluate(() => (window as unknown as { reports: Array<{ done: number; total: number }> }).reports);
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.at(-1)!.done).toBe(reports.at(-1)!.total);
    await context.close();
  });
});

function versions(page: import('playwright-core').Page, agentID: string): Promise<number> {
  return page.evaluate(async (id) => {
    const key = localStorage.getItem('fuzzbox-demo:/:apiKey');
    const response = await fetch(`/agent/${id}/version`, { headers: { Authorization: `Bearer ${key}` } });
    return ((await response.json()) as unknown[]).length;
  }, agentID);
}
