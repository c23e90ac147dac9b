// One Chromium and one static server per test file, started before its tests and closed after.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium, type StaticServer } from './harness.js';

export function useChromium(startServer: () => Promise<StaticServer>): { browser: Browser; server: StaticServer } {
  const shared = {} as { browser: Browser; server: StaticServer };
  beforeAll(async () => {
    [shared.browser, shared.server] = await Promise.all([launchChromium(), startServer()]);
  });
  afterAll(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  return shared;
}
