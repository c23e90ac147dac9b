// What learning reads of an agent's log (docs/LEARNING.md, "What learning reads"), on every store:
// the newest rows as columns with each evaluation's latest values, read in pages, and each
// version's feedback summarised over the whole log when asked.
import { afterEach, expect, it } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
afterEach(() => t?.close());

/** More logs than one page of either store (64 groups of 64 in IndexedDB, 4096 rows in PostgreSQL). */
const BATCH = 4200;

it('reads the newest evaluations with feedback, oldest first, each with its latest value; stops at `most` unless asked for the whole log', async () => {
  t = await createTestService();
  const { apiKey: key, userID } = await t.service.createAccount('reader');
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await t.call(method, path, { key, body });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer;
  };
  const { body: agent } = await call('POST', 'agent', tippingAgent());
  const first = agent.latestVersion as string;
  // the first version: three evaluations, one at a time, each with feedback
  const singles: string[] = [];
  for (const service of [1, 2, 3]) singles.push((await call('POST', `agent/${agent.id}`, { service })).headers.get('X-Evaluation-ID')!);
  for (const [i, reqID] of singles.entries()) await call('POST', `evaluation/${reqID}/feedback`, i === 2 ? { score: 3, other: 1 } : { score: i + 1 });
  // a second version answers a batch: score on every 10th, a later second score on every 20th, other on every 7th
  const { body: updated } = await call('PUT', `agent/${agent.id}`, { ...tippingAgent(), rules: [...tippingAgent().rules].reverse() });
  const second = updated.latestVersion as string;
  const situations = Array.from({ length: BATCH }, (_, i) => ({ service: (i % 100) / 10 }));
  const batch: string[] = [];
  // two requests: a batch holds at most 4096
  for (const part of [situations.slice(0, 4096), situations.slice(4096)])
    batch.push(...(await call('POST', `agent/${agent.id}`, part)).headers.get('X-Evaluation-ID')!.split(','));
  const scored = batch.flatMap((_, i) => (i % 10 === 0 ? [i] : []));
  // 0 − i, not −i: a JSON column has no −0
  const latest = (i: number) => (i % 20 === 0 ? 0 - i : i);
  for (const i of scored)
    await t.store.addFeedback(userID, { id: `first-${i}`, evaluationLog: batch[i]!, data: { score: i }, createdAt: new Date().toISOString() });
  for (const i of scored.filter((i) => i % 20 === 0)) {
    await t.store.addFeedback(userID, { id: `again-${i}`, evaluationLog: batch[i]!, data: { score: latest(i) }, createdAt: new Date().toISOString() });
  }
  for (let i = 0; i < BATCH; i += 7) {
    await t.store.addFeedback(userID, { id: `other-${i}`, evaluationLog: batch[i]!, data: { other: 1 }, createdAt: new Date().toISOString() });
  }

  // the newest 100 scored evaluations of the batch, oldest first
  const newest = await t.store.readLearningLog(userID, agent.id, { metrics: ['score'], most: 100 });
  const expected = scored.slice(-100);
  expect(newest.size).toBe(100);
  expect(newest.total).toBe(100);
  expect([...newest.values]).toEqual(expected.map(latest));
  expect([...newest.inputs]).toEqual(expected.map((i) => situations[i]!.service));
  expect(newest.inputNames).toEqual(['service']);
  expect(newest.outputNames).toEqual(['tip']);
  expect([...newest.version].map((v) => newest.versionIDs[v])).toEqual(expected.map(() => second));
  expect([...newest.density].every(Number.isNaN)).toBe(true);
  expect([...newest.returned]).toEqual([...newest.crisp]);
  for (let i = 1; i < newest.size; i++) expect(newest.createdAt[i]).toBeGreaterThanOrEqual(newest.createdAt[i - 1]!);
  // each row's newest feedback, of any metric: the second scores came after every first one, the others after those
  const seqs = (pick: (i: number) => boolean) => [...newest.feedbackSeq].filter((_, r) => pick(expected[r]!));
  const once = seqs((i) => i % 20 !== 0 && i % 7 !== 0);
  const again = seqs((i) => i % 20 === 0 && i % 7 !== 0);
  const other = seqs((i) => i % 7 === 0);
  expect(Math.min(...again)).toBeGreaterThan(Math.max(...once));
  expect(Math.min(...other)).toBeGreaterThan(Math.max(...again));

  // the whole log: every version summarised, every metric name seen
  const whole = await t.store.readLearningLog(userID, agent.id, { metrics: ['score'], most: 5, whole: true });
  expect(whole.size).toBe(5);
  expect([...whole.values]).toEqual(scored.slice(-5).map(latest));
  expect(whole.total).toBe(3 + scored.length);
  expect(whole.metricNames).toEqual(new Set(['score', 'other']));
  const firstVersion = whole.versions.get(first)!;
  expect(firstVersion.complete).toBe(3);
  expect(firstVersion.metrics[0]!.interval()).toMatchObject({ n: 3, mean: 2 });
  const secondScores = scored.map(latest);
  const secondVersion = whole.versions.get(second)!.metrics[0]!;
  expect(secondVersion.n).toBe(scored.length);
  expect(secondVersion.mean).toBeCloseTo(secondScores.reduce((sum, v) => sum + v, 0) / scored.length, 9);

  // two metrics: only the evaluations whose feedback carries both
  const both = await t.store.readLearningLog(userID, agent.id, { metrics: ['score', 'other'], most: 10_000 });
  const carryBoth = scored.filter((i) => i % 7 === 0);
  expect(both.size).toBe(1 + carryBoth.length);
  expect([...both.values]).toEqual([3, 1, ...carryBoth.flatMap((i) => [latest(i), 1])]);
  expect([...both.version].map((v) => both.versionIDs[v])).toEqual([first, ...carryBoth.map(() => second)]);

  // a metric nobody posted: nothing read, the names posted say what there is
  const none = await t.store.readLearningLog(userID, agent.id, { metrics: ['profit'], most: 100 });
  expect(none.size).toBe(0);
  expect(none.total).toBe(0);
  expect(none.metricNames).toEqual(new Set(['score', 'other']));
}, 180_000);
