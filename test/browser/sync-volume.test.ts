// A browser offline long enough to log 102,400 evaluations (25 batches of 4096), then syncing
// them all through its worker to `fuzzbox serve` on the run's PostgreSQL (sync-rig.ts). Only in
// the `postgres` project: the same data over PGlite costs about twice as long and proves nothing
// more (sync.test.ts runs every other case on both). Its time and bytes go to the log, and to
// docs/SYNC.md; speed is bench/sync.bench.ts's to measure.
import { expect, test } from 'vitest';
import { currentServer, define, expectConverged, offline, openProfile, rounds, tipping, use, useSyncRig } from './sync-rig.js';

useSyncRig();

const LOGS = 102_400;

test(`a worker offline for ${LOGS.toLocaleString('en')} logs syncs them all: the server and the browser end equal`, { timeout: 600_000 }, async () => {
  const browser = await openProfile('worker');
  const agent = await define(browser, tipping('busy'));
  await rounds(browser);
  await offline(browser, true);
  const filling = performance.now();
  await use(browser, agent.id, LOGS, 1024);
  const filled = performance.now() - filling;
  const waiting = (await browser.page.evaluate(() => window.syncStatus()))!.pending;
  expect(waiting).toBe(LOGS + Math.ceil(LOGS / 1024));

  const syncing = performance.now();
  await offline(browser, false);
  let status = await browser.now();
  while (status.pending > 0 || status.lastError !== null) status = await browser.now();
  const synced = performance.now() - syncing;

  const counts = async (response: Response) => ((await response.json()) as { counts: { evaluations: number; feedback: number } }).counts;
  const onServer = await counts(
    await fetch(`${currentServer().url}storage`, { headers: { Authorization: `Bearer ${await browser.page.evaluate(() => localStorage.getItem('apiKey'))}` } }),
  );
  expect(onServer).toMatchObject({ evaluations: LOGS, feedback: Math.ceil(LOGS / 1024) });
  await expectConverged(browser);
  const perLog = browser.relay.bytes.pushed / LOGS;
  console.log(
    `${LOGS} logs: logged offline in ${(filled / 1000).toFixed(1)} s, synced in ${(synced / 1000).toFixed(1)} s ` +
      `(${Math.round(LOGS / (synced / 1000))} logs/s), ${browser.relay.bytes.pushed} bytes pushed (${perLog.toFixed(0)} per log), ` +
      `${browser.relay.seen.filter((line) => line === 'POST /sync/push').length} pushes`,
  );
});
