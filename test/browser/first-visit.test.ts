// A first visit resolves registerFuzzyWorker(url, {sync: null}), as the demo calls it, in every
// engine, every time. WebKit and Firefox report control before the page's registration shows the
// worker that took it; asking it about sync then found no active worker (WebKit 12 first visits
// in 50 in a new tab each, before the fix). Each visit is a fresh origin (a server on a new port)
// in a new tab, the way that showed the race most often.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enginesToTest, type EngineSession } from './engines.js';
import { startFixtureServer } from './harness.js';

const VISITS = 50;

for (const engine of enginesToTest()) {
  describe(`first visits in ${engine.label}`, () => {
    let session: EngineSession;
    beforeAll(async () => {
      session = await engine.launch();
    });
    afterAll(() => session?.close());

    it(`registers with {sync: null} on ${VISITS} first visits of fresh origins, never rejecting, never announcing an update`, {
      timeout: 300_000,
    }, async () => {
      const outcomes: string[] = [];
      for (let visit = 0; visit < VISITS; visit++) {
        const server = await startFixtureServer();
        const page = await session.newPage();
        try {
          await page.goto(`${server.origin}/`);
          await page.waitFor(() => 'fuzzbox' in window);
          outcomes.push(
            await page.evaluate(async () => {
              let announced = 0;
              try {
                const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { sync: null, onUpdate: () => announced++ });
                const status = await worker.sync.status(); // null: sync is off, as asked
                // an update announced on a first visit would show the demo's "new version" banner
                await new Promise((resolve) => setTimeout(resolve, 50));
                const controlled = navigator.serviceWorker.controller?.scriptURL === worker.registration.active?.scriptURL;
                return `controlled ${controlled}, sync ${JSON.stringify(status)}, updates announced ${announced}`;
              } catch (error) {
                return String(error);
              }
            }),
          );
        } finally {
          await page.close();
          await server.close();
        }
      }
      const failures = outcomes.filter((outcome) => outcome !== 'controlled true, sync null, updates announced 0');
      expect(failures).toEqual([]);
      expect(outcomes).toHaveLength(VISITS);
    });
  });
}
