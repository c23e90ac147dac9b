// What a replica pushes or a backup imports is held to what REST would have written (docs/SYNC.md,
// "What a push may hold"): the same checks as POST /agent/:id and POST /evaluation/:id/feedback,
// and bounds on what REST never takes from a client: dates, a version's evidence, ids. Each refusal
// is a 400 naming the line, and changes nothing. Every device's records are pooled on the server,
// so one device's forged numbers would reach everyone's learning.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { BackupRecord } from '../../src/schema/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('replica');
});
afterEach(async () => t.close());

const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const header = () => JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });
const body = (records: readonly unknown[]) => [header(), ...records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record)))].join('\n');

type Of<K extends BackupRecord['kind']> = Extract<BackupRecord, { kind: K }>;

/** An agent, a log of it with feedback, as the account's export holds them. */
async function account() {
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent('held') })).body;
  const log = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 2 } })).headers.get('x-evaluation-id')!;
  await t.call('POST', `evaluation/${log}/feedback`, { key, body: { comfort: 3 } });
  const text = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  const records = text
    .trimEnd()
    .split('\n')
    .slice(1, -1)
    .map((line) => JSON.parse(line) as BackupRecord);
  const one = <K extends BackupRecord['kind']>(kind: K) => records.find((record): record is Of<K> => record.kind === kind)!;
  return { agent, log, version: one('version'), evaluation: one('evaluation'), feedback: one('feedback') };
}

/** A line whose evidence nests `depth` objects deep, written as text (JSON.stringify would overflow the stack as the service once did). */
const nested = (record: object, depth: number) =>
  JSON.stringify({ ...record, evidence: 'NESTED' }).replace('"NESTED"', `${'{"deeper":'.repeat(depth)}1${'}'.repeat(depth)}`);

describe.each(['sync/push', 'import'])('POST /%s', (path) => {
  test('refuses what REST refuses, and more, with a 400 naming the line; nothing changes', async () => {
    const { version, evaluation, feedback } = await account();
    const newLog = (fields: object) => ({ ...evaluation, reqID: randomUUID(), ...fields });
    const newFeedback = (fields: object) => ({ ...feedback, id: randomUUID(), ...fields });
    const newVersion = (fields: object) => ({ ...version, id: `V${randomUUID().replace(/-/g, '').slice(0, 25)}`, seq: 1, ...fields });
    const cases: Array<[string, unknown, RegExp]> = [
      // item 9: as POST /evaluation/:id/feedback refuses
      ['empty feedback', newFeedback({ data: {} }), /at least one metric/],
      ['a metric name of 100,000 characters', newFeedback({ data: { ['m'.repeat(100_000)]: 1 } }), /at most 200 characters/],
      ['a log without inputs', newLog({ input: {} }), /at least one input/],
      ['a forged crisp of 1e308', newLog({ crisp: { tip: 1e308 } }), /outside the output's range \[0, 30\]/],
      ['an answer outside the range', newLog({ returned: { tip: -5 } }), /outside the output's range/],
      ['a density of any size', newLog({ returned: { tip: 12 }, density: 1e300 }), /density 1e\+300 is above/],
      ['a density without answers drawn', newLog({ density: 2 }), /only with the "returned"/],
      ['a log id ".."', newLog({ reqID: '..' }), /UUID/],
      ['a feedback id "x/y"', newFeedback({ id: 'x/y' }), /UUID/],
      ['a version id ".."', newVersion({ id: '..' }), /letters, digits/],
      // item 5: dates REST would never write
      ['a version dated 9999-12-31T23:59:59.999Z', newVersion({ createdAt: '9999-12-31T23:59:59.999Z' }), /a date must be a real instant/],
      ['a log dated 1970', newLog({ createdAt: '1970-01-01T00:00:00.000Z' }), /a date must be a real instant/],
      ['February the 31st', newFeedback({ createdAt: '2026-02-31T00:00:00.000Z' }), /a date must be a real instant/],
      // item 6: evidence nested deep (a stack overflow, a 500, at 5,000; at 3,000 stored, then every re-push a 500)
      ['evidence nested 5,000 deep', nested(newVersion({}), 5000), /evidence nests at most 8 deep/],
      ['evidence nested 3,000 deep', nested(newVersion({}), 3000), /evidence nests at most 8 deep/],
      ['evidence of 100,000 characters', newVersion({ evidence: { note: 'x'.repeat(100_000) } }), /at most 65536 characters/],
    ];
    const before = await t.snapshot();
    for (const [what, record, message] of cases) {
      const response = await t.call('POST', path, { key, body: body([record]), headers: NDJSON });
      expect(response.status, `${what}: ${JSON.stringify(response.body).slice(0, 300)}`).toBe(400);
      expect(response.body.error, what).toBe('ValidationError');
      expect(response.body.message, what).toMatch(/^line 2: /);
      expect(response.body.message, what).toMatch(message);
    }
    expect(await t.snapshot()).toBe(before);
  });

  test('takes what REST writes: a log autopilot drew, feedback, a dated version with evidence', async () => {
    const { agent, version, evaluation, feedback } = await account();
    const drawn = { ...evaluation, reqID: randomUUID(), returned: { tip: 13.5 }, density: 4.2 };
    const later = { ...feedback, id: randomUUID(), evaluationLog: drawn.reqID, data: { comfort: 1e6 } };
    const response = await t.call('POST', path, { key, body: body([version, drawn, later]), headers: NDJSON });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ imported: 2, unchanged: 1 });
    expect((await t.call('GET', `evaluation/${drawn.reqID}/feedback`, { key })).body.map((f: { data: object }) => f.data)).toEqual([{ comfort: 1e6 }]);
    expect((await t.call('GET', `agent/${agent.id}`, { key })).status).toBe(200);
  });
});

test('the later edit wins a merge by instant: an agent edited on another replica after this one is taken', async () => {
  const { agent } = await account();
  // the agent as another replica edited it a second later than here
  await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('edited here') });
  const here = (await t.call('GET', `agent/${agent.id}`, { key })).body;
  const later = new Date(Date.parse(here.updatedAt) + 1000).toISOString();
  const versionID = `V${randomUUID().replace(/-/g, '').slice(0, 25)}`;
  const definition = tippingAgent('edited there');
  const records = [
    { kind: 'version', id: versionID, versionOf: agent.id, ...definition, createdAt: later, seq: 1, retired: false },
    { kind: 'agent', id: agent.id, ...definition, createdAt: here.createdAt, updatedAt: later, latestVersion: versionID, versionCount: 2 },
  ];
  const response = await t.call('POST', 'sync/push', { key, body: body(records), headers: NDJSON });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect((await t.call('GET', `agent/${agent.id}`, { key })).body).toMatchObject({ name: 'edited there', updatedAt: later });
  // and the account's own backup still imports whole into a new account
  const backup = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  const other = await createTestService();
  try {
    const restored = await other.call('POST', 'import', { key: await other.signup('restored'), body: backup, headers: NDJSON });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
  } finally {
    await other.close();
  }
});
