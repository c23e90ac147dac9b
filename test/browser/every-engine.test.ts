// The same scenario in Chromium, Firefox ESR and WebKitGTK (test/browser/engines.ts): the REST
// interface answered by the worker (every body-reading route, the 1 MiB bound, export and import),
// a second tab, `fuzzbox/client`, sync with `fuzzbox serve` (on PGlite, in this process),
// persistence across a browser restart where the engine keeps a
// profile, the demo started with its server gone under `vite preview`, and the demo's layout on a
// desktop and a phone. What needs one engine's own protocol (stopping workers, lowering the quota,
// the network switched off) runs in Chromium only, in the other files of this folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { preview } from 'vite';
import { serve, type FuzzboxServer } from '../../src/node/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enginesToTest, fetchInPage, type EnginePage, type EngineSession } from './engines.js';
import { fanAgent, fanAt12, fanAt15 } from './fan-agent.js';
import { requireBuild, root, startFixtureServer, startStaticServer, type StaticServer } from './harness.js';

const EVALUATIONS = 200;

/** Opens the fixture page and registers the worker as the demo does; whether the page started controlled. */
async function openRegistered(session: EngineSession, server: StaticServer): Promise<{ page: EnginePage; controlledAtStart: boolean }> {
  const page = await session.newPage();
  await page.goto(`${server.origin}/`);
  await page.waitFor(() => 'fuzzbox' in window);
  await page.evaluate(() => window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { sync: null }).then(() => undefined));
  return { page, controlledAtStart: await page.evaluate(() => window.fuzzbox.controlledAtStart) };
}

const call = fetchInPage;

/** An account with the fan agent, EVALUATIONS evaluations at 12° and one feedback on the first. */
async function seed(page: EnginePage) {
  const account = await call(page, 'POST', '/account', { name: 'every engine' });
  expect(account.status).toBe(200);
  const key: string = account.body.apiKey;
  const agent = await call(page, 'POST', '/agent', fanAgent, key);
  expect(agent.status).toBe(200);
  const ids = await page.evaluate(
    async ({ agentID, key, count }) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const response = await fetch(`/agent/${agentID}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ temperature: 12 }),
        });
        if (response.status !== 200) throw new Error(`evaluation ${i}: ${response.status} ${await response.text()}`);
        ids.push(response.headers.get('X-Evaluation-ID')!);
      }
      return ids;
    },
    { agentID: agent.body.id as string, key, count: EVALUATIONS },
  );
  const feedback = await call(page, 'POST', `/evaluation/${ids[0]}/feedback`, { stars: 4 }, key);
  expect(feedback.status).toBe(200);
  return { key, agentID: agent.body.id as string, ids };
}

/** One `fuzzbox serve` on PGlite for every engine's sync test (each its own account): PGlite takes seconds to open. */
let syncServerStarted: { server: Promise<FuzzboxServer>; dataDir: string } | undefined;
function syncServer(): Promise<FuzzboxServer> {
  if (!syncServerStarted) {
    const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-every-engine-serve-'));
    syncServerStarted = { dataDir, server: serve({ port: 0, dataDir, cors: { origins: '*' } }) };
  }
  return syncServerStarted.server;
}
afterAll(async () => {
  if (!syncServerStarted) return;
  await (await syncServerStarted.server).close(0);
  rmSync(syncServerStarted.dataDir, { recursive: true, force: true });
});

for (const engine of enginesToTest()) {
  describe(engine.label, () => {
    let session: EngineSession;
    let server: StaticServer;
    beforeAll(async () => {
      [session, server] = await Promise.all([engine.launch(), startFixtureServer()]);
    });
    afterAll(async () => {
      await session?.close();
      await server?.close();
    });

    it('the worker answers the REST interface: account, agent, evaluations, log, feedback, storage, export and import, the 1 MiB bound', {
      timeout: 120_000,
    }, async () => {
      const { page } = await openRegistered(session, server);
      const before = server.requests.length;
      const { key, agentID, ids } = await seed(page);
      expect(new Set(ids).size).toBe(EVALUATIONS);

      const log = await call(page, 'GET', `/evaluation/${ids.at(-1)}`, undefined, key);
      expect(log.body.fuzzified.temperature).toEqual({ cold: expect.closeTo(0.8, 12), hot: expect.closeTo(0.2, 12) });
      expect(log.body.crisp.fan).toBeCloseTo(fanAt12, 9);
      const feedback = await call(page, 'GET', `/evaluation/${ids[0]}/feedback`, undefined, key);
      expect(feedback.body.map((item: { data: unknown }) => item.data)).toEqual([{ stars: 4 }]);

      const storage = await call(page, 'GET', '/storage', undefined, key);
      expect(storage.status).toBe(200);
      expect(storage.body.counts).toMatchObject({ agents: 1, evaluations: EVALUATIONS, feedback: 1 });
      const reportsStorage = await page.evaluate(() => typeof navigator.storage?.estimate === 'function');
      // WebKitGTK has no navigator.storage at all: the service says it does not know, never guesses
      expect(storage.body.usage === null).toBe(!reportsStorage);
      expect(storage.body.quota === null).toBe(!reportsStorage);
      if (reportsStorage) expect(storage.body.usage).toBeGreaterThan(0);

      // the backup: a header, the version, the agent, every evaluation, the feedback, the trailer; read back whole
      const exported = await call(page, 'GET', '/export', undefined, key);
      expect(exported.status).toBe(200);
      const kinds = (exported.body as string)
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line).kind);
      expect(kinds).toEqual(['version', 'agent', ...Array(EVALUATIONS).fill('evaluation'), 'feedback', 'end']);
      const imported = await call(page, 'POST', '/import', exported.body, key);
      // every record already here; the header and the trailer are lines, not records
      expect(imported.body).toEqual({ lines: kinds.length + 1, imported: 0, unchanged: kinds.length - 1 });

      // a body the engine hands the worker whole (Firefox) is bounded as a streamed one is
      const huge = await call(page, 'POST', '/agent', { ...fanAgent, name: 'x'.repeat(1024 * 1024) }, key);
      expect(huge.status).toBe(413);
      expect(huge.body.error).toBe('PayloadTooLarge');
      const fll = await page.evaluate(async (key) => {
        const text = [
          'Engine: fan',
          'InputVariable: t',
          '  range: 0 30',
          '  term: cold Triangle 0 10 20',
          'OutputVariable: fan',
          '  range: 0 100',
          '  term: slow Triangle 0 25 50',
          'RuleBlock: rules',
          '  rule: if t is cold then fan is slow',
        ].join('\n');
        const response = await fetch('/agent', { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/x-fll' }, body: text });
        return { status: response.status, rules: (await response.json()).rules };
      }, key);
      expect(fll).toEqual({ status: 200, rules: ['IF t IS cold THEN fan IS slow'] });
      expect((await call(page, 'GET', '/agent', undefined, key)).body.map((agent: { id: string }) => agent.id)).toContain(agentID);

      // none of it reached the network
      expect(server.requests.slice(before).filter((path) => /^\/(account|agent|evaluation|storage|export|import)\b/.test(path))).toEqual([]);
      await page.close();
    });

    it('a second tab starts controlled and shares the data; fuzzbox/client works through the worker', { timeout: 60_000 }, async () => {
      const { page: first } = await openRegistered(session, server);
      const key = (await call(first, 'POST', '/account', { name: 'tabs' })).body.apiKey as string;
      const { page: second, controlledAtStart } = await openRegistered(session, server);
      expect(controlledAtStart).toBe(true);
      const fromClient = await second.evaluate(
        async ({ key, fanAgent }) => {
          const client = new window.fuzzbox.FuzzyClient({ apiKey: key });
          const agent = await client.createAgent(fanAgent);
          const answer = await client.evaluate(agent.id, { temperature: 15 });
          const log = await client.getEvaluation(answer.evaluationID);
          const backup = await (await client.downloadBackup()).text();
          const restored = await client.restoreBackup(backup);
          // a stream too, where the engine cannot send one as a request body (Firefox, WebKit)
          const restoredFromStream = await client.restoreBackup(new Blob([backup]).stream());
          return {
            agentID: agent.id,
            fan: answer.outputs.fan,
            logged: log.crisp.fan,
            restored,
            restoredFromStream,
            lines: backup.trimEnd().split('\n').length,
          };
        },
        { key, fanAgent },
      );
      expect(fromClient.fan).toBeCloseTo(fanAt15, 9);
      expect(fromClient.logged).toBe(fromClient.fan);
      // the header, the version, the agent, the evaluation (all already here) and the trailer
      expect(fromClient.lines).toBe(5);
      expect(fromClient.restored).toEqual({ lines: 5, imported: 0, unchanged: 3 });
      expect(fromClient.restoredFromStream).toEqual(fromClient.restored);
      // written in the second tab, read in the first
      expect((await call(first, 'GET', '/agent', undefined, key)).body).toEqual([{ id: fromClient.agentID, name: 'fan' }]);
      await second.close();
      await first.close();
    });

    it("the demo starts with its server gone under `vite preview`, from the worker's offline copy", { timeout: 90_000 }, async () => {
      const served = await startDemoPreview();
      const { origin } = served;
      const page = await session.newPage();
      try {
        await page.goto(`${origin}/`);
        await page.waitFor(() => document.querySelectorAll('#history tr').length > 0, undefined, 30_000);
        expect(await page.evaluate(() => document.querySelector('#status')!.textContent)).toMatch(/^Ready/);
        // what the browser tells about its storage, or that it tells nothing (WebKit), never blanks
        await page.waitFor(() => / evaluations?, /.test(document.querySelector('#storage-state')?.textContent ?? ''));
        const storageState = await page.evaluate(() => document.querySelector('#storage-state')!.textContent!);
        if (await page.evaluate(() => 'storage' in navigator)) expect(storageState).toMatch(/ MB of [\d.]+ MB used · (kept until you clear it|may be evicted)/);
        else
          expect(storageState).toMatch(
            /this browser does not tell how much room it gives · this browser does not tell whether it keeps it .*download a backup$/,
          );
        const rows = await page.evaluate(() => document.querySelectorAll('#history tr').length);
        await served.close();
        await page.goto(`${origin}/`);
        // the page, its scripts and the stored evaluation, all from the worker with no server
        await page.waitFor(
          (rows) => document.querySelectorAll('#history tr').length === rows && document.querySelector('#history tr.current') !== null,
          rows,
          30_000,
        );
        expect(await page.evaluate(() => document.querySelector('.answer .crisp')!.textContent)).toBe('19.5');
      } finally {
        await page.close();
        await served.close();
      }
    });

    it("the demo's layout on a desktop (1280×900) and a phone (390×844): nothing wider than the screen or its card", { timeout: 90_000 }, async () => {
      const demo = await startDemoServer();
      const page = await session.newPage();
      try {
        // The demo in a frame of the screen's size: its media queries see the frame. WebKitGTK's
        // MiniBrowser cannot make its window narrower than its toolbar (447 px), so no engine is
        // sized through its window here.
        await page.setViewport(1400, 1000);
        await page.goto(`${demo.origin}/no-such-page`);
        for (const screen of [
          { width: 1280, height: 900 },
          { width: 390, height: 844 },
        ]) {
          await page.evaluate((screen) => {
            document.body.innerHTML = `<iframe src="/" width="${screen.width}" height="${screen.height}" style="border:0"></iframe>`;
          }, screen);
          await page.waitFor(
            () => {
              const frame = document.querySelector('iframe')?.contentDocument;
              return !!frame?.querySelector('#history tr.current') && !!frame.querySelector('#outputs svg');
            },
            undefined,
            30_000,
          );
          const layout = await page.evaluate(demoLayout);
          expect(layout.problems).toEqual([]);
          expect(layout.width).toBe(screen.width);
          // a desktop shows the input charts side by side, a phone one above the other
          if (screen.width === 390) expect(layout.columns).toBe(1);
          else expect(layout.columns).toBeGreaterThan(1);
        }
      } finally {
        await page.close();
        await demo.close();
      }
    });

    it('syncs through the worker with fuzzbox serve: what the browser logs reaches the server, a version made there reaches the browser', {
      timeout: 120_000,
    }, async () => {
      const site = await startFixtureServer(); // an origin of its own: the worker keeps sync settings per origin
      const remote = await syncServer();
      const page = await session.newPage();
      try {
        const { apiKey } = await remote.createAccount('every engine');
        const onServer = (method: string, path: string, body?: unknown) =>
          remote
            .handle(
              new Request(new URL(path, remote.url), {
                method,
                headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
              }),
            )
            .then(async (response) => ({ status: response.status, body: await response.json() }));
        await page.goto(`${site.origin}/`);
        await page.waitFor(() => 'fuzzbox' in window);
        const fromBrowser = await page.evaluate(
          async ({ url, apiKey, fanAgent }) => {
            const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { sync: { url, apiKey, interval: 3_600_000 } });
            Object.assign(window, { worker });
            const send = (method: string, path: string, body?: unknown) =>
              fetch(path, {
                method,
                headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
                ...(body === undefined ? {} : { body: JSON.stringify(body) }),
              });
            const agent = await (await send('POST', '/agent', fanAgent)).json();
            const ids: string[] = [];
            for (let i = 0; i < 20; i++) ids.push((await send('POST', `/agent/${agent.id}`, { temperature: i })).headers.get('X-Evaluation-ID')!);
            await send('POST', `/evaluation/${ids[0]}/feedback`, { stars: 5 });
            const status = await worker.sync.now();
            return { agentID: agent.id as string, ids, pending: status?.pending, lastError: status?.lastError };
          },
          { url: remote.url, apiKey, fanAgent },
        );
        expect(fromBrowser).toMatchObject({ pending: 0, lastError: null });

        const logs = await onServer('GET', `agent/${fromBrowser.agentID}/evaluation?limit=100`);
        expect(logs.body.evaluations.map((entry: { reqID: string }) => entry.reqID).sort()).toEqual([...fromBrowser.ids].sort());
        const feedback = await onServer('GET', `evaluation/${fromBrowser.ids[0]}/feedback`);
        expect(feedback.body.map((item: { data: unknown }) => item.data)).toEqual([{ stars: 5 }]);

        const edited = await onServer('PUT', `agent/${fromBrowser.agentID}`, { ...fanAgent, name: 'fan, edited on the server' });
        expect(edited.status).toBe(200);
        const inBrowser = await page.evaluate(
          async ({ agentID, apiKey }) => {
            await (window as unknown as { worker: { sync: { now(): Promise<unknown> } } }).worker.sync.now();
            return (await fetch(`/agent/${agentID}`, { headers: { Authorization: `Bearer ${apiKey}` } })).json();
          },
          { agentID: fromBrowser.agentID, apiKey },
        );
        expect(inBrowser).toMatchObject({ name: 'fan, edited on the server', latestVersion: edited.body.latestVersion });
      } finally {
        await page.close();
        await site.close();
      }
    });

    // WebKitWebDriver's sessions always use an ephemeral data store and cannot restart their
    // browser: WebKit's persistence across a restart cannot be shown here (docs/BROWSER.md).
    if (engine.persistentProfiles) {
      it('keeps the data across a browser restart on the same profile, and the demo starts again with its server gone', {
        timeout: 180_000,
      }, async () => {
        const profile = mkdtempSync(join(tmpdir(), `fuzzbox-${engine.name}-profile-`));
        const demo = await startDemoPreview();
        try {
          let restarted = await engine.launch(profile);
          const { page } = await openRegistered(restarted, server);
          const account = await call(page, 'POST', '/account', { name: 'kept' });
          const key = account.body.apiKey as string;
          const agent = await call(page, 'POST', '/agent', fanAgent, key);
          const evaluation = await call(page, 'POST', `/agent/${agent.body.id}`, { temperature: 12 }, key);
          const demoPage = await restarted.newPage();
          await demoPage.goto(`${demo.origin}/`);
          await demoPage.waitFor(() => document.querySelectorAll('#history tr.current').length > 0, undefined, 30_000);
          const rows = await demoPage.evaluate(() => document.querySelectorAll('#history tr').length);
          await restarted.close();
          await demo.close();

          restarted = await engine.launch(profile);
          try {
            const { page: again, controlledAtStart } = await openRegistered(restarted, server);
            expect(controlledAtStart).toBe(true);
            const log = await call(again, 'GET', `/evaluation/${evaluation.evaluationID}`, undefined, key);
            expect(log.status).toBe(200);
            expect(log.body.crisp.fan).toBeCloseTo(fanAt12, 9);
            // the demo's page, scripts and stored evaluation from the profile, its server gone
            const demoAgain = await restarted.newPage();
            await demoAgain.goto(`${demo.origin}/`);
            await demoAgain.waitFor(
              (rows) => document.querySelectorAll('#history tr').length === rows && document.querySelector('#history tr.current') !== null,
              rows,
              30_000,
            );
            expect(await demoAgain.evaluate(() => document.querySelector('.answer .crisp')!.textContent)).toBe('19.5');
          } finally {
            await restarted.close();
          }
        } finally {
          await demo.close();
          rmSync(profile, { recursive: true, force: true });
        }
      });
    }
  });
}

/** The built demo under `vite preview`, as `npm run demo` serves it, on a port of its own. */
async function startDemoPreview(): Promise<{ origin: string; close(): Promise<void> }> {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  const served = await preview({
    configFile: join(root, 'vite.demo.config.ts'),
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
  });
  let closed: Promise<void> | undefined;
  return {
    origin: `http://127.0.0.1:${(served.httpServer.address() as AddressInfo).port}`,
    close: () => (closed ??= served.close()),
  };
}

/** The built demo on a server of its own: a fresh origin, so the demo starts with its sample agent. */
function startDemoServer(): Promise<StaticServer> {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
}

/**
 * Runs in the page hosting the demo's frame: the frame's width, how many columns its charts make,
 * and what breaks the layout, in words (sideways scrolling, anything sticking out of its card).
 */
function demoLayout() {
  const frame = document.querySelector('iframe')!;
  const view = frame.contentWindow!;
  const doc = frame.contentDocument!;
  const visible = (element: Element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && view.getComputedStyle(element).visibility !== 'hidden';
  };
  const name = (element: Element) => `${element.tagName.toLowerCase()} “${(element.textContent ?? '').trim().slice(0, 30)}”`;
  const problems: string[] = [];
  if (doc.documentElement.scrollWidth > view.innerWidth)
    problems.push(`the page scrolls sideways: ${doc.documentElement.scrollWidth} px wide in ${view.innerWidth}`);
  const cards = [...doc.querySelectorAll('.card')].filter(visible);
  for (const card of cards) {
    const edge = card.getBoundingClientRect();
    for (const element of card.querySelectorAll('*')) {
      if (!visible(element) || element.closest('select')) continue;
      const box = element.getBoundingClientRect();
      if (box.right > edge.right + 0.5 || box.left < edge.left - 0.5) problems.push(`${name(element)} sticks out of its card`);
    }
  }
  const charts = [...doc.querySelectorAll('.charts > *')].filter(visible);
  const lefts = new Set(charts.map((chart) => Math.round(chart.getBoundingClientRect().left)));
  return { width: view.innerWidth, columns: lefts.size, problems: problems.slice(0, 10) };
}
