// The offline demo in Chromium: the sample agent evaluated and drawn, feedback and history,
// the editor's validation messages, and a reload with the network off.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useChromium } from './chromium.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

async function openDemo(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await waitForEvaluations(page, 1);
  return page;
}

function waitForEvaluations(page: Page, count: number) {
  return page.waitForFunction((count) => document.querySelectorAll('#history tr').length >= count, count);
}

/** The log of the evaluation on screen, read from the worker with the demo's own key. */
function shownLog(page: Page) {
  return page.evaluate(async () => {
    const id = document.querySelector<HTMLElement>('#history tr.current')!.dataset.evaluation!;
    const key = localStorage.getItem('fuzzbox-demo:/:apiKey');
    const response = await fetch(`/evaluation/${id}`, { headers: { Authorization: `Bearer ${key}` } });
    return response.json();
  });
}

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

describe('the demo', () => {
  it('evaluates the sample agent, draws every step, takes feedback, and is saved as a screenshot', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await openDemo(context);

    // Sample inputs service 6.5, food 7.5. Service: good (10−6.5)/5 = 0.7, excellent (6.5−5)/5 = 0.3,
    // poor 0; food: tasty (7.5−6)/3 = 0.5, bad 0. Rules: low 0, average 0.7, generous max(0.3, 0.5).
    // average cut at 0.7: area (10+3)/2·0.7 = 4.55 about 15; generous cut at 0.5: (10+5)/2·0.5 = 3.75
    // about 25; they only touch at 20, so tip = (4.55·15 + 3.75·25)/8.3 = 162/8.3.
    const log = await shownLog(page);
    expect(log.input).toEqual({ service: 6.5, food: 7.5 });
    expect(log.crisp.tip).toBeCloseTo(162 / 8.3, 9);
    expect(await texts(page, '.answer .crisp')).toEqual(['19.5']);
    expect(await texts(page, '#inputs .degree')).toEqual(['good 0.70', 'excellent 0.30', 'tasty 0.50']);
    expect(await texts(page, '#rules .strength')).toEqual(['does not fire', '0.70', '0.50']);
    expect(await page.locator('#outputs .combined').count()).toBe(1);
    expect(await page.locator('#outputs .centroid').count()).toBe(1);

    // Service 3: poor 0.4, good 0.6; low cut at 0.4: area 3.2 about 5; average at 0.6: 4.2 about 15;
    // generous still 3.75 about 25 → tip = (16 + 63 + 93.75)/11.15.
    const slider = page.locator('figure[data-input="service"] input');
    await slider.fill('3'); // fires input, then change: one stored evaluation
    await waitForEvaluations(page, 2);
    await page.waitForFunction(() => document.querySelector('.answer .crisp')?.textContent === '15.5');
    expect((await shownLog(page)).crisp.tip).toBeCloseTo(172.75 / 11.15, 9);

    await page.click('[data-rating="4"]');
    await page.waitForFunction(() => document.querySelector('#history tr.current td:last-child')?.textContent === 'rating 4');
    expect(await page.locator('#history tr').count()).toBe(2);

    mkdirSync(join(root, 'test-output'), { recursive: true });
    await page.screenshot({ path: join(root, 'test-output', 'demo-evaluation.png'), fullPage: true });
    await context.close();
  });

  it('draws an older evaluation from the history with the version of the agent that made it', async () => {
    const context = await shared.browser.newContext();
    const page = await openDemo(context);
    const sampleRules = await texts(page, '#rules li code');
    expect(sampleRules).toHaveLength(3);
    await page.fill('#editor [name="rules"]', sampleRules[0]!);
    await page.click('#editor [name="save"]');
    await waitForEvaluations(page, 2);
    await page.waitForFunction(() => document.querySelectorAll('#rules li').length === 1);

    await page.click('#history tr:last-child'); // the first evaluation, made by version 1
    await page.waitForFunction(() => document.querySelector('#history tr:last-child')?.classList.contains('current'));
    expect(await texts(page, '#rules li code')).toEqual(sampleRules);
    expect(await texts(page, '#rules .strength')).toEqual(['does not fire', '0.70', '0.50']);
    await context.close();
  });

  it("shows the service's validation messages next to the field at fault", async () => {
    const context = await shared.browser.newContext();
    const page = await openDemo(context);
    await page.fill('#editor [name="rules"]', 'IF service IS good THEN tip IS average\nIF service IS amazing THEN tip IS low');
    await page.click('#editor [name="save"]');
    await page.waitForFunction(() => document.querySelector('[data-error-for="rules"]')?.textContent !== '');
    expect(await page.textContent('[data-error-for="rules"]')).toMatch(/^Rule on line 2: .*amazing/);
    // Numbered by the line it is on in the box, blank lines included.
    await page.fill('#editor [name="rules"]', 'IF service IS good THEN tip IS average\n\nIF service IS amazing THEN tip IS low');
    await page.click('#editor [name="save"]');
    await page.waitForFunction(() => /line 3/.test(document.querySelector('[data-error-for="rules"]')?.textContent ?? ''));
    expect(await page.textContent('[data-error-for="rules"]')).toMatch(/^Rule on line 3: .*amazing/);
    expect(await page.getAttribute('#editor [name="rules"]', 'class')).toContain('invalid');

    await page.fill('#editor [name="rules"]', 'IF service IS good THEN tip IS average');
    // A name may be empty (SPEC 1), not longer than 200 characters.
    await page.fill('#editor [name="name"]', 'x'.repeat(201));
    await page.click('#editor [name="save"]');
    await page.waitForFunction(() => document.querySelector('[data-error-for="name"]')?.textContent !== '');
    expect(await page.textContent('[data-error-for="name"]')).toMatch(/at most 200 characters/);
    expect(await page.textContent('[data-error-for="rules"]')).toBe('');
    // Nothing was saved: the agent still has its three rules.
    expect(await page.locator('#rules li').count()).toBe(3);
    await context.close();
  });

  it('reloads and keeps evaluating with the network off', async () => {
    const context = await shared.browser.newContext();
    const page = await openDemo(context);
    await context.setOffline(true);
    const served = shared.server.requests.length;

    await page.reload();
    // a reload shows the newest stored evaluation again and stores none
    await page.waitForFunction(() => document.querySelector('#history tr.current') !== null && document.querySelector('#outputs svg') !== null);
    expect(await page.locator('#history tr').count()).toBe(1);
    expect(await page.textContent('#status')).toMatch(/^Offline/);
    const slider = page.locator('figure[data-input="food"] input');
    await slider.fill('2');
    await waitForEvaluations(page, 2);
    // Food 2 is bad (4−2)/(4−1) = 2/3, tasty 0; service 6.5 as before: low 2/3, average 0.7,
    // generous 0.3. A triangle of base 10 cut at h keeps area (10 + 10(1−h))/2·h: low 40/9 about 5,
    // average 4.55 about 15, generous 2.55 about 25 → tip = (200/9 + 68.25 + 63.75)/(40/9 + 7.1).
    expect((await shownLog(page)).crisp.tip).toBeCloseTo((200 / 9 + 132) / (40 / 9 + 7.1), 9);
    // Not a single file came from the server while offline: the worker's cache served the reload.
    expect(shared.server.requests.length).toBe(served);
    await context.setOffline(false);
    await context.close();
  });

  it("keeps the Optimize panel's simulated ratings apart from the ratings a person gives", async () => {
    const context = await shared.browser.newContext();
    const page = await openDemo(context);
    await page.click('[data-rating="4"]');
    await page.waitForFunction(() => document.querySelector('#history tr.current td:last-child')?.textContent === 'rating 4');
    const panel = page.locator('#optimize-panel');
    expect(await panel.getByRole('textbox', { name: 'metric' }).inputValue()).toBe('simulated rating');
    await panel.getByRole('button', { name: /Simulate/ }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 20_000 }).toMatch(/200 explored evaluations/);

    expect(await panel.getByRole('status').textContent()).toMatch(/rated by simulated users \(metric “simulated rating”\)/);
    // The person's own 4 is the only `rating` there is: the 200 simulated ones did not join it.
    await panel.getByRole('textbox', { name: 'metric' }).fill('rating');
    await panel.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).toMatch(/on "rating" yet: 1 evaluations carry this metric/);
    await panel.getByRole('textbox', { name: 'metric' }).fill('simulated rating');
    await panel.getByRole('button', { name: 'Preview' }).click();
    await expect
      .poll(() => panel.getByRole('status').textContent(), { timeout: 20_000 })
      .toMatch(/Learnt from 200 evaluations\. Estimated mean simulated rating:/);
    await context.close();
  });

  it('offers an updated worker, and after switching to it every evaluation is still there', async () => {
    const context = await shared.browser.newContext();
    const page = await openDemo(context);
    const worker = await page.evaluate(() => navigator.serviceWorker.controller!);
    expect(worker).not.toBeNull();
    shared.server.rewrite('/fuzzbox-sw.js', (body) => Buffer.concat([body, Buffer.from(`\n// build ${Date.now()}\n`)]));
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
    await page.locator('#update').waitFor({ state: 'visible' });
    await Promise.all([page.waitForEvent('load'), page.click('#update button')]);
    // The reload shows the stored evaluation through the new worker, adding none.
    await page.waitForFunction(() => document.querySelector('#history tr.current') !== null && document.querySelector('#answer .crisp') !== null);
    expect(await page.locator('#history tr').count()).toBe(1);
    expect(await texts(page, '.answer .crisp')).toEqual(['19.5']);
    await context.close();
  });
});
