// GET /agent/:id/evaluation lists an agent's evaluations newest first, a page at a time, with their
// feedback; DELETE /evaluation/:id erases one with its feedback (SPEC 7). Both hold for a deleted
// agent's logs, for their owner only.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { evaluationListSchema } from '../../src/schema/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let agentID: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
  agentID = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body.id;
});
afterEach(async () => {
  await t.close();
});

/** Evaluates `inputs` (a batch when more than one) and returns their ids in order. */
async function evaluate(services: number[], agent = agentID): Promise<string[]> {
  const body = services.length === 1 ? { service: services[0] } : services.map((service) => ({ service }));
  const response = await t.call('POST', `agent/${agent}`, { key, body });
  expect(response.status).toBe(200);
  return response.headers.get('X-Evaluation-ID')!.split(',');
}

async function list(query = '', apiKey = key, agent = agentID) {
  const response = await t.call('GET', `agent/${agent}/evaluation${query}`, { key: apiKey });
  if (response.status === 200) evaluationListSchema.parse(response.body);
  return response;
}

/** Every id the listing gives, page after page of `limit`. */
async function listAll(limit: number, query = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const { body } = await list(`?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    ids.push(...body.evaluations.map((entry: { reqID: string }) => entry.reqID));
    cursor = body.next;
  } while (cursor);
  return ids;
}

test('newest first, each entry with its log fields and its feedback; 100 by default, pages of any size up to 1000', async () => {
  const first = await evaluate([1]);
  const batch = await evaluate(Array.from({ length: 150 }, (_, i) => i % 11));
  const last = await evaluate([9]);
  const newestFirst = [...last, ...[...batch].reverse(), ...first];
  await t.call('POST', `evaluation/${batch[140]}/feedback`, { key, body: { stars: 4 } });
  await t.call('POST', `evaluation/${batch[140]}/feedback`, { key, body: { stars: 5 } });

  const page = (await list()).body;
  expect(page.evaluations).toHaveLength(100);
  expect(page.evaluations.map((entry: { reqID: string }) => entry.reqID)).toEqual(newestFirst.slice(0, 100));
  const log = (await t.call('GET', `evaluation/${last[0]}`, { key })).body;
  expect(page.evaluations[0]).toEqual({
    reqID: log.reqID,
    versionID: log.versionID,
    input: log.input,
    crisp: log.crisp,
    createdAt: log.createdAt,
    feedback: [],
  });
  const rated = page.evaluations.find((entry: { reqID: string }) => entry.reqID === batch[140]);
  expect(rated.feedback.map((feedback: { data: unknown }) => feedback.data)).toEqual([{ stars: 4 }, { stars: 5 }]);
  expect(rated.feedback).toEqual((await t.call('GET', `evaluation/${batch[140]}/feedback`, { key })).body);

  expect((await list('?limit=1000')).body).toMatchObject({ next: null });
  expect((await list('?limit=1000')).body.evaluations).toHaveLength(152);
  for (const limit of [1, 7, 64, 151]) expect(await listAll(limit)).toEqual(newestFirst);
});

test('a cursor stays valid while new evaluations arrive and while others are erased', async () => {
  const older = await evaluate(Array.from({ length: 100 }, (_, i) => i / 10));
  const firstPage = (await list('?limit=30')).body;
  // new evaluations come in front; the next page goes on where the first stopped
  await evaluate([5]);
  await evaluate([1, 2, 3]);
  const secondPage = (await list(`?limit=30&cursor=${firstPage.next}`)).body;
  expect(secondPage.evaluations.map((entry: { reqID: string }) => entry.reqID)).toEqual([...older].reverse().slice(30, 60));
  // erasing logs listed already, in the same record as the next one, moves nothing
  for (const reqID of older.slice(40, 45)) expect((await t.call('DELETE', `evaluation/${reqID}`, { key })).status).toBe(200);
  const thirdPage = (await list(`?limit=30&cursor=${secondPage.next}`)).body;
  expect(thirdPage.evaluations.map((entry: { reqID: string }) => entry.reqID)).toEqual([...older].reverse().slice(60, 90));
});

test("filters: ?version= lists one version's logs, ?feedback=true|false those with or without feedback", async () => {
  const v1 = await evaluate([1, 2, 3]);
  const put = (await t.call('PUT', `agent/${agentID}`, { key, body: tippingAgent('second') })).body;
  const v2 = await evaluate([4, 5]);
  for (const reqID of [v1[1]!, v2[0]!]) await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { stars: 1 } });
  expect(await listAll(2, `&version=${put.latestVersion}`)).toEqual([...v2].reverse());
  expect(await listAll(2, '&feedback=true')).toEqual([v2[0], v1[1]]);
  expect(await listAll(2, '&feedback=false')).toEqual([v2[1], v1[2], v1[0]]);
  expect(await listAll(10, `&version=${put.latestVersion}&feedback=false`)).toEqual([v2[1]]);
  expect((await list('?version=no-such-version')).body).toEqual({ evaluations: [], next: null });
});

test('pages across many records: singles and batches mixed, with and without the feedback filter', async () => {
  // more records than one read of a listing takes, so pages span reads and end on their edges
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) ids.push(...(await evaluate(i % 13 === 0 ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].slice(0, 2 + (i % 7)) : [i % 10])));
  const rated = ids.filter((_, i) => i % 3 === 0);
  for (const reqID of rated) await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { stars: 2 } });
  const newestFirst = [...ids].reverse();
  for (const limit of [1, 5, 16, 17, 30, 1000]) expect(await listAll(limit)).toEqual(newestFirst);
  const withFeedback = newestFirst.filter((reqID) => rated.includes(reqID));
  for (const limit of [1, 4, 100]) {
    expect(await listAll(limit, '&feedback=true')).toEqual(withFeedback);
    expect(await listAll(limit, '&feedback=false')).toEqual(newestFirst.filter((reqID) => !rated.includes(reqID)));
  }
  const page = (await list('?limit=20&feedback=true')).body;
  for (const entry of page.evaluations) expect(entry.feedback.map((feedback: { data: unknown }) => feedback.data)).toEqual([{ stars: 2 }]);
});

test('a bad limit, cursor or filter is a clear 400 that changes nothing', async () => {
  await evaluate([1]);
  for (const query of ['?limit=0', '?limit=1001', '?limit=abc', '?limit=1.5', '?limit=-3', '?limit=']) {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(body.error).toBe('InvalidRequest');
    expect(body.message).toContain('?limit= must be a whole number from 1 to 1000');
  }
  const forged = btoa(JSON.stringify({ seq: 1 }));
  for (const cursor of ['zzz', '!!!', forged, btoa('[1,2]'), btoa('[1.5,0,"x"]')]) {
    const { status, body } = await list(`?cursor=${encodeURIComponent(cursor)}`);
    expect(status).toBe(400);
    expect(body.message).toContain('?cursor= is not a cursor this service gave out');
  }
  expect((await list('?feedback=yes')).body.message).toContain('?feedback= must be true');
  expect((await list('?version=')).status).toBe(400);
});

test('DELETE /evaluation/:id erases the log and its feedback; the rest of its batch stays', async () => {
  const batch = await evaluate([1, 2, 3]);
  const single = await evaluate([4]);
  await t.call('POST', `evaluation/${batch[1]}/feedback`, { key, body: { stars: 2 } });
  await t.call('POST', `evaluation/${batch[2]}/feedback`, { key, body: { stars: 3 } });
  const kept = (await t.call('GET', `evaluation/${batch[2]}`, { key })).body;

  const erased = await t.call('DELETE', `evaluation/${batch[1]}`, { key });
  expect(erased.status).toBe(200);
  expect(erased.body).toEqual({ message: 'OK' });
  expect((await t.call('GET', `evaluation/${batch[1]}`, { key })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${batch[1]}/feedback`, { key })).status).toBe(404);
  expect((await t.call('DELETE', `evaluation/${batch[1]}`, { key })).status).toBe(404);
  expect((await t.call('GET', `evaluation/${batch[2]}`, { key })).body).toEqual(kept);
  expect((await t.call('GET', `evaluation/${batch[2]}/feedback`, { key })).body).toHaveLength(1);
  expect((await t.call('DELETE', `evaluation/${single[0]}`, { key })).status).toBe(200);
  expect(await listAll(10)).toEqual([batch[2], batch[0]]);
  expect(await t.storedLogIDs()).toEqual([batch[0], batch[2]]);
  const tables = JSON.parse(await t.snapshot()) as Record<string, { records: Array<{ data?: unknown }> }>;
  // in IndexedDB the batch's record is rewritten without the log, the single's record removed
  if (t.backend === 'dexie') expect(tables.logGroups!.records).toHaveLength(1);
  expect(tables.feedback!.records.map((record) => record.data)).toEqual([{ stars: 3 }]);
  expect((await t.call('GET', 'storage', { key })).body.counts).toMatchObject({ evaluations: 2, feedback: 1 });
});

test("a deleted agent's logs stay listable and erasable by their owner; another account gets 404 and changes nothing", async () => {
  const ids = await evaluate([1, 2]);
  expect((await t.call('DELETE', `agent/${agentID}`, { key })).status).toBe(200);
  expect((await t.call('GET', `agent/${agentID}`, { key })).status).toBe(410);
  expect(await listAll(5)).toEqual([...ids].reverse());

  const other = await t.signup();
  const theirs = (await t.call('POST', 'agent', { key: other, body: tippingAgent() })).body.id;
  const before = await t.snapshot();
  expect((await list('', other)).status).toBe(404);
  expect((await t.call('DELETE', `evaluation/${ids[0]}`, { key: other })).status).toBe(404);
  expect((await list('', key, theirs)).status).toBe(404);
  expect((await list('', key, 'no-such-agent')).status).toBe(404);
  expect(await t.snapshot()).toBe(before);

  expect((await t.call('DELETE', `evaluation/${ids[0]}`, { key })).status).toBe(200);
  expect(await listAll(5)).toEqual([ids[1]]);
});

test('FuzzyClient.listEvaluations and deleteEvaluation over real HTTP', async () => {
  const { FuzzyClient } = await import('../../src/client/index.js');
  const client = new FuzzyClient({ baseURL: t.baseURL, apiKey: key });
  const ids = await evaluate([1, 2, 3, 4]);
  await client.postFeedback(ids[1]!, { stars: 2 });
  const first = await client.listEvaluations(agentID, { limit: 2 });
  expect(first.evaluations.map((entry) => entry.reqID)).toEqual([ids[3], ids[2]]);
  const rest = await client.listEvaluations(agentID, { limit: 2, cursor: first.next! });
  expect(rest.evaluations.map((entry) => entry.reqID)).toEqual([ids[1], ids[0]]);
  expect((await client.listEvaluations(agentID, { feedback: true })).evaluations.map((entry) => entry.feedback[0]!.data)).toEqual([{ stars: 2 }]);
  await client.deleteEvaluation(ids[1]!);
  expect((await client.listEvaluations(agentID)).evaluations.map((entry) => entry.reqID)).toEqual([ids[3], ids[2], ids[0]]);
  await expect(client.deleteEvaluation(ids[1]!)).rejects.toMatchObject({ status: 404 });
});
