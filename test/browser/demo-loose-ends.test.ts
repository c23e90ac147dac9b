// The demo's loose ends, as a person meets them, in Chromium at 1280×900 and 390×844 (screenshots
// in test-output/demo-loose-ends-*.png): a reload keeps the autopilot panel and stores nothing;
// "Your data" follows every write; the status names versions by number; a mistake in the editor
// is shown without a request; sets that cannot mean what they seem get a hint; a rollback to a
// version without goals says why autopilot stopped; the rating buttons and chart words fit a phone;
// the REST reference is there offline; the optimize preview never says "toward X instead of X".
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { explainOptimization } from '../../demo/optimize-panel.js';
import { useChromium } from './chromium.js';
import { demoApi } from './demo-api.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

const ULID = /[0-9A-HJKMNP-TV-Z]{26}/;

/** The demo's own REST interface with the demo's own key: the answer's body. */
const api = async <T = any>(page: Page, method: string, path: string, body?: unknown) => (await demoApi<T>(page, method, path, body)).body;

const shownAnswer = (page: Page) =>
  page.waitForFunction(() => document.querySelector('#history tr.current') !== null && document.querySelector('#outputs svg') !== null);

/** The page, and each part this test is about on its own (a whole page on a phone is too tall to read). */
async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(join(root, 'test-output'), { recursive: true });
  await page.screenshot({ path: join(root, 'test-output', `${name}.png`), fullPage: true });
  for (const [part, selector] of [
    ['inputs', '#inputs'],
    ['answer', '.answer-layout'],
    ['feedback', '#feedback'],
    ['autopilot', '#autopilot-panel'],
    ['editor', '#editor'],
    ['data', '#data-panel'],
    ['reference', '#reference-panel'],
  ] as const) {
    const element = page.locator(selector);
    await element.scrollIntoViewIfNeeded();
    await element.screenshot({ path: join(root, 'test-output', `${name}-${part}.png`) });
  }
}

describe('the demo without loose ends', () => {
  it('reload, data counts, status, editor, hints, goal-less rollback, phone layout, REST reference', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    const consoleErrors: string[] = [];
    const refused: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && consoleErrors.push(message.text())));
    page.on('response', (response) => void (response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`)));
    await page.goto(`${shared.server.origin}/`);
    await shownAnswer(page);
    const agentID = (await page.evaluate(() => localStorage.getItem('fuzzbox-demo:/:agent')))!;
    const evaluations = async () => (await api(page, 'GET', `/agent/${agentID}/evaluation`)).evaluations.length as number;
    const dataState = page.locator('#storage-state');

    // a first visit stores one evaluation; "Your data" counts it, in the singular where it is one
    expect(await evaluations()).toBe(1);
    await expect.poll(() => dataState.textContent()).toMatch(/^1 agent, 1 evaluation, 0 feedback · /);

    // autopilot on (with a goal), then a reload: the panel shows it, and nothing new is stored
    const agent = await api(page, 'GET', `/agent/${agentID}`);
    const { id: _id, createdAt: _c, updatedAt: _u, latestVersion: _l, ...definition } = agent;
    await api(page, 'PUT', `/agent/${agentID}`, { ...definition, performance: { rating: 'maximize' } });
    expect((await api(page, 'PUT', `/agent/${agentID}/autopilot`, { enabled: true })).active).toBe(true);
    for (let reload = 0; reload < 2; reload++) {
      await page.reload();
      await shownAnswer(page);
      const panel = page.locator('#autopilot-panel');
      await expect.poll(() => panel.getByLabel('Autopilot on').isChecked()).toBe(true);
      await expect
        .poll(() => panel.locator('.autopilot-state').textContent())
        .toMatch(/^The agent answers with v2\. Autopilot proposes a version after every \d+ new ratings/);
      expect(await panel.locator('table.versions tr').count()).toBe(3); // a header, v2, v1
      expect(await evaluations()).toBe(1);
      expect(await page.locator('#history tr').count()).toBe(1);
    }

    // a slider released stores an evaluation, a rating feedback: "Your data" follows without a reload
    const slider = page.locator('#inputs input[type=range]').first();
    await slider.evaluate((element: HTMLInputElement) => {
      element.value = String(Number(element.min) + (Number(element.max) - Number(element.min)) * 0.3);
      element.dispatchEvent(new Event('input'));
      element.dispatchEvent(new Event('change'));
    });
    await expect.poll(() => dataState.textContent()).toMatch(/^1 agent, 2 evaluations, 0 feedback · /);
    await page.locator('[data-rating="5"]').click();
    await expect.poll(() => dataState.textContent()).toMatch(/^1 agent, 2 evaluations, 1 feedback · /);
    expect(await evaluations()).toBe(2);

    // a mistake in a rule is shown under the rules, and no request is refused (no 400 in the console)
    const rules = page.locator('#editor textarea[name=rules]');
    const goodRules = (await rules.inputValue())!;
    await rules.fill(`${goodRules}\nIF service IS splendid THEN tip IS generous`);
    await page.locator('#editor button[name=save]').click();
    await expect.poll(() => page.locator('[data-error-for=rules]').textContent()).toMatch(/^Rule on line 4: .*splendid/);
    expect(refused).toEqual([]);
    expect(consoleErrors).toEqual([]);

    // a save is named by its version number, not an id
    await rules.fill(goodRules);
    await page.locator('#editor input[name=name]').fill('Tipping advisor, edited');
    await page.locator('#editor button[name=save]').click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Saved “Tipping advisor, edited” as version 3');

    // two identical sets, and a 2-point slope over the whole range: saved, each with a hint and the way to write it
    await page
      .locator('#editor textarea[name=inputs]')
      .fill(JSON.stringify({ service: { low: [0, 10], high: [0, 10] }, food: { bad: [1, 4], tasty: [6, 9] } }));
    await rules.fill('IF service IS low THEN tip IS low\nIF service IS high THEN tip IS generous\nIF food IS tasty THEN tip IS average');
    await page.locator('#save-as-new').click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Saved “.*” as a new agent$/);
    const hint = (await page.locator('[data-hint-for=inputs]').textContent())!;
    expect(hint).toContain('“low” and “high” of input service are the same set [0,10]: rules cannot tell them apart.');
    expect(hint).toContain('“low” of input service, [0, 10], rises from 0 to 10');
    expect(hint).toContain('For one that falls from 0 to 10, write [0, 0, 10].');
    expect(hint.split('\n')).toHaveLength(2); // said once, not again for the twin
    mkdirSync(join(root, 'test-output'), { recursive: true });
    await page.locator('#editor').screenshot({ path: join(root, 'test-output', 'demo-loose-ends-1280-hint.png') });
    // the way shown works: [0, 0, 10] falls where [0, 10] rises
    const written = await api(page, 'POST', '/agent', {
      inputs: { x: { falling: [0, 0, 10], rising: [0, 10] } },
      outputs: { y: { a: [0, 1, 2] } },
      rules: ['IF x IS falling THEN y IS a'],
    });
    const meta = await api(page, 'POST', `/agent/${written.id}?meta=true`, { x: 2 });
    expect(meta.meta.fuzzified.x.falling).toBeCloseTo(0.8, 12);
    expect(meta.meta.fuzzified.x.rising).toBeCloseTo(0.2, 12);
    await page.selectOption('#agent-select', agentID);
    await shownAnswer(page);

    // back to v1, which has no goal: said in words, and no "0 ratings" for every version
    const panel = page.locator('#autopilot-panel');
    await expect.poll(() => panel.locator('table.versions tr').count()).toBe(4);
    await panel.locator('table.versions tr', { hasText: /^v1/ }).getByRole('button', { name: 'Roll back' }).click();
    await expect
      .poll(() => panel.getByRole('status').textContent())
      .toBe(
        'Rolled back: the agent answers with v1’s definition again, as a new version. v1 has no goal (performance), so autopilot stopped and ratings are not summarised until it has one: switch autopilot on to give it one again.',
      );
    await expect
      .poll(() => panel.locator('.autopilot-state').textContent())
      .toMatch(/v4 has no goal \(performance\): ratings are not summarised without one \(they stay stored\)/);
    expect(await panel.getByLabel('Autopilot on').isChecked()).toBe(false);
    expect(await panel.locator('table.versions td.ratings').allTextContents()).toEqual(['–', '–', '–', '–']);

    // the REST reference, from the worker's GET /openapi.json: every route, also offline
    const reference = page.locator('#reference-panel');
    await reference.locator('summary').click();
    const served = await api(page, 'GET', '/openapi.json');
    const routeCount = Object.values(served.paths as Record<string, object>).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
    expect(await reference.locator('tbody tr').count()).toBe(routeCount);
    expect(await reference.locator('tbody tr', { hasText: 'POST /agent/{id}/rollback' }).textContent()).toContain('RollbackBody');
    mkdirSync(join(root, 'test-output'), { recursive: true });
    await reference.locator('table').screenshot({ path: join(root, 'test-output', 'demo-loose-ends-1280-reference-table.png') });
    await context.setOffline(true);
    expect((await api(page, 'GET', '/openapi.json')).openapi).toBe('3.1.0');
    await context.setOffline(false);

    await page.locator('#feedback').scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-loose-ends-1280');

    // a phone: the five rating buttons on one line, and no chart word smaller than 10 px
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    const ratingTops = await page.locator('[data-rating]').evaluateAll((buttons) => buttons.map((button) => button.getBoundingClientRect().top));
    expect(new Set(ratingTops).size).toBe(1);
    const wrapped = await page.locator('[data-rating]').evaluateAll((buttons) => buttons.filter((button) => button.getBoundingClientRect().height > 44).length);
    expect(wrapped).toBe(0);
    const smallest = await page.evaluate(
      () =>
        [...document.querySelectorAll<SVGTextElement>('svg.chart text')]
          .filter((text) => text.getBoundingClientRect().width > 0)
          .map((text) => {
            const svg = text.ownerSVGElement!;
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return { px: Number.parseFloat(getComputedStyle(text).fontSize) * scale, text: text.textContent, chart: svg.getAttribute('aria-label') };
          })
          .sort((a, b) => a.px - b.px)[0],
    );
    expect(smallest!.px, JSON.stringify(smallest)).toBeGreaterThanOrEqual(10);
    await screenshot(page, 'demo-loose-ends-390');
    expect(refused).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 300_000);
});

describe('the optimize preview in words', () => {
  const before = {
    inputs: { service: { poor: [0, 5], good: [0, 5, 10] } },
    outputs: { tip: { low: [0, 4.28, 8.56], high: [10, 20, 30] } },
    rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS high'],
  };
  const answer = (low: number[]) => ({
    versionID: null,
    basedOn: 'v',
    evaluationsUsed: 60,
    metric: 'stars',
    goal: 'maximize' as const,
    before: 3,
    after: 3.4,
    changes: low
      .map((to, point) => ({ kind: 'set' as const, side: 'outputs' as const, variable: 'tip', set: 'low', point, from: before.outputs.tip.low[point]!, to }))
      .filter((change) => change.from !== change.to),
    definition: { ...before, outputs: { tip: { ...before.outputs.tip, low } } },
  });

  it('a set that only got wider still pulls toward the same number, and says so', () => {
    const sentences = explainOptimization(answer([-1, 4.28, 9.56]), before, { service: 3 });
    const sentence = sentences.find((text) => text.includes('“low” of tip'))!;
    expect(sentence).toBe(
      'The output set “low” of tip got wider (8.56 → 10.6 wide): so the rules that conclude “tip IS low” still pull tip toward 4.28, and a wider set weighs more in the balance.',
    );
    for (const text of sentences) expect(text).not.toMatch(/toward (\S+) instead of \1\b/);
  });

  it('a set whose centre moved names both centres', () => {
    const sentence = explainOptimization(answer([1, 5.28, 9.56]), before, { service: 3 }).find((text) => text.includes('“low” of tip'))!;
    expect(sentence).toMatch(
      /^The output set “low” of tip moved up by 1(\.00)?: so the rules that conclude “tip IS low” now pull tip toward 5\.28 instead of 4\.28\.$/,
    );
  });
});
