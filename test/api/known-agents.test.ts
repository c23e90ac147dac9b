// A service answers evaluations from agents as it last read them (core/known-agents.ts). Another
// service on the same store — a page beside the worker, a sync, another server process — changes
// agents behind its back: every answer must still come from the agent as stored.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { compileAgent, evaluate, type AgentDefinition } from '../../src/engine/index.js';
import { createFuzzyService, type FuzzyService } from '../../src/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
/** a second service on the same store, knowing nothing the first one knows */
let other: FuzzyService;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
  // not closed: closing a service closes its store, which t's service shares
  other = createFuzzyService({ store: t.store });
});
afterEach(() => t.close());

async function callOther(method: string, path: string, body?: unknown) {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
  const response = await other.handle(new Request(`http://other.test/${path}`, { method, headers, body: JSON.stringify(body) }));
  return { status: response.status, body: await response.json() };
}

/** The tipping agent with its rules turned round: a poor service now tips high. */
const reversed = () => {
  const agent = tippingAgent();
  return { ...agent, rules: ['IF service IS poor THEN tip IS high', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS low'] };
};

/** What the engine itself answers for `definition`, without the service. */
const expected = (definition: AgentDefinition, inputs: Record<string, number>) => evaluate(compileAgent(definition), inputs).crisp;

test('an agent changed by another service is answered, and logged, as it is now', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const before = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 1 } });
  expect(before.body).toEqual(expected(tippingAgent() as AgentDefinition, { service: 1 }));

  const changed = await callOther('PUT', `agent/${agent.id}`, reversed());
  expect(changed.status).toBe(200);
  const after = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 1 } });
  expect(after.status).toBe(200);
  expect(after.body).toEqual(expected(reversed() as AgentDefinition, { service: 1 }));
  expect(after.body).not.toEqual(before.body);
  const log = (await t.call('GET', `evaluation/${after.headers.get('X-Evaluation-ID')}`, { key })).body;
  expect(log.versionID).toBe(changed.body.latestVersion);
  expect(await t.storedLogIDs()).toEqual([before.headers.get('X-Evaluation-ID'), after.headers.get('X-Evaluation-ID')]);
});

test('an input added by another service is accepted at once', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } })).status).toBe(200);
  const withFood = {
    ...tippingAgent(),
    inputs: { ...tippingAgent().inputs, food: { bad: [0, 5], good: [5, 10] } },
    rules: [...tippingAgent().rules, 'IF food IS bad THEN tip IS low'],
  };
  expect((await callOther('PUT', `agent/${agent.id}`, withFood)).status).toBe(200);

  const answer = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5, food: 2 } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body).toEqual(expected(withFood as AgentDefinition, { service: 5, food: 2 }));
});

test('an agent deleted by another service answers 410 and stores no log', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } })).status).toBe(200);
  expect((await callOther('DELETE', `agent/${agent.id}`)).status).toBe(200);

  const answer = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } });
  expect(answer.status).toBe(410);
  expect(answer.body.error).toBe('Gone');
  // and with inputs it would refuse: still 410, the agent's state, not its inputs
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: { nonsense: 5 } })).status).toBe(410);
  expect((await t.storedRecords()).evaluations).toBe(1);
});

test("an agent known from its owner's requests stays another account's 404", async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } })).status).toBe(200);
  const stranger = await t.signup();
  const answer = await t.call('POST', `agent/${agent.id}`, { key: stranger, body: { service: 5 } });
  expect(answer.status).toBe(404);
  expect((await t.storedRecords()).evaluations).toBe(1);
});
