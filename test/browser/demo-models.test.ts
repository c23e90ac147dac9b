// Model files people already have, opened in the demo as a person would (Chromium, 1280×900): a
// MATLAB .fis with Gaussian sets through the "Open model file…" button, a fuzzylite .fll with
// hedges and Takagi–Sugeno outputs dropped onto the page, files it cannot hold, and the control
// surface of each, whose every value checked here is the engine's own answer for that point,
// computed in Node from the agent the service stored.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { formatNumber } from '../../demo/draw.js';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import type { Agent } from '../../src/schema/index.js';
import { sharedFolder, sharedText } from '../support/shared.js';
import { useChromium } from './chromium.js';
import { demoApi } from './demo-api.js';
import { requireBuild, startStaticServer } from './harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

const examples = 'fuzzylite-examples';

interface ShownSurface {
  output: string;
  x: { name: string; values: number[] };
  y?: { name: string; values: number[] };
  held: Record<string, number>;
  values: Array<number | null>;
}

/** The demo in a fresh browser context of this size, once it shows the sample agent's answer. */
async function openDemo(width: number, height: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await shared.browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.waitForFunction(() => document.querySelector('#history tr.current') !== null && document.querySelector('#outputs svg') !== null);
  return { context, page };
}

/** Waits until the page says it opened the file and shows the agent's answer. */
async function waitForOpened(page: Page, file: string): Promise<Agent> {
  const name = file.split('/').at(-1)!;
  await expect.poll(() => page.textContent('#status'), { timeout: 30_000 }).toMatch(new RegExp(`^Opened “.+” from ${name.replace('.', '\\.')}$`));
  const id = await page.evaluate(() => localStorage.getItem('fuzzbox-demo:/:agent'));
  await page.waitForFunction(() => document.querySelector('#history tr.current') !== null);
  return (await demoApi<Agent>(page, 'GET', `/agent/${id}`)).body;
}

/** "Open model file…", then the file chosen in the browser's file chooser. */
async function openWithButton(page: Page, file: string): Promise<void> {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Open model file…' }).click()]);
  await chooser.setFiles(join(sharedFolder, examples, file));
}

/** Drags a file over the page and drops it; whether the page showed where to drop it while dragging. */
function dropFile(page: Page, name: string, text: string): Promise<boolean> {
  return page.evaluate(
    ({ name, text }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], name));
      const fire = (type: string) => document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
      fire('dragenter');
      fire('dragover');
      const overlay = document.querySelector<HTMLElement>('.drop-overlay')!;
      const shown = getComputedStyle(overlay).display !== 'none' && overlay.textContent!.includes('.fis, .fll or .fcl');
      fire('drop');
      return shown && getComputedStyle(overlay).display === 'none';
    },
    { name, text },
  );
}

/** The surface on screen, once it is whole (the page computes it in slices). */
async function shownSurface(page: Page): Promise<ShownSurface> {
  await page.waitForFunction(() => document.querySelector<HTMLCanvasElement>('#surface-panel canvas')?.dataset.surface !== undefined);
  return page.evaluate(() => JSON.parse(document.querySelector<HTMLCanvasElement>('#surface-panel canvas')!.dataset.surface!));
}

/** The grid points checked: the corners, the middle and some spread between, by fixed strides. */
function samplePoints(columns: number, rows: number): Array<[number, number]> {
  const points: Array<[number, number]> = [
    [0, 0],
    [columns - 1, 0],
    [0, rows - 1],
    [columns - 1, rows - 1],
    [columns >> 1, rows >> 1],
  ];
  for (let k = 0; k < 6; k++) points.push([(k * 7 + 3) % columns, (k * 13 + 5) % rows]);
  return points;
}

/** Every sampled value of the surface on screen is the engine's answer at its point; returns how many had one. */
function expectEngineValues(surface: ShownSurface, agent: Agent): number {
  const compiled = compileAgent(agent);
  const columns = surface.x.values.length;
  const rows = surface.y?.values.length ?? 1;
  expect(surface.values).toHaveLength(columns * rows);
  let answered = 0;
  for (const [i, j] of samplePoints(columns, rows)) {
    const inputs = { ...surface.held, [surface.x.name]: surface.x.values[i]!, ...(surface.y ? { [surface.y.name]: surface.y.values[j]! } : {}) };
    expect(Object.keys(inputs).sort()).toEqual(Object.keys(agent.inputs).sort());
    const expected = evaluate(compiled, inputs).crisp[surface.output];
    const shown = surface.values[j * columns + i];
    if (expected === undefined) expect(shown).toBeNull();
    else {
      expect(shown).toBeCloseTo(expected, 9);
      answered++;
    }
  }
  return answered;
}

/** Distinct colours painted on the surface's canvas. */
const paintedColours = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('#surface-panel canvas')!;
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    const colours = new Set<number>();
    for (let k = 0; k < data.length; k += 4) colours.add((data[k]! << 16) | (data[k + 1]! << 8) | data[k + 2]!);
    return colours.size;
  });

describe('model files in the demo', () => {
  it('MATLAB’s tipper.fis through the button: Gaussian sets drawn through their peaks, and its control surface equal to the engine’s answers', async () => {
    const { context, page } = await openDemo(1280, 900);
    await openWithButton(page, 'mamdani/matlab/tipper.fis');
    const agent = await waitForOpened(page, 'tipper.fis');
    expect(agent.name).toBe('tipper');
    expect(agent.inputs.service!.good).toEqual({ type: 'gaussian', mean: 5, standardDeviation: 1.5 });
    expect(await page.locator('#agent-select option:checked').textContent()).toBe('tipper');

    // "good" (the second colour), a Gaussian, is a dense curve through degree 1 at its mean
    const good = await page.evaluate(() => {
      const chart = document.querySelector('#inputs figure[data-input="service"] svg')!;
      const path = chart.querySelector<SVGPathElement>('path[stroke="#2a9d8f"]')!;
      const ys = [...path.getAttribute('d')!.matchAll(/[ML][\d.-]+,([\d.-]+)/g)].map((match) => Number(match[1]));
      const lines = [...chart.querySelectorAll('line.grid')].map((line) => Number(line.getAttribute('y1')));
      return { vertices: ys.length, top: Math.min(...ys), degreeOne: Math.min(...lines) };
    });
    expect(good.vertices).toBeGreaterThan(30);
    expect(good.top).toBeCloseTo(good.degreeOne, 1);

    const surface = await shownSurface(page);
    expect([surface.output, surface.x.name, surface.y?.name]).toEqual(['tip', 'service', 'food']);
    expect(surface.x.values).toHaveLength(41);
    expect(expectEngineValues(surface, agent)).toBeGreaterThan(0);
    expect(await paintedColours(page)).toBeGreaterThan(100);

    // pointing at a grid point reads its value
    const plot = await page.evaluate(() => JSON.parse(document.querySelector<HTMLCanvasElement>('#surface-panel canvas')!.dataset.plot!));
    await page.locator('#surface-panel canvas').scrollIntoViewIfNeeded();
    const box = (await page.locator('#surface-panel canvas').boundingBox())!;
    const [i, j] = [10, 30];
    const [x, y] = [box.x + plot.left + ((plot.right - plot.left) * i) / 40, box.y + plot.bottom - ((plot.bottom - plot.top) * j) / 40];
    await page.mouse.move(x, y);
    expect(await page.textContent('.surface-readout')).toBe(
      `service ${formatNumber(surface.x.values[i]!)}, food ${formatNumber(surface.y!.values[j]!)} → tip ${formatNumber(surface.values[j * 41 + i]!)}`,
    );

    // a click there evaluates there: the sliders move to the point, the worker stores its answer
    await page.mouse.click(x, y);
    await expect.poll(() => page.inputValue('#inputs figure[data-input="service"] input')).toBe(String(surface.x.values[i]));
    expect(await page.inputValue('#inputs figure[data-input="food"] input')).toBe(String(surface.y!.values[j]));
    const stored = async () => {
      const { evaluations } = (
        await demoApi<{ evaluations: Array<{ input: Record<string, number>; crisp: Record<string, number> }> }>(
          page,
          'GET',
          `/agent/${agent.id}/evaluation?limit=1`,
        )
      ).body;
      return evaluations[0]!;
    };
    await expect.poll(async () => (await stored()).input).toEqual({ service: surface.x.values[i], food: surface.y!.values[j] });
    expect((await stored()).crisp.tip).toBeCloseTo(surface.values[j * 41 + i]!, 9);
    await expect.poll(() => page.textContent('.answer .crisp')).toBe(formatNumber(surface.values[j * 41 + i]!));

    // across and up swapped: food across, service up, the same engine answers
    await page.selectOption('#surface-panel [data-choice="x"]', 'food');
    const swapped = await shownSurface(page);
    expect([swapped.x.name, swapped.y?.name]).toEqual(['food', 'service']);
    expectEngineValues(swapped, agent);
    await context.close();
  }, 120_000);

  it('a dropped .fll with hedges and Takagi–Sugeno outputs, a linear ANFIS model, and files it cannot hold', async () => {
    const { context, page } = await openDemo(1280, 900);
    const file = 'takagi-sugeno/octave/sugeno_tip_calculator.fll';
    expect(await dropFile(page, 'sugeno_tip_calculator.fll', sharedText(join(examples, file)))).toBe(true);
    const agent = await waitForOpened(page, file);

    // the hedges as the rules are written, marked
    const hedges = await page.locator('#rules .hedge').allTextContents();
    expect(new Set(hedges)).toEqual(new Set(['extremely', 'very', 'very very']));
    expect(await page.locator('#rules li').first().locator('code').textContent()).toBe(agent.rules[0]);
    expect(await page.textContent('#rules-hint')).toMatch(/Hedges: .*very squares a degree/);

    // each output's reached constants are bars at their values, and the answer is their weighted mean
    const evaluation = (await demoApi<{ evaluations: Array<{ reqID: string }> }>(page, 'GET', `/agent/${agent.id}/evaluation?limit=1`)).body.evaluations[0]!;
    const log = (
      await demoApi<{ crisp: Record<string, number>; clipped: Record<string, Record<string, Array<[number, number]>>> }>(
        page,
        'GET',
        `/evaluation/${evaluation.reqID}`,
      )
    ).body;
    const cheap = page.locator('#outputs figure').first();
    expect(await cheap.locator('.bar').count()).toBe(Object.keys(log.clipped.CheapTip!).length);
    expect(await cheap.locator('.stem').count()).toBe(3);
    const bars = Object.values(log.clipped.CheapTip!);
    const mean = bars.reduce((sum, bar) => sum + bar[1]![1] * bar[0]![0], 0) / bars.reduce((sum, bar) => sum + bar[1]![1], 0);
    expect(mean).toBeCloseTo(log.crisp.CheapTip!, 12);
    expect(await page.locator('.answer .why').first().textContent()).toMatch(
      new RegExp(`CheapTip is their weighted mean, Σ weight × value ÷ Σ weight = ${formatNumber(log.crisp.CheapTip!)}\\.$`),
    );
    expect(await page.isVisible('#values-legend')).toBe(true);
    expect(await page.isVisible('#shapes-legend')).toBe(false);

    // the surface of each output is the engine's
    expectEngineValues(await shownSurface(page), agent);
    await page.selectOption('#surface-panel [data-choice="output"]', 'GenerousTip');
    const generous = await shownSurface(page);
    expect(generous.output).toBe('GenerousTip');
    expectEngineValues(generous, agent);

    // MATLAB's ANFIS model: 49 linear terms listed with their formulas
    await openWithButton(page, 'takagi-sugeno/matlab/invkine1.fis');
    const anfis = await waitForOpened(page, 'invkine1.fis');
    expect(await page.textContent('.linear-terms summary')).toBe('49 linear terms: a value computed from the inputs, drawn where it falls');
    expect(await page.locator('.linear-terms li').first().textContent()).toMatch(
      /^out1mf1 = −0\.912·input1 \+ 2\.517·input2 \+ 0\.061 = -?[\d.]+ here \(weight [\d.]+\)$/,
    );
    expectEngineValues(await shownSurface(page), anfis);

    // what fuzzbox cannot hold: said with its line and construct, and nothing is stored
    const before = ((await demoApi<unknown[]>(page, 'GET', '/agent')).body as unknown[]).length;
    await openWithButton(page, 'mamdani/SimpleDimmerChained.fis');
    await expect
      .poll(() => page.textContent('#open-error'))
      .toMatch(/^SimpleDimmerChained\.fis could not be opened: .*line \d+: a rule needs a condition and a conclusion \(a FIS row cannot name an output/);
    expect(await dropFile(page, 'notes.txt', 'just some notes')).toBe(true);
    await expect
      .poll(() => page.textContent('#open-error'))
      .toBe('notes.txt is not a model file fuzzbox reads: open a .fis (MATLAB, Octave), .fll (fuzzylite) or .fcl file.');
    expect(((await demoApi<unknown[]>(page, 'GET', '/agent')).body as unknown[]).length).toBe(before);
    await context.close();
  }, 120_000);

  it('four inputs: two held at sliders; a hybrid model; a slow one computed in slices; one input: the output’s curve', async () => {
    const { context, page } = await openDemo(390, 844);
    await openWithButton(page, 'takagi-sugeno/matlab/slbb.fis');
    const agent = await waitForOpened(page, 'slbb.fis');
    expect(await page.locator('.held .name').allTextContents()).toEqual(['in3 held at', 'in4 held at']);
    const middle = (await shownSurface(page)).held.in3!;
    const slider = page.getByLabel('in3 held at');
    await slider.focus();
    for (let k = 0; k < 20; k++) await slider.press('ArrowRight');
    await expect.poll(async () => (await shownSurface(page)).held.in3).not.toBe(middle);
    const moved = await shownSurface(page);
    expect(moved.held.in3).toBeCloseTo(Number(await slider.inputValue()), 12);
    expectEngineValues(moved, agent);

    // a hybrid model: a Mamdani output and a Takagi–Sugeno one, each with its legend
    await openWithButton(page, 'hybrid/tipper.fis');
    const hybrid = await waitForOpened(page, 'tipper.fis');
    expect(await page.isVisible('#shapes-legend')).toBe(true);
    expect(await page.isVisible('#values-legend')).toBe(true);
    await page.selectOption('#surface-panel [data-choice="output"]', 'tsTip');
    expectEngineValues(await shownSurface(page), hybrid);

    // a model slow to evaluate (about a second for its 1,681 integrals): its surface comes in
    // slices, each drawn as it is done, so the page keeps answering
    await page.evaluate(() => {
      const notes: string[] = [];
      Object.assign(window, { surfaceNotes: notes });
      const note = document.querySelector('.surface-note')!;
      new MutationObserver(() => notes.push(note.textContent!)).observe(note, { childList: true, characterData: true, subtree: true });
    });
    await openWithButton(page, 'mamdani/octave/investment_portfolio.fis');
    const portfolio = await waitForOpened(page, 'investment_portfolio.fis');
    expectEngineValues(await shownSurface(page), portfolio);
    const notes = (await page.evaluate(() => (window as unknown as { surfaceNotes: string[] }).surfaceNotes)).filter((text) => text !== '');
    expect(notes.at(-1)).toMatch(/^41 × 41 = 1,681 points, each an evaluation by the engine in this page: [\d.]+ ms\.$/);
    expect(
      notes.some((text) => /^Computing… \d+% of 1,681 points$/.test(text)),
      notes.join('\n'),
    ).toBe(true);

    await openWithButton(page, 'mamdani/SimpleDimmer.fis');
    const dimmer = await waitForOpened(page, 'SimpleDimmer.fis');
    expect(await page.isVisible('#surface-panel [data-choice="y"]')).toBe(false);
    const curve = await shownSurface(page);
    expect(curve.y).toBeUndefined();
    expect(curve.values).toHaveLength(201);
    expect(expectEngineValues(curve, dimmer)).toBeGreaterThan(0);
    await context.close();
  }, 120_000);
});
