// SPEC 5: each account sees only its own agents, versions, evaluations and feedback; another
// account's id answers 404 exactly as an id that never existed, and lists never leak.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let alice: string;
let bob: string;
let agent: { id: string; latestVersion: string };
let reqID: string;

beforeAll(async () => {
  t = await createTestService();
  alice = await t.signup('alice');
  bob = await t.signup('bob');
  agent = (await t.call('POST', 'agent', { key: alice, body: tippingAgent('alice’s') })).body;
  reqID = (await t.call('POST', `agent/${agent.id}`, { key: alice, body: { service: 6 } })).headers.get('X-Evaluation-ID')!;
  await t.call('POST', `evaluation/${reqID}/feedback`, { key: alice, body: { profit: 3 } });
  await t.call('POST', 'agent', { key: bob, body: tippingAgent('bob’s') });
});
afterAll(() => t.close());

const neverExisted = { agent: 'NEVER0000000000000000000000', version: 'NEVER0000000000000000000001', evaluation: '00000000-0000-4000-8000-000000000000' };

test('lists never leak: each account lists only its own agents', async () => {
  expect((await t.call('GET', 'agent', { key: alice })).body.map((a: { name: string }) => a.name)).toEqual(['alice’s']);
  expect((await t.call('GET', 'agent', { key: bob })).body.map((a: { name: string }) => a.name)).toEqual(['bob’s']);
});

test.each([
  ['GET', 'agent/:agent', undefined],
  ['PUT', 'agent/:agent', tippingAgent('taken over')],
  ['DELETE', 'agent/:agent', undefined],
  ['POST', 'agent/:agent', { service: 1 }],
  ['POST', 'agent/:agent?meta=1', [{ service: 1 }]],
  ['GET', 'agent/:agent/version', undefined],
  ['GET', 'version/:version', undefined],
  ['GET', 'evaluation/:evaluation', undefined],
  ['POST', 'evaluation/:evaluation/feedback', { profit: -100 }],
  ['GET', 'evaluation/:evaluation/feedback', undefined],
])('%s %s with another account’s id answers as an id that never existed, and changes nothing', async (method, pattern, body) => {
  const ids = { agent: agent.id, version: agent.latestVersion, evaluation: reqID };
  const fill = (values: Record<string, string>) => pattern.replace(/:(agent|version|evaluation)/, (_, kind: keyof typeof ids) => values[kind]!);
  const before = await t.snapshot();
  const foreign = await t.call(method, fill(ids), { key: bob, body });
  const missing = await t.call(method, fill(neverExisted), { key: bob, body });
  expect(foreign.status).toBe(404);
  expect(missing.status).toBe(404);
  const ownID = Object.values(ids).find((id) => foreign.body.message.includes(id))!;
  const missingID = Object.values(neverExisted).find((id) => missing.body.message.includes(id))!;
  expect({ ...foreign.body, message: foreign.body.message.replace(ownID, '…') }).toEqual({
    ...missing.body,
    message: missing.body.message.replace(missingID, '…'),
  });
  expect([...foreign.headers.keys()]).toEqual([...missing.headers.keys()]);
  expect(await t.snapshot()).toBe(before);
});

test('the owner still sees everything after the other account’s attempts', async () => {
  expect((await t.call('GET', `agent/${agent.id}`, { key: alice })).body.name).toBe('alice’s');
  expect((await t.call('GET', `agent/${agent.id}/version`, { key: alice })).body).toHaveLength(1);
  expect((await t.call('GET', `evaluation/${reqID}`, { key: alice })).body.userID).toBeDefined();
  expect((await t.call('GET', `evaluation/${reqID}/feedback`, { key: alice })).body.map((f: { data: unknown }) => f.data)).toEqual([{ profit: 3 }]);
});

test('a deleted agent answers 410 only to its owner', async () => {
  const doomed = (await t.call('POST', 'agent', { key: alice, body: tippingAgent('doomed') })).body;
  await t.call('DELETE', `agent/${doomed.id}`, { key: alice });
  expect((await t.call('GET', `agent/${doomed.id}`, { key: alice })).status).toBe(410);
  expect((await t.call('GET', `agent/${doomed.id}`, { key: bob })).status).toBe(404);
});
