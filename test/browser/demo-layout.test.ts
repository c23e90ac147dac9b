// The demo as a person sees it, on a desktop (1280×900) and a phone (390×844): screenshots in
// test-output/ to look at, and the layout facts they show asserted (nothing wider than its card,
// no two labels on top of each other, every legend colour beside its own words, one precision per
// axis, names shown as typed), with long names, after deleting agents and after optimizing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useChromium } from './chromium.js';
import { demoApi } from './demo-api.js';
import { requireBuild, root, startStaticServer } from './harness.js';
import { sharedFolder } from '../support/shared.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

const screens = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** An agent whose every name is long and lower-case, as people write them. */
const longNames = {
  name: 'delivery time estimator (lower-case on purpose)',
  inputs: {
    'distance to the customer in km': {
      'just-around-the-corner-really': [0, 3],
      'somewhere-across-town': [1, 5, 9],
      'far-out-in-the-suburbs-beyond': [7, 10],
    },
    'orders already waiting': { 'a-quiet-afternoon': [0, 10], 'the-friday-evening-rush-hour': [5, 20] },
  },
  outputs: {
    'minutes until delivery': {
      'almost-instantly-delivered': [5, 10, 20],
      'the-usual-half-an-hour': [15, 30, 45],
      'you-had-better-cook-yourself': [40, 60, 75],
    },
  },
  rules: [
    'IF "distance to the customer in km" IS just-around-the-corner-really AND "orders already waiting" IS a-quiet-afternoon THEN "minutes until delivery" IS almost-instantly-delivered',
    'IF "distance to the customer in km" IS somewhere-across-town THEN "minutes until delivery" IS the-usual-half-an-hour',
    'IF "distance to the customer in km" IS far-out-in-the-suburbs-beyond OR "orders already waiting" IS the-friday-evening-rush-hour THEN "minutes until delivery" IS you-had-better-cook-yourself',
    'IF "distance to the customer in km" IS just-around-the-corner-really AND "orders already waiting" IS the-friday-evening-rush-hour THEN "minutes until delivery" IS the-usual-half-an-hour',
  ],
};

async function openDemo(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept()); // "Delete … and all its versions?"
  await page.goto(`${shared.server.origin}/`);
  await waitForAnswer(page);
  return page;
}

/** A stored evaluation is drawn: its row is in the history and its answer on screen. */
async function waitForAnswer(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('#history tr.current') !== null && document.querySelector('#outputs svg') !== null);
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(join(root, 'test-output'), { recursive: true });
  await page.screenshot({ path: join(root, 'test-output', `${name}.png`), fullPage: true });
}

/** Calls the demo's own REST interface with the demo's own key. */
const api = demoApi;

/** Shows `agent` and waits until the answer names its own outputs (the panels render one after another). */
async function showAgent(page: Page, agent: { id: string; outputs: Record<string, unknown> }): Promise<void> {
  await page.reload();
  await waitForAnswer(page);
  await page.selectOption('#agent-select', agent.id);
  await page.waitForFunction(
    ({ id, outputs }) =>
      localStorage.getItem('fuzzbox-demo:/:agent') === id &&
      document.querySelector('#history tr.current') !== null &&
      [...document.querySelectorAll<HTMLElement>('.answer .result b')].map((element) => element.innerText).join('\n') === outputs.join('\n'),
    { id: agent.id, outputs: Object.keys(agent.outputs) },
  );
}

/**
 * Everything the page shows that breaks its layout, in words: an empty list is a clean page.
 * Runs in the page, on the boxes Chromium really laid out.
 */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Box = { left: number; right: number; top: number; bottom: number };
    const problems: string[] = [];
    const overlap = (a: Box, b: Box) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== 'hidden';
    };
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.split(' ')[0]}` : ''} “${(element.textContent ?? '').trim().slice(0, 40)}”`;

    if (document.documentElement.scrollWidth > innerWidth) {
      const wide = [...document.querySelectorAll('body *')].filter((element) => element.getBoundingClientRect().right > innerWidth + 0.5);
      problems.push(
        `the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${innerWidth}, e.g. ${wide.slice(0, 4).map(name).join(', ')}`,
      );
    }

    // Nothing inside a card sticks out of it.
    for (const card of document.querySelectorAll('.card')) {
      if (!visible(card)) continue;
      const edge = card.getBoundingClientRect();
      for (const element of card.querySelectorAll('*')) {
        if (!visible(element) || element.closest('select')) continue;
        const box = element.getBoundingClientRect();
        if (box.right > edge.right + 0.5 || box.left < edge.left - 0.5)
          problems.push(
            `${name(element)} sticks out of its card (${box.left.toFixed(0)}–${box.right.toFixed(0)} in ${edge.left.toFixed(0)}–${edge.right.toFixed(0)})`,
          );
      }
    }

    for (const chart of document.querySelectorAll('svg.chart')) {
      const label = chart.getAttribute('aria-label');
      // No two words on top of each other.
      const texts = [...chart.querySelectorAll('text')].filter(visible);
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          if (overlap(texts[i]!.getBoundingClientRect(), texts[j]!.getBoundingClientRect()))
            problems.push(`${label}: ${name(texts[i]!)} overlaps ${name(texts[j]!)}`);
        }
      }
      // The answer's label covers no shape.
      for (const answer of chart.querySelectorAll('.crisp-label')) {
        for (const shape of chart.querySelectorAll('path')) {
          if (overlap(answer.getBoundingClientRect(), shape.getBoundingClientRect())) problems.push(`${label}: ${name(answer)} covers a shape`);
        }
      }
      // One precision per axis (the axes a chart has: autopilot's has no degrees).
      for (const axis of ['.value-tick', '.degree-tick']) {
        const decimals = new Set([...chart.querySelectorAll(axis)].map((tick) => (tick.textContent!.split('.')[1] ?? '').length));
        if (decimals.size > 1 || (decimals.size === 0 && !chart.matches('.autopilot-chart svg')))
          problems.push(`${label}: the ${axis} labels mix precisions: ${[...chart.querySelectorAll(axis)].map((tick) => tick.textContent).join(' ')}`);
      }
    }

    // Each legend colour sits on the line of its own words, just before them.
    for (const element of document.querySelectorAll('.legend .swatch')) {
      if (!visible(element)) continue;
      const swatch = element.getBoundingClientRect();
      let words = element.nextSibling;
      while (words && (words.nodeType !== Node.TEXT_NODE || words.textContent!.trim() === '')) words = words.nextSibling;
      const range = document.createRange();
      range.selectNodeContents(words!);
      const first = range.getClientRects()[0]!; // where its words start
      const sameLine = Math.abs((swatch.top + swatch.bottom) / 2 - (first.top + first.bottom) / 2) < 6;
      const gap = first.left - swatch.right;
      if (!sameLine || gap < 0 || gap > 12)
        problems.push(`legend: the swatch of “${words!.textContent!.trim()}” is not just before its words (gap ${gap.toFixed(1)} px, same line: ${sameLine})`);
    }
    return problems;
  });
}

/** Names on screen as Chromium renders them (innerText applies CSS text-transform). */
function shownNames(page: Page): Promise<string[]> {
  return page.evaluate(() => [...document.querySelectorAll<HTMLElement>('.slider .name, .answer .result b')].map((element) => element.innerText));
}

describe('the demo as a person sees it', () => {
  for (const screen of screens) {
    it(`${screen.width}×${screen.height}: the sample agent, then an agent with long names, laid out cleanly`, async () => {
      const context = await shared.browser.newContext({ viewport: { width: screen.width, height: screen.height } });
      const page = await openDemo(context);
      expect(await layoutProblems(page)).toEqual([]);
      expect(await shownNames(page)).toEqual(['service', 'food', 'tip']);
      expect(await page.locator('#outputs .value-tick').allTextContents()).toEqual(['0', '10', '20', '30']);
      await screenshot(page, `demo-${screen.width}`);

      const created = await api(page, 'POST', '/agent', longNames);
      expect(created.status).toBe(200);
      await showAgent(page, created.body as { id: string; outputs: Record<string, unknown> });
      expect(await layoutProblems(page)).toEqual([]);
      expect(await shownNames(page)).toEqual(['distance to the customer in km', 'orders already waiting', 'minutes until delivery']);
      // A long set name is cut on the chart, and whole in its tooltip.
      expect(await page.locator('#outputs .set-name title').allTextContents()).toEqual(Object.keys(longNames.outputs['minutes until delivery']));
      await screenshot(page, `demo-long-names-${screen.width}`);
      await context.close();
    }, 120_000);
  }

  for (const screen of screens) {
    it(`${screen.width}×${screen.height}: model files opened (MATLAB's Gaussian tipper, a hedged Takagi–Sugeno .fll), with their control surfaces, laid out cleanly`, async () => {
      const context = await shared.browser.newContext({ viewport: { width: screen.width, height: screen.height } });
      const page = await openDemo(context);
      for (const [file, name] of [
        ['mamdani/matlab/tipper.fis', 'tipper'],
        ['takagi-sugeno/octave/sugeno_tip_calculator.fll', 'sugeno-tip'],
      ] as const) {
        const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Open model file…' }).click()]);
        await chooser.setFiles(join(sharedFolder, 'fuzzylite-examples', file));
        await expect.poll(() => page.textContent('#status'), { timeout: 30_000 }).toMatch(/^Opened “/);
        await waitForAnswer(page);
        // the surface fits its card: its canvas is no wider than the panel's content
        const [canvas, panel] = await page.evaluate(() => [
          document.querySelector('#surface-panel canvas')!.getBoundingClientRect().width,
          document.querySelector('#surface-panel')!.clientWidth,
        ]);
        expect(canvas).toBeGreaterThan(200);
        expect(canvas).toBeLessThanOrEqual(panel!);
        expect(await layoutProblems(page)).toEqual([]);
        await screenshot(page, `demo-model-${name}-${screen.width}`);
        await page.locator('#surface-panel').screenshot({ path: join(root, 'test-output', `demo-surface-${name}-${screen.width}.png`) });
      }
      await context.close();
    }, 120_000);
  }

  it('simulates rated answers for any agent, from its own inputs and outputs', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await openDemo(context);
    const created = await api(page, 'POST', '/agent', longNames);
    await showAgent(page, created.body as { id: string; outputs: Record<string, unknown> });
    const panel = page.locator('#optimize-panel');
    await panel.getByRole('button', { name: /Simulate/ }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/^200 explored evaluations rated by simulated users/);
    await context.close();
  }, 120_000);

  it('after optimizing, says in words what moved and what it does to the answer on screen', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await openDemo(context);
    const before = await page.locator('.answer .crisp').textContent();
    const panel = page.locator('#optimize-panel');
    await panel.getByRole('button', { name: /Simulate/ }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/explored evaluations rated/);
    await panel.getByRole('button', { name: 'Optimize and save' }).click();
    await expect.poll(() => panel.getByRole('status').textContent(), { timeout: 60_000 }).toMatch(/^Saved as a new version/);
    await page.waitForFunction(() => document.querySelectorAll('#history tr').length >= 2);
    const after = await page.locator('.answer .crisp').textContent();

    const explanation = await panel.locator('.explanation p').allTextContents();
    // The answer on screen before and after, as the page itself shows them.
    expect(explanation[0]).toBe(
      `For the inputs on screen (service 6.50, food 7.50), the answer tip ${before === after ? `stays at ${after}` : `goes from ${before} to ${after}`}.`,
    );
    const changes = await panel.locator('table tr').count();
    expect(changes).toBeGreaterThan(1);
    // Every moved set and every reweighted rule is put in words, and why it was done.
    // the rules as they were: their text now ends in the new `WITH weight`
    const versions = (await api(page, 'GET', `/agent/${await page.evaluate(() => localStorage.getItem('fuzzbox-demo:/:agent'))}/version`)).body as Array<{
      id: string;
      createdAt: string;
    }>;
    const first = [...versions].sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]!;
    const rules = (await api(page, 'GET', `/version/${first.id}`)).body as { rules: string[] };
    for (const row of await panel.locator('table tr td:first-child').allTextContents()) {
      const weight = /^rule (\d+)/.exec(row);
      if (weight) expect(explanation.join(' ')).toContain(`Rule ${weight[1]}, “${rules.rules[Number(weight[1]) - 1]}”, now counts`);
      const set = /^(input|output) (\S+) · (\S+) ·/.exec(row);
      if (set) expect(explanation.join(' ')).toContain(`The ${set[1]} set “${set[3]}” of ${set[2]} `);
    }
    expect(explanation.at(-1)).toMatch(/^Why: on the feedback so far, these numbers should raise the mean simulated rating from about [\d.]+ to [\d.]+\./);
    expect(await layoutProblems(page)).toEqual([]);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-optimized-1280');
    await context.close();
  }, 120_000);

  it('after deleting agents: the status and the panel say nothing stale, and the last one stays deleted', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await openDemo(context);
    const second = await api(page, 'POST', '/agent', { ...longNames, name: 'second' });
    await showAgent(page, second.body as { id: string; outputs: Record<string, unknown> });
    // An error in the panel that names this agent, and a status about saving it.
    const panel = page.locator('#optimize-panel');
    await panel.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => panel.getByRole('status').textContent()).not.toBe('');
    await page.click('#editor [name="save"]');
    await expect.poll(() => page.textContent('#status')).toMatch(/^Saved “second”/);

    await page.click('#delete-agent');
    await expect.poll(() => page.textContent('#status')).toBe('Deleted “second”');
    await page.waitForFunction(() => document.querySelector('#history tr.current') !== null);
    expect(await page.locator('#agent-select option').allTextContents()).toEqual(['Tipping advisor']);
    expect(await panel.getByRole('status').textContent()).toBe('');

    await page.click('#delete-agent');
    await expect.poll(() => page.textContent('#status')).toBe('Deleted “Tipping advisor”');
    expect(await page.isVisible('#empty-state')).toBe(true);
    expect(await page.isVisible('#inputs')).toBe(false);
    expect(((await api(page, 'GET', '/agent')).body as unknown[]).length).toBe(0);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'demo-no-agents-390');
    // A reload does not bring the sample back either; the button does.
    await page.reload();
    await page.waitForFunction(() => !document.querySelector<HTMLElement>('#empty-state')!.hidden);
    expect(((await api(page, 'GET', '/agent')).body as unknown[]).length).toBe(0);
    await page.click('#restore-sample');
    await waitForAnswer(page);
    expect(await page.locator('#agent-select option').allTextContents()).toEqual(['Tipping advisor']);
    await context.close();
  }, 120_000);

  it('autopilot on the tipping agent: switched on, fed by simulated diners, proposes and adopts a version, shown with its evidence, a chart and in words; rolls back', async () => {
    const context = await shared.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await openDemo(context);
    const agentID = (await page.evaluate(() => localStorage.getItem('fuzzbox-demo:/:agent')))!;
    const panel = page.locator('#autopilot-panel');
    const status = panel.getByRole('status');
    // the sample agent has no `performance`: the switch names the diners' rating and turns autopilot on
    await panel.getByLabel('Autopilot on').check();
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe('Autopilot is on: it maximises the mean “simulated rating”.');
    expect(((await api(page, 'GET', `/agent/${agentID}`)).body as { performance: unknown }).performance).toEqual({ 'simulated rating': 'maximize' });
    expect(((await api(page, 'GET', `/agent/${agentID}/autopilot`)).body as { active: boolean }).active).toBe(true);

    // diners until autopilot has adopted a version of its own (a proposal, then its trial)
    const adopted = async () =>
      ((await api(page, 'GET', `/agent/${agentID}/autopilot`)).body as { trials: Array<{ outcome: string }> }).trials.some(
        (trial) => trial.outcome === 'adopted',
      );
    for (let round = 0; round < 6 && !(await adopted()); round++) {
      await panel.getByRole('button', { name: /^Send \d+ diners$/ }).click();
      await expect.poll(() => status.textContent(), { timeout: 240_000 }).toMatch(/^\d+ diners rated their answers\.$/);
      // the worker finishes the step the last ratings started
      await page.waitForTimeout(3000);
    }
    expect(await adopted()).toBe(true);
    await panel.getByLabel('Autopilot on').uncheck();
    await expect.poll(() => status.textContent()).toBe('Autopilot is off.');
    await expect
      .poll(() => panel.locator('.autopilot-state').textContent())
      .toMatch(
        /Autopilot is off: answers are the agent’s own, unvaried\. \d+ trials? decided, [1-9]\d* adopted\. Together, its versions rate \S+ (higher|lower) than v\d+ \(95% interval \S+ to \S+\)\./,
      );

    const report = (await api(page, 'GET', `/agent/${agentID}/performance`)).body as { latestVersion: string; versions: Array<{ id: string; origin: string }> };
    const rows = await panel.locator('table.versions tr').allTextContents();
    expect(rows).toHaveLength(report.versions.length + 1);
    // the newest version first: what it is, why it exists, its ratings
    const adoptedRow = rows.find((row) =>
      /proposed by autopilot: learnt from \d+ rated answers; expected gain [\d.–-]+ \(95%: [\d.–-]+ to [\d.–-]+\); adopted: on trial it earned [\d.]+ against [\d.]+/.test(
        row,
      ),
    );
    expect(adoptedRow, rows.join('\n')).toBeDefined();
    expect(rows.at(-1)).toMatch(/^v1.*made by hand/);
    // the chart: one line per version with ratings, on one time axis
    const chart = panel.locator('svg.chart');
    expect(await chart.getAttribute('aria-label')).toBe('mean simulated rating per version over time');
    expect(await chart.locator('.version-line').count()).toBeGreaterThanOrEqual(2);
    // in words: what moved, for the inputs on screen, and why it was adopted
    const words = await panel.locator('.explanation p').allTextContents();
    expect(await panel.locator('.explanation h3').textContent()).toMatch(/^What autopilot changed in v\d+, adopted over v\d+$/);
    expect(words[0]).toMatch(/^For the inputs on screen \(service 6\.50, food 7\.50\), the answer tip (goes from [\d.]+ to [\d.]+|stays at [\d.]+)\.$/);
    expect(words.at(-1)).toMatch(
      /^On trial, answers by v\d+ were rated [\d.]+ on average against [\d.]+ for v\d+ \(\d+ and \d+ ratings\): clearly better, so it became the agent’s version\.$/,
    );
    expect(await layoutProblems(page)).toEqual([]);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'demo-autopilot-1280');
    await panel.screenshot({ path: join(root, 'test-output', 'demo-autopilot-panel-1280.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'demo-autopilot-390');
    await panel.screenshot({ path: join(root, 'test-output', 'demo-autopilot-panel-390.png') });

    // back to the first version: a new latest version that copies it, said in words and in the table
    await panel.locator('table.versions tr', { hasText: /^v1/ }).getByRole('button', { name: 'Roll back' }).click();
    // v1 is the sample as written, without a goal: the panel says what that means
    await expect
      .poll(() => status.textContent())
      .toBe(
        'Rolled back: the agent answers with v1’s definition again, as a new version. v1 has no goal (performance), so autopilot stopped and ratings are not summarised until it has one: switch autopilot on to give it one again.',
      );
    const after = (await api(page, 'GET', `/agent/${agentID}/performance`)).body as {
      latestVersion: string;
      versions: Array<{ id: string; origin: string; evidence: { to: string } }>;
    };
    const version = after.versions.find((v) => v.id === after.latestVersion)!;
    expect(version.origin).toBe('rolled back');
    expect(version.evidence.to).toBe(report.versions[0]!.id);
    await expect.poll(async () => (await panel.locator('table.versions tr').nth(1).textContent()) ?? '').toMatch(/^v\d+ \(in use\).*rolled back: back to v1/);
    await context.close();
  }, 1_200_000);
});
