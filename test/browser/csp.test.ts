// The service worker under a strict Content-Security-Policy, as an app that forbids 'unsafe-eval'
// serves it: code made from text is refused there (zod's validators probe for it once; the engine
// writes rule loops out only for agents evaluated directly, which the service does not do — it
// answers on the trace, which always runs the loops), and the service must work all the same,
// every answer the very number the engine gives in Node for the same inputs.
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

/** Whether the worker's global may make code from text (asked through DevTools, whose own evaluation a policy does not bind: so only where none applies). */
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

describe('the service worker and a Content-Security-Policy', () => {
  it('without a policy: code may be made from text, and every answer is the engine’s number', async () => {
    const context = await shared.browser.newContext();
    const { page, worker } = await controlledPage(context);
    expect(await makesCode(worker)).toBe(true);
    await expectAnswersAsInNode(page);
    expect(evalReports()).toEqual([]);
    await context.close();
  });

  // after the first test: from here on the worker script is served under the policy
  it("under a policy without 'unsafe-eval': the attempts to make code are refused and reported, and every answer is the same number", async () => {
    shared.server.addHeaders('/fuzzbox-sw.js', { 'Content-Security-Policy': "script-src 'self'; report-uri /csp-report" });
    const context = await shared.browser.newContext();
    const { page } = await controlledPage(context);
    await expectAnswersAsInNode(page);
    // the policy held in the worker: what tried to make code from text was refused, and said so
    await expect.poll(() => evalReports().length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(JSON.parse(evalReports()[0]!.body)['csp-report']).toMatchObject({ 'blocked-uri': 'eval', 'violated-directive': 'script-src' });
    await context.close();
  });
});
