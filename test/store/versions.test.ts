// A definition becomes a version by the same rules in every store (the conformance suite runs this
// file on IndexedDB, PGlite and PostgreSQL): what a version records of its making, and how a change
// worked out from a version someone has since replaced is refused.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { compileAgent } from '../../src/engine/index.js';
import { sha256Hex } from '../../src/core/keys.js';
import type { Provenance } from '../../src/store/records.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let userID: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
  userID = (await t.store.findAccountByKeyHash(await sha256Hex(key)))!.userID;
});
afterEach(async () => {
  await t.close();
});

const parsedRules = (body: ReturnType<typeof tippingAgent>) => [...compileAgent(body).parsedRules];

async function newAgent() {
  return (await t.call('POST', 'agent', { key, body: tippingAgent() })).body as { id: string; latestVersion: string };
}

describe('a definition becomes a version', () => {
  test('a change based on the latest version records "updated" unless its writer names its origin, as a PUT does', async () => {
    const agent = await newAgent();
    const renamed = tippingAgent('renamed');
    const updated = await t.store.updateAgentFrom(userID, agent.id, agent.latestVersion, renamed, parsedRules(renamed));
    await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('put') });
    const versions = await t.store.listVersions(userID, agent.id);
    expect(versions.map((version) => version.origin)).toEqual(['created', 'updated', 'updated']);
    expect(versions[1]!.id).toBe(updated.latestVersion);
    expect(versions[1]!.name).toBe('renamed');
  });

  test.each<[string, Provenance]>([
    ['a rollback', { origin: 'rolled back', evidence: { to: 'v0', from: 'v1' } }],
    ['an optimization', { origin: 'optimised', evidence: { metric: 'tip', goal: 'maximize' } }],
  ])('%s based on a version replaced meanwhile is refused, saves nothing, and says so in words that fit it', async (_, provenance) => {
    const agent = await newAgent();
    await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('edited meanwhile') });
    const latest = (await t.store.readAgent(userID, agent.id)).latestVersion;
    const change = tippingAgent('stale');
    const refusal = await t.store
      .updateAgentFrom(userID, agent.id, agent.latestVersion, change, parsedRules(change), provenance)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ name: 'Conflict', status: 409 });
    const message = (refusal as Error).message;
    expect(message).toContain(`agent "${agent.id}" got a new version (${latest})`);
    // one store once told a rollback to "optimize again"
    expect(message).not.toMatch(/optimi[sz]/);
    expect((await t.store.listVersions(userID, agent.id)).map((version) => version.name)).toEqual(['tipping', 'edited meanwhile']);
  });
});
