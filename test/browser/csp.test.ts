// The generated rule loop (src/engine/generated.ts) in the real service worker: without a
// Content-Security-Policy the worker writes an agent's rules out as code after 64 evaluations;
// under a policy without 'unsafe-eval' (the worker script served with it, as a strict app would)
// new Function is refused there and every evaluation runs on the loops. Either way, every answer is
// the very number the engine gives in Node for the same inputs.
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import { tipperDefinition } from '../engine/tipper.js';
import { useChromium } from './chromium.js';
import { callFromPage, startFixtureServer } from './harness.js';

const shared = useChromium(startFixtureServer);
const tipper = compileAgent(tipperDefinition);

/** 150 inputs over the tipper's grid and beyond its ranges. */
const inputs = Array.from({ length: 150 }, (_, k) => ({ service: ((k * 37) % 130) / 10 - 1, food: ((k * 53) % 110) / 10 }));

async function controlledPage(context: BrowserContext): Promise<{ page: Page; worker: Worker }> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
  const workerStarted = context.serviceWorkers()[0] ? Promise.resolve(context.serviceWorkers()[0]!) : context.waitForEvent('serviceworker');
  await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js'));
  return { page, worker: await workerStarted };
}

/** Every answer of 150 evaluations through the worker, beside the engine's in Node, compared with Object.is. */
async function expectAnswersAsInNode(page: Page): Promise<void> {
  const account = await callFromPage(page, 'POST', '/account', { name: 'csp' });
  const key: string = account.body.apiKey;
  const agent = await callFromPage(page, 'POST', '/agent', { name: 'tipper', ...tipperDefinition }, key);
  expect(agent.status).toBe(200);
  const answers: Array<{ status: number; tip: number }> = await page.evaluate(
    async ({ id, key, inputs }) => {
      const replies = [];
      for (const item of inputs) {
        const response = await fetch(`/agent/${id}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(item),
        });
        replies.push({ status: response.status, tip: (await response.json()).tip });
      }
      return replies;
    },
    { id: agent.body.id as string, key, inputs },
  );
  answers.forEach((answer, k) => {
    expect(answer.status).toBe(200);
    const expected = evaluate(tipper, inputs[k]!).crisp.tip;
    if (!Object.is(answer.tip, expected)) expect.fail(`inputs ${JSON.stringify(inputs[k])}: the worker answered ${answer.tip}, the engine ${expected}`);
  });
}

/** Whether the worker's global may make code from text (DevTools' own evaluation is exempt from a policy, so only where none applies). */
const makesCode = (worker: Worker) =>
  worker.evaluate(() => {
    try {
      return new Function('return 1')() === 1;
    } catch {
      return false;
    }
  });

/** The policy's reports of code made from text, which the browser posts to /csp-report. */
const evalReports = () => shared.server.posted.filter(({ path, body }) => path === '/csp-report' && body.includes('"eval"'));

describe('the generated rule loop in the service worker', () => {
  it('is made where the worker may make code, and answers as the engine does in Node', async () => {
    const context = await shared.browser.newContext();
    const { page, worker } = await controlledPage(context);
    expect(await makesCode(worker)).toBe(true);
    await expectAnswersAsInNode(page);
    expect(evalReports()).toEqual([]);
    await context.close();
  });

  // after the first test: from here on the worker script is served under the policy
  it("under a Content-Security-Policy without 'unsafe-eval' the loops answer, the same numbers", async () => {
    shared.server.addHeaders('/fuzzbox-sw.js', { 'Content-Security-Policy': "script-src 'self'; report-uri /csp-report" });
    const context = await shared.browser.newContext();
    const { page } = await controlledPage(context);
    await expectAnswersAsInNode(page);
    // the worker's own attempt, at its 64th evaluation, was refused by the policy: once
    await expect.poll(() => evalReports().length, { timeout: 10_000 }).toBe(1);
    expect(JSON.parse(evalReports()[0]!.body)['csp-report']).toMatchObject({ 'blocked-uri': 'eval', 'violated-directive': 'script-src' });
    await context.close();
  });
});
