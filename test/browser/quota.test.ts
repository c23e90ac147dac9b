// A full disk is not a dead end: in real Chromium with a persistent profile (IndexedDB on disk) and
// the origin's quota lowered through DevTools, and in Firefox ESR started with a storage limit, the
// service fills up to 507, then frees space through its own API (deleting an agent and erasing
// evaluation logs work on the full disk) and carries on. WebKitWebDriver cannot lower WebKit's quota.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { engines, fetchInPage, type PageReply } from './engines.js';
import { fanAgent } from './fan-agent.js';
import { callFromPage, chromiumArgs, chromiumPath, startFixtureServer, type StaticServer } from './harness.js';

let server: StaticServer;
let context: BrowserContext;
let profile: string;
beforeAll(async () => {
  server = await startFixtureServer();
  profile = mkdtempSync(join(tmpdir(), 'fuzzbox-quota-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), headless: true, args: chromiumArgs });
});
afterAll(async () => {
  await context?.close();
  await server?.close();
  rmSync(profile, { recursive: true, force: true });
});

/** The ids of a request's evaluations, in order (a batch's are comma-separated). */
const idsOf = (reply: PageReply) => (reply.evaluationID ?? '').split(',').filter(Boolean);

test('Chromium: fill the quota to 507; on the full disk an agent is deleted and evaluation logs are erased through the API; then evaluations are stored again', {
  timeout: 240_000,
}, async () => {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
  // The origin may hold 3 MB (the worker's script takes 0.35): DevTools overrides the quota Chromium
  // enforces. Set before the worker opens its database: IndexedDB remembers the room it had when a
  // connection asked, so an override after that shows only once the room remembered is used up.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: server.origin, quotaSize: 3_000_000 });
  await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js'));
  await fullDisk((method, path, body, key) => callFromPage(page, method, path, body, key));
});

const firefox = engines.find((engine) => engine.name === 'firefox')!;
test("Firefox ESR with every origin's storage limited to 3 MB: the same", { timeout: 240_000 }, async () => {
  const session = await firefox.launch(undefined, { storageLimit: 3_000_000 });
  try {
    const page = await session.newPage();
    await page.goto(`${server.origin}/`);
    await page.waitFor(() => 'fuzzbox' in window);
    await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js').then(() => undefined));
    await fullDisk((method, path, body, key) => fetchInPage(page, method, path, body, key));
  } finally {
    await session.close();
  }
});

type Call = (method: string, path: string, body?: unknown, key?: string) => Promise<PageReply>;

/** Fills the origin's storage through the worker until a write answers 507, frees space through the API, and writes again. */
async function fullDisk(call: Call) {
  const key: string = (await call('POST', '/account', { name: 'full disk' })).body.apiKey;
  const kept = (await call('POST', '/agent', fanAgent, key)).body.id as string;
  const spare = (await call('POST', '/agent', { ...fanAgent, name: 'spare' }, key)).body.id as string;
  expect((await call('POST', `/agent/${kept}`, { temperature: 12 }, key)).status).toBe(200);

  // fill, as an app would: batches of 64 and single evaluations, until one is refused
  const singles: string[] = [];
  const batches: string[] = [];
  let refused: PageReply | undefined;
  for (let round = 0; round < 2_000 && !refused; round++) {
    const batch = await call(
      'POST',
      `/agent/${kept}`,
      Array.from({ length: 64 }, (_, i) => ({ temperature: (i + round) % 30 })),
      key,
    );
    if (batch.status !== 200) refused = batch;
    batches.push(...idsOf(batch));
    for (let i = 0; i < 16 && !refused; i++) {
      const single = await call('POST', `/agent/${kept}`, { temperature: (round + i / 16) % 30 }, key);
      if (single.status !== 200) refused = single;
      singles.push(...idsOf(single));
    }
  }
  expect(refused?.status, JSON.stringify(refused?.body)).toBe(507);
  expect(refused?.body.error).toBe('QuotaExceeded');
  expect(refused?.body.message).toContain('erase evaluation logs');
  expect(refused?.body.message).toContain('DELETE /evaluation/:id');
  // a full disk still reads (the refusal itself already had the service write out the storage
  // log and try again: see below)
  expect((await call('GET', `/agent/${kept}/evaluation?limit=5`, undefined, key)).status).toBe(200);

  // deleting an agent works on the full disk
  expect((await call('DELETE', `/agent/${spare}`, undefined, key)).status).toBe(200);
  expect((await call('GET', `/agent/${spare}`, undefined, key)).status).toBe(410);
  // so does erasing logs evaluated alone: list the newest page, erase those
  const listed = await call('GET', `/agent/${kept}/evaluation?limit=1000`, undefined, key);
  expect(listed.status).toBe(200);
  const alone = (listed.body.evaluations as Array<{ reqID: string }>).map(({ reqID }) => reqID).filter((reqID) => singles.includes(reqID));
  expect(alone.length).toBeGreaterThan(100);
  for (const reqID of alone) {
    const answer = await call('DELETE', `/evaluation/${reqID}`, undefined, key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  }
  const listedAfter = await call('GET', `/agent/${kept}/evaluation?limit=1000`, undefined, key);
  const remaining = new Set((listedAfter.body.evaluations as Array<{ reqID: string }>).map(({ reqID }) => reqID));
  expect(alone.some((reqID) => remaining.has(reqID))).toBe(false);
  expect((await call('GET', `/evaluation/${alone[0]}`, undefined, key)).status).toBe(404);
  // carry on: Chromium's IndexedDB (one LevelDB per origin) counts erased records against the
  // quota until its log is written out as a table; a write refused for the quota makes the
  // service have it written out and try again, so what was erased counts: the next evaluation,
  // and a batch after it, are stored
  const again = await call('POST', `/agent/${kept}`, { temperature: 15 }, key);
  expect(again.status, JSON.stringify(again.body)).toBe(200);
  expect((await call('GET', `/evaluation/${again.evaluationID}`, undefined, key)).body).toMatchObject({ input: { temperature: 15 } });
  const batchAgain = await call(
    'POST',
    `/agent/${kept}`,
    Array.from({ length: 64 }, (_, i) => ({ temperature: i % 30 })),
    key,
  );
  expect(batchAgain.status, JSON.stringify(batchAgain.body)).toBe(200);
  expect(idsOf(batchAgain)).toHaveLength(64);
  expect((await call('GET', `/evaluation/${batches[0]}`, undefined, key)).status).toBe(200);
}
