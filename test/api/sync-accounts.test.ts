// Sync never crosses accounts (docs/SYNC.md, "Accounts"): ids are global, so account B's push or
// import naming account A's agent, version, log or feedback is refused with a 400 naming the
// line and changes nothing; B's pulls, whatever checkpoint or replica it sends, hold only B's rows.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { backupRecordSchema, type BackupRecord } from '../../src/schema/index.js';
import { canonical } from '../../src/store/backup-records.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let a: string;
let b: string;
beforeEach(async () => {
  t = await createTestService();
  a = await t.signup('a');
  b = await t.signup('b');
});
afterEach(async () => t.close());

const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });
const body = (records: readonly unknown[]) => [header, ...records.map((record) => JSON.stringify(record))].join('\n');

async function exportOf(apiKey: string): Promise<BackupRecord[]> {
  const response = await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${apiKey}` } });
  return (await response.text())
    .trimEnd()
    .split('\n')
    .slice(1, -1)
    .map((line) => backupRecordSchema.parse(JSON.parse(line)));
}

async function pull(query: string, apiKey: string) {
  const response = await fetch(new URL(`sync/pull${query}`, t.baseURL), { headers: { Authorization: `Bearer ${apiKey}` } });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, text, body: JSON.parse(text), head: undefined, records: [] as BackupRecord[] };
  const [head, ...lines] = text.trimEnd().split('\n');
  return {
    status: 200,
    text,
    body: undefined,
    head: JSON.parse(head!) as { checkpoint: string | null; more: boolean },
    records: lines.map((line) => JSON.parse(line) as BackupRecord),
  };
}

/** Account A's agent (two versions), logs and feedback, and the records of its export. */
async function accountA() {
  const agent = (await t.call('POST', 'agent', { key: a, body: tippingAgent('a') })).body;
  const log = (await t.call('POST', `agent/${agent.id}`, { key: a, body: { service: 2 } })).headers.get('x-evaluation-id')!;
  await t.call('PUT', `agent/${agent.id}`, { key: a, body: tippingAgent('a v2') });
  await t.call('POST', `evaluation/${log}/feedback`, { key: a, body: { comfort: 3 } });
  return { agent, log, records: await exportOf(a) };
}

/** B's own agent, its version and a log of it, as records. */
async function accountB() {
  const agent = (await t.call('POST', 'agent', { key: b, body: tippingAgent('b') })).body;
  await t.call('POST', `agent/${agent.id}`, { key: b, body: { service: 4 } });
  return { agent, records: await exportOf(b) };
}

const of = <K extends BackupRecord['kind']>(records: BackupRecord[], kind: K) =>
  records.filter((record): record is Extract<BackupRecord, { kind: K }> => record.kind === kind);

describe.each(['sync/push', 'import'])("account B's POST /%s naming account A's records", (path) => {
  test("is refused with a 400 naming the line; nothing of A's (or B's) changes", async () => {
    const { agent, log, records } = await accountA();
    const own = await accountB();
    const [version] = of(records, 'version');
    const [evaluation] = of(records, 'evaluation');
    const [feedback] = of(records, 'feedback');
    const [agentLine] = of(records, 'agent');
    const ownVersion = of(own.records, 'version')[0]!;
    const later = new Date(Date.now() + 60_000).toISOString();
    const attempts: Array<[string, unknown[]]> = [
      ["A's whole export", records],
      ["A's agent, later than A's state", [version, { ...agentLine!, updatedAt: later }]],
      ["a new version of A's agent", [{ ...version!, id: 'b-version-of-a', createdAt: later }]],
      ["A's version under its own id", [version]],
      ["a deletion of A's agent", [{ kind: 'deletion', id: agent.id, deletedAt: later }]],
      ["a log of A's agent and version", [{ ...evaluation!, reqID: randomUUID() }]],
      ["a log of B's own version naming A's agent", [{ ...evaluation!, reqID: randomUUID(), agentID: agent.id, versionID: ownVersion.id }]],
      ["feedback on A's log", [{ ...feedback!, id: randomUUID() }]],
      [
        "A's feedback under its own id, on a log of B's",
        [{ ...evaluation!, agentID: own.agent.id, versionID: ownVersion.id, input: { service: 4 } }, feedback],
      ],
    ];
    const before = await t.snapshot();
    for (const [what, lines] of attempts) {
      const response = await t.call('POST', path, { key: b, body: body(lines), headers: NDJSON });
      expect(response.status, what).toBe(400);
      expect(response.body.error, what).toBe('ValidationError');
      expect(response.body.message, what).toMatch(/^line \d+: /);
      expect(JSON.stringify(response.body).length, what).toBeLessThan(2048);
      expect(await t.snapshot(), what).toBe(before);
    }
    expect((await t.call('GET', `agent/${agent.id}`, { key: a })).body).toMatchObject({ name: 'a v2' });
    expect((await t.call('GET', `agent/${agent.id}`, { key: b })).status).toBe(404);
    expect((await t.call('GET', `evaluation/${log}/feedback`, { key: a })).body).toHaveLength(1);
  });

  test("a deleted agent of A's stays A's: B can neither revive nor re-delete it", async () => {
    const { agent, records } = await accountA();
    expect((await t.call('DELETE', `agent/${agent.id}`, { key: a })).status).toBe(200);
    const before = await t.snapshot();
    const [version] = of(records, 'version');
    const earlier = new Date(Date.now() - 3_600_000).toISOString();
    for (const lines of [
      [{ kind: 'deletion', id: agent.id, deletedAt: earlier }],
      [version, of(records, 'agent')[0]],
      [{ ...version!, id: 'b-version-of-deleted-a' }],
    ]) {
      const response = await t.call('POST', path, { key: b, body: body(lines), headers: NDJSON });
      expect(response.status).toBe(400);
      expect(await t.snapshot()).toBe(before);
    }
  });

  test('a log whose version is unknown, or feedback whose log is unknown, is a 400 and changes nothing', async () => {
    const own = await accountB();
    const [evaluation] = of(own.records, 'evaluation');
    const before = await t.snapshot();
    for (const lines of [
      [{ ...evaluation!, reqID: randomUUID(), versionID: 'no-such-version' }],
      [{ ...evaluation!, reqID: randomUUID(), agentID: 'no-such-agent', versionID: 'no-such-version' }],
      [{ kind: 'feedback', id: randomUUID(), evaluationLog: randomUUID(), data: { comfort: 1 }, createdAt: new Date().toISOString() }],
    ]) {
      const response = await t.call('POST', path, { key: b, body: body(lines), headers: NDJSON });
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/^line 2: .*must come on a line before it/);
      expect(await t.snapshot()).toBe(before);
    }
  });
});

describe("account B's GET /sync/pull", () => {
  test("holds only B's rows, whatever checkpoint or replica it sends", async () => {
    if (t.backend === 'dexie') return; // IndexedDB keeps no change feed: test/api/sync.test.ts checks its 404
    await accountA();
    const own = await accountB();
    const fromA = await pull('?limit=5000', a);
    const checkpoints = ['0.0.0', fromA.head!.checkpoint!, '0.5.0', '1.0.0'];
    const replicas = ['', '&replica=a-phone'];
    // A pushed under a replica name: B naming it must not reveal or hide anything of A's
    await t.call('POST', 'sync/push?replica=a-phone', { key: a, body: body(fromA.records), headers: NDJSON });
    const mine = new Set(own.records.map(canonical));
    for (const replica of replicas) {
      const everything = await pull(`?limit=5000${replica}`, b);
      expect(everything.records.map(canonical).sort()).toEqual([...mine].sort());
      for (const checkpoint of checkpoints) {
        const page = await pull(`?checkpoint=${checkpoint}${replica}`, b);
        expect(page.status).toBe(200);
        for (const record of page.records) expect(mine.has(canonical(record)), canonical(record)).toBe(true);
      }
    }
  });

  test('a checkpoint or limit out of range is a bounded 400, never a 500', async () => {
    if (t.backend === 'dexie') return;
    await accountB();
    const queries = [
      '?checkpoint=99999999999999999999.0.0',
      '?checkpoint=0.0.99999999999999999999',
      '?checkpoint=18446744073709551616.0.0',
      '?checkpoint=0.0.9223372036854775808',
      `?checkpoint=${'9'.repeat(5000)}`,
      '?limit=1e400',
      '?limit=-1',
      '?limit=2.5',
      `?limit=${'9'.repeat(5000)}`,
    ];
    for (const query of queries) {
      const response = await pull(query, b);
      expect(response.status, query.slice(0, 60)).toBe(400);
      expect(response.body.error).toBe('ValidationError');
      expect(response.text.length).toBeLessThan(2048);
    }
  });
});
