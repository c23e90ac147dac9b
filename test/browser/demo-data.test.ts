// The demo's "Your data" card: the storage state, a backup downloaded as a file and restored.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { useChromium } from './chromium.js';
import { requireBuild, startStaticServer } from './harness.js';

const shared = useChromium(() => {
  requireBuild('demo-dist/index.html', 'demo-dist/fuzzbox-sw.js');
  return startStaticServer({ '/': 'demo-dist' });
});

it('shows what is stored, downloads a backup file and restores it', async () => {
  const context = await shared.browser.newContext({ acceptDownloads: true });
  try {
    const page = await context.newPage();
    await page.goto(`${shared.server.origin}/`);
    await page.waitForFunction(() => document.querySelectorAll('#history tr').length >= 1);
    await page.locator('#data-panel').scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      /1 agent, 1 evaluation, 0 feedback · .* MB of .* MB used · (kept until you clear it|may be evicted)/.test(
        document.querySelector('#storage-state')?.textContent ?? '',
      ),
    );

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-backup')]);
    expect(download.suggestedFilename()).toMatch(/^fuzzbox-demo-\d{4}-\d{2}-\d{2}\.ndjson$/);
    const file = await download.path();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'fuzzbox-backup', version: 2 });
    expect(lines.slice(1).map((line) => JSON.parse(line).kind)).toEqual(['version', 'agent', 'evaluation', 'end']);

    // restoring into the same account: everything is there already
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#restore-backup')]);
    await chooser.setFiles(file);
    await page.waitForFunction(() => /Restored .*: 0 records added, 3 already here/.test(document.querySelector('#backup-message')?.textContent ?? ''));
  } finally {
    await context.close();
  }
});
