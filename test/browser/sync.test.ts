// Sync's proof in real Chromium (docs/SYNC.md, "What the tests show"): a profile syncing through
// its service worker and one through a service in the page, on http://localhost, and `fuzzbox
// serve` on 127.0.0.1 (sync-rig.ts), offline and online in the orders the tests set, with the
// network breaking where they say (sync-network.ts).
import { describe, expect, test } from 'vitest';
import { serverBackend } from '../sync/support.js';
import {
  currentServer,
  define,
  expectConverged,
  launch,
  offline,
  openProfile,
  preparePage,
  restartServer,
  rounds,
  tipping,
  use,
  useSyncRig,
  type Profile,
} from './sync-rig.js';

useSyncRig();

describe(`two Chromium profiles and fuzzbox serve on ${serverBackend}`, () => {
  let worker: Profile;
  let inPage: Profile;
  let shared: { id: string; latestVersion: string };
  let doomed: { id: string; latestVersion: string };

  test('the worker and the page sync through the server: what one creates online reaches the other, with an event', async () => {
    worker = await openProfile('worker', 500);
    inPage = await openProfile('page', 500);
    shared = await define(worker, tipping('shared'));
    doomed = await define(worker, tipping('doomed'));
    await use(worker, shared.id, 200);
    await rounds(worker, inPage);
    expect((await inPage.call('GET', `/agent/${shared.id}`)).body.latestVersion).toBe(shared.latestVersion);
    const arrived = (await inPage.page.evaluate(() => window.syncEvents)).flatMap((event) => event.newVersions.map((version) => version.id));
    expect(arrived.sort()).toEqual([shared.latestVersion, doomed.latestVersion].sort());
    // the worker's rounds reach the page on the BroadcastChannel too
    expect((await worker.page.evaluate(() => window.syncEvents)).length).toBeGreaterThan(0);
    // cross-origin: the server answered the pages' origin, preflights included
    expect(worker.relay.seen).toContain('OPTIONS /sync/push');
    await expectConverged(worker, inPage);
  });

  test('both offline: edits, thousands of evaluations and feedback on each; the page reconnects first, then the worker; all three end equal', async () => {
    // Chromium offline alone: the server hears no fetch from the worker or the page, only preflights
    const heard = { worker: worker.relay.seen.length, page: inPage.relay.seen.length };
    for (const at of [worker, inPage]) await at.context.setOffline(true);
    for (const at of [worker, inPage]) expect((await at.now()).lastError, `${at.kind} offline`).toMatch(/fetch/i);
    expect(worker.relay.seen.slice(heard.worker).filter((line) => !line.startsWith('OPTIONS '))).toEqual([]);
    expect(inPage.relay.seen.slice(heard.page).filter((line) => !line.startsWith('OPTIONS '))).toEqual([]);
    await offline(worker, true);
    await offline(inPage, true);
    const cutOff = worker.relay.seen.length + inPage.relay.seen.length;

    const byWorker = await define(worker, tipping('shared, by the worker', 31), shared.id);
    const onOld = await use(worker, shared.id, 2500);
    await define(worker, tipping('doomed, edited', 32), doomed.id);
    await use(worker, doomed.id, 300);
    const workerOnly = await define(worker, tipping('only in the worker'));
    await use(worker, workerOnly.id, 100);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the page's PUT is the later one
    const byPage = await define(inPage, tipping('shared, by the page', 33), shared.id);
    await use(inPage, shared.id, 2500);
    expect((await inPage.call('DELETE', `/agent/${doomed.id}`)).status).toBe(200);
    const pageOnly = await define(inPage, tipping('only in the page'));
    await use(inPage, pageOnly.id, 100);
    for (const at of [worker, inPage]) expect((await at.page.evaluate(() => window.syncStatus()))!.pending).toBeGreaterThan(2500);
    expect(worker.relay.seen.length + inPage.relay.seen.length).toBe(cutOff);

    await offline(inPage, false);
    await rounds(inPage);
    await offline(worker, false);
    await rounds(worker, inPage);

    for (const get of [(path: string) => worker.call('GET', path), (path: string) => inPage.call('GET', path)]) {
      const agent = (await get(`/agent/${shared.id}`)).body;
      expect(agent.latestVersion).toBe(byPage.latestVersion);
      expect(agent.name).toBe('shared, by the page');
      expect((await get(`/agent/${doomed.id}`)).status).toBe(410);
      expect((await get(`/agent/${workerOnly.id}`)).status).toBe(200);
      expect((await get(`/agent/${pageOnly.id}`)).status).toBe(200);
      // answered offline by the worker's version, logged against it everywhere
      expect((await get(`/evaluation/${onOld[100]}`)).body.versionID).toBe(byWorker.latestVersion);
    }
    const held = await expectConverged(worker, inPage);
    expect(held.length).toBeGreaterThan(5600);
  });

  test('faults: pushes cut mid-body, answers lost, a push delivered twice, a pull cut mid-answer, the server killed mid-round; the worker reconnects first; all three end equal', async () => {
    await offline(worker, true);
    await offline(inPage, true);
    const extra = await define(worker, tipping('made offline before the faults'));
    await use(worker, extra.id, 3000);
    await use(inPage, shared.id, 3000);

    // the worker's first three pushes break, one way each (coming online starts a round); the rounds after go on
    const broken = Promise.all([
      worker.relay.inject({ kind: 'cut-request', path: '/sync/push', after: 20_000 }),
      worker.relay.inject({ kind: 'lose-answer', path: '/sync/push' }),
      worker.relay.inject({ kind: 'duplicate', path: '/sync/push' }),
    ]);
    await offline(worker, false);
    while (!(await Promise.race([broken.then(() => true), new Promise((resolve) => setTimeout(resolve, 100, false))]))) await worker.now();
    await rounds(worker);

    // the server is killed between two of the page's pushes, and started again on the same data
    const pushes = inPage.relay.seen.filter((line) => line === 'POST /sync/push').length;
    const killed = inPage.relay.delivered('/sync/push', pushes + 2).then(async () => {
      currentServer().process.kill('SIGKILL');
      await currentServer().exited;
    });
    const reported = await inPage.page.evaluate(() => window.syncEvents.length);
    await offline(inPage, false);
    await killed;
    await inPage.page.waitForFunction((reported) => window.syncEvents.slice(reported).some((event) => event.status.lastError !== null), reported);
    await restartServer();
    await rounds(inPage);

    // the worker's pull of what the page pushed breaks mid-answer, then goes on
    const cut = worker.relay.inject({ kind: 'cut-answer', path: '/sync/pull', after: 30_000 });
    await worker.now();
    await cut;
    await rounds(worker, inPage);
    await expectConverged(worker, inPage);
  });

  test('new settings while the worker answers a batch: the batch is answered and kept, and the next rounds use the new settings', async () => {
    const agent = await define(worker, tipping('evaluated while the settings change'));
    const elsewhere = 'http://127.0.0.1:9/'; // the discard port: nothing answers
    const { answered, moved } = await worker.page.evaluate(
      async ({ agentID, elsewhere, apiKey }) => {
        const batch = window.call(
          'POST',
          `/agent/${agentID}`,
          Array.from({ length: 4096 }, (_, i) => ({ service: i % 11 })),
        );
        const moved = await window.syncConfigure({ url: elsewhere, apiKey, interval: 3_600_000, batchSize: 500 });
        const reply = await batch;
        return { answered: { status: reply.status, ids: reply.ids?.split(',') ?? [] }, moved };
      },
      { agentID: agent.id, elsewhere, apiKey: await worker.page.evaluate(() => localStorage.getItem('apiKey')!) },
    );
    expect(answered.status).toBe(200);
    expect(answered.ids).toHaveLength(4096);
    for (const id of answered.ids) worker.answered.evaluations.add(id);
    expect(moved?.url).toBe(elsewhere);
    expect((await worker.now()).lastError).toMatch(/fetch/i);
    const back = await worker.page.evaluate((settings) => window.syncConfigure(settings), {
      url: worker.relay.url,
      apiKey: await worker.page.evaluate(() => localStorage.getItem('apiKey')!),
      interval: 3_600_000,
      batchSize: 500,
    });
    expect(back?.url).toBe(worker.relay.url);
    await rounds(worker, inPage);
    await expectConverged(worker, inPage);
  });

  test('a restarted browser: the worker syncs with the settings it kept, no page telling it', async () => {
    await worker.context.close();
    const { context, page } = await launch(worker.dir);
    Object.assign(worker, { context, page });
    await preparePage(page, 'worker', undefined);
    const status = await worker.page.evaluate(() => window.syncStatus());
    expect(status?.url).toBe(worker.relay.url);
    const later = await define(worker, tipping('after the restart'));
    await use(worker, later.id, 100);
    await rounds(worker, inPage);
    await expectConverged(worker, inPage);
  });
});
