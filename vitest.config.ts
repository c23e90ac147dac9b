import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The conformance suite: the service's tests that hold for every store. They run once per
 * backend (the projects below), through test/support/service.ts, which opens the store that
 * FUZZBOX_TEST_STORE names.
 */
const conformance = [
  'test/api/*.test.ts',
  'test/store/atomicity.test.ts',
  'test/store/versions.test.ts',
  'test/store/postgres.test.ts',
  'test/learn/service.test.ts',
  'test/learn/autopilot.test.ts',
];

export default defineConfig({
  test: {
    environment: 'node',
    // at least two files at once: vitest's default (cores − 1) runs one at a time on a 2-core CI
    // machine, and much of a file's time is spent waiting on Chromium, a server or PostgreSQL.
    // Files share nothing: each has its own databases (test/support/databases.ts), profiles and ports.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'dexie',
          include: ['test/**/*.test.ts'],
          // only PostgreSQL has migrations in SQL; the server's tests need the real server
          exclude: ['test/store/postgres.test.ts', 'test/server/**', 'test/sync/**', 'test/browser/sync.test.ts', 'test/browser/sync-volume.test.ts'],
          env: { FUZZBOX_TEST_STORE: 'dexie' },
        },
      },
      // PostgreSQL answers through a socket or a WebAssembly build: slower per request than
      // fake-indexeddb, more so on a loaded machine, so its tests get more time
      {
        extends: true,
        test: {
          name: 'pglite',
          include: [...conformance, 'test/sync/**/*.test.ts', 'test/browser/sync.test.ts'],
          testTimeout: 120_000,
          env: { FUZZBOX_TEST_STORE: 'pglite' },
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...conformance, 'test/server/**/*.test.ts', 'test/sync/**/*.test.ts', 'test/browser/sync.test.ts', 'test/browser/sync-volume.test.ts'],
          testTimeout: 120_000,
          env: { FUZZBOX_TEST_STORE: 'postgres' },
          globalSetup: ['./test/support/postgres-server.ts'],
        },
      },
    ],
  },
});
