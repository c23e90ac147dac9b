// Concurrent requests through fetch(): IndexedDB serialises the transactions, and no write is lost.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTestService, tippingAgent, type CallResult, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
});
afterEach(() => t.close());

test('50 parallel PUTs to one agent → 51 versions; latestVersion is the last version written', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent('put 0') })).body;
  const puts = await Promise.all(Array.from({ length: 50 }, (_, i) => t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent(`put ${i + 1}`) })));
  expect(puts.map((put) => put.status)).toEqual(Array(50).fill(200));

  const versions = (await t.call('GET', `agent/${agent.id}/version`, { key })).body as Array<{ id: string; createdAt: string }>;
  expect(versions).toHaveLength(51);
  expect(new Set(versions.map((v) => v.id)).size).toBe(51);
  expect(versions[0]!.id).toBe(agent.latestVersion);
  // every PUT's answer names its own version, and all of them are listed
  expect(new Set(versions.slice(1).map((v) => v.id))).toEqual(new Set(puts.map((put) => put.body.latestVersion)));
  // oldest first, and every PUT got a new updatedAt, later than the one before
  const times = versions.map((v) => v.createdAt);
  expect(times).toEqual([...times].sort());
  expect(new Set(times).size).toBe(51);

  const final = (await t.call('GET', `agent/${agent.id}`, { key })).body;
  const last = versions.at(-1)!;
  expect(final.latestVersion).toBe(last.id);
  // the agent's definition is the one its latest version holds
  const lastVersion = (await t.call('GET', `version/${last.id}`, { key })).body;
  expect(final.name).toBe(lastVersion.name);
  expect(puts.find((put) => put.body.latestVersion === last.id)!.body.name).toBe(final.name);
});

test('1,000 concurrent evaluations → 1,000 logs, each readable with its own input', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const inputs = Array.from({ length: 1000 }, (_, i) => ({ service: (i % 101) / 10 }));
  const results = await Promise.all(inputs.map((body) => t.call('POST', `agent/${agent.id}`, { key, body })));
  expect(results.every((result) => result.status === 200)).toBe(true);
  const ids = results.map((result) => result.headers.get('X-Evaluation-ID')!);
  expect(new Set(ids).size).toBe(1000);

  expect((await t.storedLogIDs()).sort()).toEqual([...ids].sort());

  const logs = await Promise.all(ids.map((id) => t.call('GET', `evaluation/${id}`, { key })));
  logs.forEach((log, i) => {
    expect(log.status).toBe(200);
    expect(log.body.input).toEqual(inputs[i]);
    expect(log.body.crisp).toEqual(results[i]!.body);
    expect(log.body.centroid.tip[0]).toBe(results[i]!.body.tip);
  });
});

test('concurrent evaluations of many agents, some refused, each succeed or fail alone', async () => {
  const agents = await Promise.all(Array.from({ length: 40 }, async (_, i) => (await t.call('POST', 'agent', { key, body: tippingAgent(`agent ${i}`) })).body));
  const deleted = agents[0]!.id;
  await t.call('DELETE', `agent/${deleted}`, { key });
  const before = (await t.storedLogIDs()).length;
  // every agent twice with a valid input, plus refusals mixed in: a deleted agent, an unknown
  // input, an agent that never existed
  const requests = [
    ...agents
      .slice(1)
      .flatMap((agent) => [agent.id, agent.id])
      .map((id) => ({ id, body: { service: 5 }, status: 200 })),
    { id: deleted, body: { service: 5 }, status: 410 },
    { id: agents[1]!.id, body: { speed: 5 }, status: 400 },
    { id: 'NOPE', body: { service: 5 }, status: 404 },
  ].sort(() => Math.random() - 0.5);
  const results = await Promise.all(requests.map(({ id, body }) => t.call('POST', `agent/${id}`, { key, body })));
  expect(results.map((result) => result.status)).toEqual(requests.map((request) => request.status));
  // service 5 → only `good` fires → medium, the triangle [10,15,20]: 15
  for (const result of results.filter((r) => r.status === 200)) expect(result.body).toEqual({ tip: 15 });
  const after = (await t.storedLogIDs()).length;
  expect(after - before).toBe(78);
});

test('PUTs racing evaluations: no log is older than the version it ran on', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent('v0') })).body;
  // A burst of PUTs in one millisecond dates each version 1 ms after the one before, so the
  // versions run ahead of the clock: a log dated by the clock alone would predate its version.
  const answers: CallResult[] = [];
  for (let round = 0; round < 4; round++) {
    const requests = Array.from({ length: 60 }, (_, i) =>
      i < 30
        ? t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent(`v${round}.${i}`) })
        : t.call('POST', `agent/${agent.id}`, { key, body: i % 3 === 0 ? [{ service: i % 10 }, { service: 3 }] : { service: i % 10 } }),
    );
    answers.push(...(await Promise.all(requests)).filter((answer) => answer.headers.has('X-Evaluation-ID')));
  }
  expect(answers.map((answer) => answer.status)).toEqual(Array(4 * 30).fill(200));
  const versionTimes = new Map<string, string>();
  for (const { id } of (await t.call('GET', `agent/${agent.id}/version`, { key })).body as Array<{ id: string }>) {
    versionTimes.set(id, (await t.call('GET', `version/${id}`, { key })).body.createdAt);
  }
  const reqIDs = answers.flatMap((answer) => answer.headers.get('X-Evaluation-ID')!.split(','));
  expect(reqIDs).toHaveLength(4 * 40);
  const usedVersions = new Set<string>();
  for (const reqID of reqIDs) {
    const log = (await t.call('GET', `evaluation/${reqID}`, { key })).body;
    usedVersions.add(log.versionID);
    expect(log.createdAt >= versionTimes.get(log.versionID)!, `${log.createdAt} < ${versionTimes.get(log.versionID)}`).toBe(true);
  }
  expect(usedVersions.size).toBeGreaterThan(1);
});
