// Writes that belong together share one transaction: when any write of the
// transaction fails, nothing of it is stored. Also SPEC 6's 507 on a full disk.
import { afterEach, beforeEach, describe, expect, test, vi, type MockInstance } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let restore: (() => Promise<void>) | undefined;
// A failed write is a 500 here (a fault of the store, not of the request), which the service
// reports on the console: captured, so the expected reports are checked rather than printed.
let consoleError: MockInstance<typeof console.error>;
beforeEach(async () => {
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
  t = await createTestService();
  key = await t.signup();
});
afterEach(async () => {
  await restore?.();
  restore = undefined;
  await t.close();
  consoleError.mockRestore();
});

async function newAgent() {
  return (await t.call('POST', 'agent', { key, body: tippingAgent() })).body as { id: string; latestVersion: string };
}

describe('atomicity', () => {
  test('POST /agent: when the version write fails, no agent exists afterwards', async () => {
    const before = await t.snapshot();
    restore = await t.failWrites('versions', 'broken');
    const { status, body } = await t.call('POST', 'agent', { key, body: tippingAgent() });
    await restore();
    expect(status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('fuzzbox: internal error', expect.anything());
    expect(body.status).toBe('error');
    expect(await t.snapshot()).toBe(before);
    expect((await t.call('GET', 'agent', { key })).body).toEqual([]);
  });

  test('PUT /agent/:id: when the version write fails, the agent keeps its old definition', async () => {
    const agent = await newAgent();
    const before = await t.snapshot();
    restore = await t.failWrites('versions', 'broken');
    const { status } = await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('renamed') });
    await restore();
    expect(status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('fuzzbox: internal error', expect.anything());
    expect(await t.snapshot()).toBe(before);
    expect((await t.call('GET', `agent/${agent.id}`, { key })).body.name).toBe('tipping');
  });

  test('DELETE /agent/:id: when the tombstone write fails, agent and versions stay as they were', async () => {
    const agent = await newAgent();
    await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('second') });
    await t.call('POST', `agent/${agent.id}`, { key, body: [{ service: 1 }, { service: 9 }] });
    const before = await t.snapshot();
    // the tombstone is the delete's last write: the versions' move and the agent's removal came first
    restore = await t.failWrites('deletedAgents', 'broken');
    const { status } = await t.call('DELETE', `agent/${agent.id}`, { key });
    await restore();
    expect(status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('fuzzbox: internal error', expect.anything());
    expect(await t.snapshot()).toBe(before);
    expect((await t.call('GET', `agent/${agent.id}/version`, { key })).body).toHaveLength(2);
  });

  test('a batch evaluation stores all its logs or none', async () => {
    const agent = await newAgent();
    const before = await t.snapshot();
    // the batch's logs are one record, written with the agent read in one transaction
    restore = await t.failWrites('logs', 'broken');
    const batch = [{ service: 1 }, { service: 2 }, { service: 3 }];
    const { status, headers } = await t.call('POST', `agent/${agent.id}`, { key, body: batch });
    await restore();
    expect(status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('fuzzbox: internal error', expect.anything());
    expect(headers.get('X-Evaluation-ID')).toBeNull();
    expect(await t.snapshot()).toBe(before);
  });
});

describe('507 when the storage quota is exhausted', () => {
  test('POST /agent answers 507 and writes nothing', async () => {
    const before = await t.snapshot();
    restore = await t.failWrites('versions', 'full');
    const { status, headers, body } = await t.call('POST', 'agent', { key, body: tippingAgent() });
    await restore();
    expect(status).toBe(507);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(body).toMatchObject({ status: 'error', error: 'QuotaExceeded' });
    expect(body.message).toMatch(/quota/);
    // each store words it for where it runs: a browser's quota for the site, a server's database
    expect(body.message).toMatch(t.backend === 'dexie' ? /quota for this site/ : /the server's database is out of space/);
    expect(await t.snapshot()).toBe(before);
  });

  test('an evaluation answers 507, stores no log and sends no X-Evaluation-ID', async () => {
    const agent = await newAgent();
    const before = await t.snapshot();
    restore = await t.failWrites('logs', 'full');
    const { status, headers } = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } });
    await restore();
    expect(status).toBe(507);
    expect(headers.get('X-Evaluation-ID')).toBeNull();
    expect(await t.snapshot()).toBe(before);
  });

  test('feedback and sign-up answer 507 too', async () => {
    const agent = await newAgent();
    const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID');
    const before = await t.snapshot();
    restore = await t.failWrites('feedback', 'full');
    expect((await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { score: 1 } })).status).toBe(507);
    await restore();
    restore = await t.failWrites('accounts', 'full');
    expect((await t.call('POST', 'account', { body: { name: 'x' } })).status).toBe(507);
    await restore();
    expect(await t.snapshot()).toBe(before);
  });
});
