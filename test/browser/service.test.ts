// The REST interface answered by the worker in a real Chromium: plain fetch() from the page,
// never reaching the network, with data that outlives reloads, tabs, the network and updates.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useChromium } from './chromium.js';
import { fanAgent, fanAt12, fanAt15 } from './fan-agent.js';
import { callFromPage, startFixtureServer } from './harness.js';

const shared = useChromium(startFixtureServer);

const call = callFromPage;

async function openControlled(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
  await page.evaluate(async () => {
    await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', {
      onUpdate: (update) => Object.assign(window, { pendingUpdate: update }),
    });
  });
  return page;
}

/** A page controlled by the worker at `scriptURL`, whose query carries the worker's options. */
async function openWithWorker(context: BrowserContext, scriptURL: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${shared.server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
  await page.evaluate((url) => window.fuzzbox.registerFuzzyWorker(url), scriptURL);
  return page;
}

/** An account with the fan agent and one evaluation at 12° with feedback. */
async function seed(page: Page) {
  const account = await call(page, 'POST', '/account', { name: 'browser test' });
  expect(account.status).toBe(200);
  const key: string = account.body.apiKey;
  const agent = await call(page, 'POST', '/agent', fanAgent, key);
  expect(agent.status).toBe(200);
  const evaluation = await call(page, 'POST', `/agent/${agent.body.id}`, { temperature: 12 }, key);
  expect(evaluation.status).toBe(200);
  const feedback = await call(page, 'POST', `/evaluation/${evaluation.evaluationID}/feedback`, { data: { stars: 4 } }, key);
  expect(feedback.status).toBe(200);
  return { key, agentID: agent.body.id as string, evaluationID: evaluation.evaluationID!, feedbackID: feedback.body.id as string };
}

/** Everything `seed` wrote, read back through the worker. */
async function expectSeeded(page: Page, seeded: Awaited<ReturnType<typeof seed>>): Promise<void> {
  const agents = await call(page, 'GET', '/agent', undefined, seeded.key);
  expect(agents.body).toEqual([{ id: seeded.agentID, name: 'fan' }]);
  const log = await call(page, 'GET', `/evaluation/${seeded.evaluationID}`, undefined, seeded.key);
  expect(log.status).toBe(200);
  expect(log.body.crisp.fan).toBeCloseTo(fanAt12, 9);
  const feedback = await call(page, 'GET', `/evaluation/${seeded.evaluationID}/feedback`, undefined, seeded.key);
  expect(feedback.body.map((item: { id: string; data: unknown }) => [item.id, item.data])).toEqual([[seeded.feedbackID, { stars: 4 }]]);
}

const apiRequests = () => shared.server.requests.filter((path) => /^\/(agent|version|evaluation|account)\b/.test(path));

describe('the REST interface in the worker', () => {
  it('first load: registration, control, then create → evaluate → log → feedback, all answered by the worker', async () => {
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const before = apiRequests().length;

    const { key, agentID, evaluationID } = await seed(page);
    const log = await call(page, 'GET', `/evaluation/${evaluationID}`, undefined, key);
    expect(log.body).toMatchObject({ reqID: evaluationID, agentID, input: { temperature: 12 } });
    expect(log.body.fuzzified.temperature.cold).toBeCloseTo(0.8, 12);
    expect(log.body.fuzzified.temperature.hot).toBeCloseTo(0.2, 12);
    expect(log.body.crisp.fan).toBeCloseTo(fanAt12, 9);
    expect(log.body.centroid.fan[0]).toBeCloseTo(fanAt12, 9);

    const unauthorised = await call(page, 'GET', '/agent');
    expect(unauthorised.status).toBe(401);
    const invalid = await call(page, 'POST', '/agent', { ...fanAgent, rules: ['IF temperature IS warm THEN fan IS slow'] }, key);
    expect(invalid.status).toBe(400);
    expect(invalid.body.status).toBe('error');

    // Not one of those requests reached the network.
    expect(apiRequests().length).toBe(before);
    await context.close();
  });

  it('keeps the data after a reload and after closing and reopening the page', async () => {
    const context = await shared.browser.newContext();
    let page = await openControlled(context);
    const seeded = await seed(page);

    await page.reload();
    await page.waitForFunction(() => 'fuzzbox' in window);
    await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js'));
    await expectSeeded(page, seeded);

    await page.close();
    page = await openControlled(context);
    await expectSeeded(page, seeded);
    await context.close();
  });

  it('loses nothing when the browser stops the worker', async () => {
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const seeded = await seed(page);
    const cdp = await context.newCDPSession(page);
    const states: string[] = [];
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => states.push(...versions.map((version) => version.runningStatus)));
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await expect.poll(() => states.at(-1)).toBe('stopped');
    // The next request starts a fresh worker: no service object, no caches, only IndexedDB.
    await expectSeeded(page, seeded);
    const again = await call(page, 'POST', `/agent/${seeded.agentID}`, { temperature: 15 }, seeded.key);
    expect(again.body.fan).toBeCloseTo(fanAt15, 9);
    await expect.poll(() => states.at(-1)).toBe('running');
    await context.close();
  });

  it('answers with the network off', async () => {
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const seeded = await seed(page);
    await context.setOffline(true);
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);

    await expectSeeded(page, seeded);
    const evaluation = await call(page, 'POST', `/agent/${seeded.agentID}`, [{ temperature: 12 }, { temperature: 15 }], seeded.key);
    expect(evaluation.status).toBe(200);
    expect(evaluation.body[0].fan).toBeCloseTo(fanAt12, 9);
    expect(evaluation.body[1].fan).toBeCloseTo(fanAt15, 9);
    expect(evaluation.evaluationID!.split(',')).toHaveLength(2);
    await context.setOffline(false);
    await context.close();
  });

  it('shows an agent created in one tab in another', async () => {
    const context = await shared.browser.newContext();
    const [first, second] = await Promise.all([openControlled(context), openControlled(context)]);
    const key = (await call(first, 'POST', '/account', {})).body.apiKey as string;
    expect((await call(second, 'GET', '/agent', undefined, key)).body).toEqual([]);

    const created = await call(first, 'POST', '/agent', fanAgent, key);
    expect((await call(second, 'GET', '/agent', undefined, key)).body).toEqual([{ id: created.body.id, name: 'fan' }]);
    const evaluated = await call(second, 'POST', `/agent/${created.body.id}`, { temperature: 12 }, key);
    expect((await call(first, 'GET', `/evaluation/${evaluated.evaluationID}`, undefined, key)).body.crisp.fan).toBeCloseTo(fanAt12, 9);
    await context.close();
  });

  it('answers only the service paths under its basePath and leaves every other request to the network', async () => {
    const context = await shared.browser.newContext();
    const page = await openWithWorker(context, '/fuzzbox-sw.js?basePath=/api/');
    const before = shared.server.requests.length;

    const about = await call(page, 'GET', '/api/version');
    expect(about.status).toBe(200);
    expect(about.body.name).toEqual(expect.any(String));
    const unknown = await call(page, 'GET', '/api/no-such-thing').catch((error: Error) => error.message);
    expect(shared.server.requests.slice(before)).toEqual(['/api/no-such-thing']);
    expect(unknown).toMatch(/JSON/); // the static server's plain-text 404, not the worker's
    const outside = await page.evaluate(async () => (await fetch('/agent')).status);
    expect(outside).toBe(404);
    expect(shared.server.requests.slice(before)).toEqual(['/api/no-such-thing', '/agent']);
    await context.close();
  });

  it('reads basePath "" as "/", as the service does', async () => {
    const context = await shared.browser.newContext();
    const page = await openWithWorker(context, '/fuzzbox-sw.js?basePath=');
    const before = shared.server.requests.length;
    const about = await call(page, 'GET', '/version');
    expect(about.status).toBe(200);
    expect(about.body.name).toBe('fuzzbox');
    expect(shared.server.requests.slice(before)).toEqual([]);
    await context.close();
  });

  it("answers its own failures (here a service it cannot create) with the error vocabulary's 500", async () => {
    const context = await shared.browser.newContext();
    const page = await openWithWorker(context, '/fuzzbox-sw.js?keepDays=soon');
    const before = shared.server.requests.length;
    const failed = await call(page, 'GET', '/version');
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ status: 'error', error: 'InternalError', message: expect.stringMatching(/retention/) });
    expect(shared.server.requests.slice(before)).toEqual([]);
    await context.close();
  });

  it("leaves navigations to the network even at service paths, so the app's own pages still load", async () => {
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const response = await page.goto(`${shared.server.origin}/account`);
    // The static server's own 404 page, not the worker's JSON 405 for GET /account.
    expect(response!.status()).toBe(404);
    expect(await page.textContent('body')).toBe('not found');
    expect(shared.server.requests.at(-1)).toBe('/account');
    await context.close();
  });

  it('keeps every record when an updated worker takes over', async () => {
    const context = await shared.browser.newContext();
    const page = await openControlled(context);
    const seeded = await seed(page);
    const oldWorker = await page.evaluate(() => navigator.serviceWorker.controller!.scriptURL);

    // A new build of the worker: different bytes at the same URL.
    shared.server.rewrite('/fuzzbox-sw.js', (body) => Buffer.concat([body, Buffer.from(`\n// build ${Date.now()}\n`)]));
    await page.evaluate(async () => {
      Object.assign(window, { workerBeforeUpdate: navigator.serviceWorker.controller });
      await (await navigator.serviceWorker.getRegistration())!.update();
    });
    // registerFuzzyWorker's onUpdate (see openControlled) keeps the announced update on window.
    await page.waitForFunction(() => 'pendingUpdate' in window);
    const switched = await page.evaluate(async () => {
      const { pendingUpdate, workerBeforeUpdate } = window as unknown as {
        pendingUpdate: { activate(): Promise<void> };
        workerBeforeUpdate: ServiceWorker;
      };
      await pendingUpdate.activate();
      return navigator.serviceWorker.controller !== workerBeforeUpdate && navigator.serviceWorker.controller !== null;
    });
    expect(switched).toBe(true);
    expect(await page.evaluate(() => navigator.serviceWorker.controller!.scriptURL)).toBe(oldWorker);

    await expectSeeded(page, seeded);
    await page.reload();
    await page.waitForFunction(() => 'fuzzbox' in window);
    await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js'));
    await expectSeeded(page, seeded);
    await context.close();
  });
});
