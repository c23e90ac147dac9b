import { defineConfig } from 'vitest/config';
import SummaryReporter from './scripts/summary-reporter.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
  },
});
