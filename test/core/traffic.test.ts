// Background work yields to the requests in flight (src/core/traffic.ts): a request waits for at
// most the slice under way when it came, not for a slice at each of its database round trips.
import { expect, test } from 'vitest';
import { QUIET_MOST_MS, Traffic } from '../../src/core/traffic.js';

const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

test('with no request in flight, background work goes on after one turn of the event loop', async () => {
  const traffic = new Traffic();
  let resumed = false;
  const quiet = traffic.quiet().then(() => (resumed = true));
  expect(resumed).toBe(false);
  await quiet;
  expect(resumed).toBe(true);
});

test('background work waits while a request is in flight, and goes on once it is answered', async () => {
  const traffic = new Traffic();
  let answer!: () => void;
  const request = traffic.during(() => new Promise<void>((resolve) => (answer = resolve)));
  let resumed = false;
  const quiet = traffic.quiet().then(() => (resumed = true));
  // the request's round trips come and go; the work does not resume between them
  for (let i = 0; i < 5; i++) await macrotask();
  expect(resumed).toBe(false);
  answer();
  await request;
  await quiet;
  expect(resumed).toBe(true);
});

test('a request that arrives during the turn is waited for too; under constant traffic the work still resumes', async () => {
  const traffic = new Traffic();
  let resumed = false;
  const started = performance.now();
  const quiet = traffic.quiet().then(() => (resumed = true));
  // arrives before the turn is over, and is never answered
  void traffic.during(() => new Promise<void>(() => undefined));
  for (let i = 0; i < 5; i++) await macrotask();
  expect(resumed).toBe(false);
  await quiet;
  expect(performance.now() - started).toBeGreaterThanOrEqual(QUIET_MOST_MS - 1);
});
