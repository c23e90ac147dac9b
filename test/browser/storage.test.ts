// Storage in a real Chromium with a persistent profile (on disk, as a user's browser keeps it):
// GET /storage reports the browser's own usage, quota and persistence through the worker, and a
// backup downloaded from one profile restores into another through the worker, streamed both ways.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fanAgent } from './fan-agent.js';
import { chromiumArgs, chromiumPath, startFixtureServer, type StaticServer } from './harness.js';

let server: StaticServer;
const profiles: string[] = [];
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
  for (const profile of profiles) rmSync(profile, { recursive: true, force: true });
});

async function open(): Promise<{ context: BrowserContext; page: Page }> {
  const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-storage-profile-'));
  profiles.push(profile);
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), headless: true, args: chromiumArgs });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.origin}/`);
  await page.waitForFunction(() => 'fuzzbox' in window);
  return { context, page };
}

it("GET /storage: the browser's usage, quota and persistence, and the counts, through the worker; {persist: true} asks for persistence", async () => {
  const { context, page } = await open();
  try {
    const result = await page.evaluate(async (agent) => {
      const worker = await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js', { persist: true });
      const anonymous = new window.fuzzbox.FuzzyClient();
      const client = anonymous.withKey((await anonymous.createAccount('storage')).apiKey);
      const before = await client.getStorage();
      const created = await client.createAgent(agent);
      const batch = await client.evaluateBatch(
        created.id,
        Array.from({ length: 2000 }, (_, i) => ({ temperature: (i % 400) / 10 })),
      );
      await client.postFeedback(batch[0]!.evaluationID, { stars: 5 });
      const after = await client.getStorage();
      return {
        persisted: worker.persisted,
        pagePersisted: await navigator.storage.persisted(),
        pageEstimate: await navigator.storage.estimate(),
        before,
        after,
      };
    }, fanAgent);
    // the worker reports what the page's own storage manager says
    expect(typeof result.persisted).toBe('boolean');
    expect(result.after.persisted).toBe(result.pagePersisted);
    expect(result.persisted).toBe(result.pagePersisted);
    expect(result.after.quota).toBe(result.pageEstimate.quota);
    expect(result.after.quota).toBeGreaterThan(0);
    expect(result.after.usage).toBeGreaterThan(0);
    // 2000 logs are on disk: the usage grew
    expect(result.after.usage!).toBeGreaterThan(result.before.usage!);
    expect(result.before.counts).toEqual({ agents: 0, versions: 0, retiredVersions: 0, deletions: 0, evaluations: 0, feedback: 0 });
    expect(result.after.counts).toEqual({ agents: 1, versions: 1, retiredVersions: 0, deletions: 0, evaluations: 2000, feedback: 1 });
  } finally {
    await context.close();
  }
});

it('a backup downloaded in one browser profile restores into another, and exports the same records there', async () => {
  const first = await open();
  let backup: string;
  try {
    backup = await first.page.evaluate(async (agent) => {
      await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js');
      const anonymous = new window.fuzzbox.FuzzyClient();
      const client = anonymous.withKey((await anonymous.createAccount('first')).apiKey);
      const created = await client.createAgent(agent);
      await client.updateAgent(created.id, { ...agent, name: 'fan v2' });
      const batch = await client.evaluateBatch(
        created.id,
        Array.from({ length: 300 }, (_, i) => ({ temperature: (i % 400) / 10 })),
      );
      await client.postFeedback(batch[299]!.evaluationID, { stars: 2 });
      return (await client.downloadBackup()).text();
    }, fanAgent);
  } finally {
    await first.context.close();
  }
  const second = await open();
  try {
    const restored = await second.page.evaluate(async (text) => {
      await window.fuzzbox.registerFuzzyWorker('/fuzzbox-sw.js');
      const anonymous = new window.fuzzbox.FuzzyClient();
      const client = anonymous.withKey((await anonymous.createAccount('second')).apiKey);
      // from a File, as <input type="file"> gives it: streamed into the worker
      const result = await client.restoreBackup(new File([text], 'backup.ndjson', { type: 'application/x-ndjson' }));
      return { result, again: await (await client.downloadBackup()).text(), counts: (await client.getStorage()).counts };
    }, backup);
    const records = (text: string) => text.trimEnd().split('\n').slice(1, -1);
    expect(restored.result).toEqual({ lines: records(backup).length + 2, imported: records(backup).length, unchanged: 0 });
    expect(records(restored.again)).toEqual(records(backup));
    expect(restored.counts).toMatchObject({ agents: 1, versions: 2, evaluations: 300, feedback: 1 });
  } finally {
    await second.context.close();
  }
});
