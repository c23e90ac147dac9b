// Firefox's Request has no `body` stream (only arrayBuffer(), blob(), text()); a service worker
// there gets such requests. Every route that reads a body must read it all the same, with the
// same bounds: JSON bodies, model files, and the streamed NDJSON of POST /import.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService({ random: () => 0.25 });
  key = await t.signup();
});
afterEach(() => t.close());

/** A request as Firefox hands it to a service worker: the same reading methods, no `body` stream. */
function withoutBodyStream(path: string, init: RequestInit, to = { service: t, key }): Request {
  const request = new Request(new URL(path, to.service.baseURL), {
    ...init,
    headers: { Authorization: `Bearer ${to.key}`, 'Content-Type': 'application/json', ...init.headers },
  });
  Object.defineProperty(request, 'body', { value: undefined });
  expect(request.body).toBeUndefined();
  return request;
}

async function handle(request: Request, service = t) {
  const response = await service.service.handle(request);
  return { status: response.status, body: await response.json() };
}

test('a JSON body is read without a body stream: the agent is created and answers as one sent with a stream', async () => {
  const created = await handle(withoutBodyStream('agent', { method: 'POST', body: JSON.stringify(tippingAgent()) }));
  expect(created.status).toBe(200);
  expect(created.body.name).toBe(tippingAgent().name);
  const answered = await handle(withoutBodyStream(`agent/${created.body.id}`, { method: 'POST', body: JSON.stringify({ service: 7 }) }));
  const streamed = await t.call('POST', `agent/${created.body.id}`, { key, body: { service: 7 } });
  expect(streamed.status).toBe(200);
  expect(answered).toEqual({ status: 200, body: streamed.body });
});

test('a model file is read without a body stream', async () => {
  const fll = [
    'Engine: tip',
    'InputVariable: service',
    '  range: 0 10',
    '  term: poor Triangle 0 0 5',
    '  term: good Triangle 5 10 10',
    'OutputVariable: tip',
    '  range: 0 30',
    '  term: low Triangle 0 5 10',
    '  term: high Triangle 20 25 30',
    'RuleBlock: rules',
    '  rule: if service is poor then tip is low',
    '  rule: if service is good then tip is high',
  ].join('\n');
  const created = await handle(withoutBodyStream('agent', { method: 'POST', body: fll, headers: { 'Content-Type': 'text/x-fll' } }));
  expect(created.status).toBe(200);
  expect(Object.keys(created.body.inputs)).toEqual(['service']);
  expect(created.body.rules).toHaveLength(2);
});

test('an empty body is still refused where one is required, and allowed where it is optional', async () => {
  const empty = await handle(withoutBodyStream('agent', { method: 'POST' }));
  expect(empty.status).toBe(400);
  expect(empty.body.message).toMatch(/the body is empty/);
  const account = await t.service.handle(Object.defineProperty(new Request(new URL('account', t.baseURL), { method: 'POST' }), 'body', { value: undefined }));
  expect(account.status).toBe(200);
});

test('a body over 1 MiB without a body stream or Content-Length is refused and nothing is written', async () => {
  const huge = JSON.stringify({ ...tippingAgent(), name: 'x'.repeat(1024 * 1024) });
  const request = withoutBodyStream('agent', { method: 'POST', body: huge });
  expect(request.headers.get('content-length')).toBeNull();
  const before = await t.snapshot();
  const refused = await handle(request);
  expect(refused.status).toBe(413);
  expect(refused.body.error).toBe('PayloadTooLarge');
  expect(await t.snapshot()).toBe(before);
});

test('POST /import reads a backup without a body stream, and restores what GET /export gave', async () => {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const batch = Array.from({ length: 40 }, (_, i) => ({ service: i % 11 }));
  expect((await t.call('POST', `agent/${agent.id}`, { key, body: batch })).status).toBe(200);
  const exported = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  // every line but the header and the trailer is a record
  const records = exported.trimEnd().split('\n').length - 2;

  const elsewhere = await createTestService();
  try {
    const to = { service: elsewhere, key: await elsewhere.signup('restored') };
    const init = { method: 'POST', body: exported, headers: { 'Content-Type': 'application/x-ndjson' } };
    const restored = await handle(withoutBodyStream('import', init, to), elsewhere);
    expect(restored).toEqual({ status: 200, body: { lines: records + 2, imported: records, unchanged: 0 } });
    const logs = await elsewhere.call('GET', `agent/${agent.id}/evaluation`, { key: to.key });
    expect(logs.status).toBe(200);
    expect(logs.body.evaluations).toHaveLength(batch.length);
  } finally {
    await elsewhere.close();
  }
});
