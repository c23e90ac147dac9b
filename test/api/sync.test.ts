// Sync's endpoints on every store (docs/SYNC.md): POST /sync/push merges another replica's
// records by sync's rules, idempotently; GET /sync/pull (PostgreSQL) pages an account's changes
// by checkpoint. Records come from a second service's GET /export, as a replica's would.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { backupRecordSchema, type BackupRecord } from '../../src/schema/index.js';
import { canonical } from '../../src/store/backup-records.js';
import { PULL_BYTES } from '../../src/store/postgres/changes.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let other: TestService;
let otherKey: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('server');
  other = await createTestService();
  otherKey = await other.signup('replica');
});
afterEach(async () => {
  await t.close();
  await other.close();
});

const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });

async function exportOf(service: TestService, apiKey: string): Promise<BackupRecord[]> {
  const response = await fetch(new URL('export', service.baseURL), { headers: { Authorization: `Bearer ${apiKey}` } });
  return (await response.text())
    .trimEnd()
    .split('\n')
    .slice(1, -1)
    .map((line) => backupRecordSchema.parse(JSON.parse(line)));
}

const push = (records: readonly BackupRecord[], query = '') =>
  t.call('POST', `sync/push${query}`, { key, body: [header, ...records.map((record) => JSON.stringify(record))].join('\n'), headers: NDJSON });

async function pull(query: string, apiKey = key) {
  const response = await fetch(new URL(`sync/pull${query}`, t.baseURL), { headers: { Authorization: `Bearer ${apiKey}` } });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, body: JSON.parse(text), head: undefined, records: [] as BackupRecord[] };
  const [head, ...lines] = text.trimEnd().split('\n');
  return {
    status: 200,
    body: undefined,
    head: JSON.parse(head!) as { checkpoint: string | null; more: boolean },
    records: lines.map((line) => JSON.parse(line) as BackupRecord),
  };
}

/** On the other replica: an agent, a second version, logs of both, feedback. */
async function replicaRecords() {
  const agent = (await other.call('POST', 'agent', { key: otherKey, body: tippingAgent('fan') })).body;
  const first = (await other.call('POST', `agent/${agent.id}`, { key: otherKey, body: { service: 2 } })).headers.get('x-evaluation-id')!;
  const updated = (await other.call('PUT', `agent/${agent.id}`, { key: otherKey, body: tippingAgent('fan v2') })).body;
  const second = (await other.call('POST', `agent/${agent.id}`, { key: otherKey, body: [{ service: 8 }, { service: 9 }] })).headers.get('x-evaluation-id')!;
  await other.call('POST', `evaluation/${first}/feedback`, { key: otherKey, body: { comfort: 3 } });
  return { agent, updated, logs: [first, ...second.split(',')], records: await exportOf(other, otherKey) };
}

describe('POST /sync/push', () => {
  test("stores another replica's records; the same push again changes nothing", async () => {
    const { agent, updated, logs, records } = await replicaRecords();
    const first = await push(records);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ lines: records.length + 1, imported: records.length, unchanged: 0 });
    const before = await t.snapshot();
    const again = await push(records);
    expect(again.body).toEqual({ lines: records.length + 1, imported: 0, unchanged: records.length });
    expect(await t.snapshot()).toBe(before);
    expect((await t.call('GET', `agent/${agent.id}`, { key })).body).toMatchObject({ name: 'fan v2', latestVersion: updated.latestVersion });
    for (const reqID of logs) expect((await t.call('GET', `evaluation/${reqID}`, { key })).status).toBe(200);
    expect((await t.call('GET', `evaluation/${logs[0]}/feedback`, { key })).body).toHaveLength(1);
  });

  test('concurrent edits: both versions kept, the latest version set last wins whatever the order', async () => {
    const { agent, records } = await replicaRecords();
    await push(records);
    // here, later than the replica's PUT: a PUT of our own
    const ours = (await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('fan, ours') })).body;
    // the replica's state again (older): unchanged
    expect((await push(records)).body.imported).toBe(0);
    expect((await t.call('GET', `agent/${agent.id}`, { key })).body.latestVersion).toBe(ours.latestVersion);
    // the replica edits after ours: its state wins, ours stays a version
    const theirs = (await other.call('PUT', `agent/${agent.id}`, { key: otherKey, body: tippingAgent('fan, theirs') })).body;
    expect(theirs.updatedAt > ours.updatedAt).toBe(true);
    const pushed = await push(await exportOf(other, otherKey));
    expect(pushed.status).toBe(200);
    const now = (await t.call('GET', `agent/${agent.id}`, { key })).body;
    expect(now).toMatchObject({ name: 'fan, theirs', latestVersion: theirs.latestVersion, updatedAt: theirs.updatedAt });
    const versions = (await t.call('GET', `agent/${agent.id}/version`, { key })).body as Array<{ id: string }>;
    expect(versions.map((version) => version.id)).toContain(ours.latestVersion);
    expect(versions).toHaveLength(4);
  });

  test('a deletion wins: the agent answers 410 and later edits of it are kept as retired versions', async () => {
    const { agent, logs, records } = await replicaRecords();
    await push(records);
    expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
    const edited = (await other.call('PUT', `agent/${agent.id}`, { key: otherKey, body: tippingAgent('fan, edited') })).body;
    const ofEdit = (await other.call('POST', `agent/${agent.id}`, { key: otherKey, body: { service: 5 } })).headers.get('x-evaluation-id')!;
    const pushed = await push(await exportOf(other, otherKey));
    expect(pushed.status).toBe(200);
    expect((await t.call('GET', `agent/${agent.id}`, { key })).status).toBe(410);
    expect((await t.call('GET', `version/${edited.latestVersion}`, { key })).status).toBe(404);
    for (const reqID of [...logs, ofEdit]) expect((await t.call('GET', `evaluation/${reqID}`, { key })).status).toBe(200);
    // and the other way round: a deletion arriving for an agent edited here
    const { id } = (await t.call('POST', 'agent', { key, body: tippingAgent('second') })).body;
    const exported = await exportOf(t, key);
    const versions = exported.filter((record) => record.kind === 'version' && record.versionOf === id);
    await t.call('PUT', `agent/${id}`, { key, body: tippingAgent('second, edited') });
    const deletion = { kind: 'deletion' as const, id, deletedAt: new Date(Date.now() - 60_000).toISOString() };
    expect((await push([...versions, deletion])).status).toBe(200);
    expect((await t.call('GET', `agent/${id}`, { key })).status).toBe(410);
  });

  test('a bad line is refused with 400 naming it, and its batch changes nothing', async () => {
    const { records } = await replicaRecords();
    const before = await t.snapshot();
    const broken = await t.call('POST', 'sync/push', {
      key,
      body: [header, ...records.map((r) => JSON.stringify(r)), '{"kind":"nonsense"}'].join('\n'),
      headers: NDJSON,
    });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toContain(`line ${records.length + 2}`);
    expect(await t.snapshot()).toBe(before);
    expect((await t.call('POST', 'sync/push?replica=no%20spaces', { key, body: header, headers: NDJSON })).status).toBe(400);
    expect((await t.call('POST', 'sync/push', { body: header, headers: NDJSON })).status).toBe(401);
  });
});

describe('GET /sync/pull', () => {
  test('pages records near 2 MiB a few MiB at a time: each answer within PULL_BYTES and one record, every record in the end', async () => {
    if (t.backend === 'dexie') return expect((await pull('')).status).toBe(404);
    const { logs, records } = await replicaRecords();
    await push(records);
    // ten feedback lines of about 1.9 MiB each (175,000 metrics), pushed two at a time
    const data = Object.fromEntries(Array.from({ length: 175_000 }, (_, i) => [`m${i}`, i % 7]));
    const createdAt = new Date().toISOString();
    for (let i = 0; i < 10; i += 2) {
      const pair = [i, i + 1].map((n) =>
        backupRecordSchema.parse({ kind: 'feedback', id: `b16f0000-0000-4000-8000-${String(n).padStart(12, '0')}`, evaluationLog: logs[0], data, createdAt }),
      );
      expect((await push(pair)).status).toBe(200);
    }
    const bigLine = JSON.stringify({ kind: 'feedback', id: 'b16f0000-0000-4000-8000-000000000000', evaluationLog: logs[0], data, createdAt }).length;
    expect(bigLine).toBeGreaterThan(1.8 * 1024 * 1024);
    const seen: BackupRecord[] = [];
    const answers: number[] = [];
    let checkpoint: string | null = null;
    for (;;) {
      const response = await fetch(new URL(`sync/pull?limit=1000${checkpoint ? `&checkpoint=${checkpoint}` : ''}`, t.baseURL), {
        headers: { Authorization: `Bearer ${key}` },
      });
      const text = await response.text();
      answers.push(Buffer.byteLength(text));
      const [head, ...lines] = text.trimEnd().split('\n');
      const page = JSON.parse(head!) as { checkpoint: string | null; more: boolean };
      seen.push(...lines.map((line) => JSON.parse(line) as BackupRecord));
      checkpoint = page.checkpoint;
      if (!page.more) break;
    }
    // several pages, none past the budget by more than one record (and the header)
    expect(answers.length).toBeGreaterThanOrEqual(3);
    for (const bytes of answers) expect(bytes).toBeLessThan(PULL_BYTES + bigLine + 1024);
    expect(seen.map(canonical).sort()).toEqual((await exportOf(t, key)).map(canonical).sort());
    expect(seen.filter((record) => record.kind === 'feedback' && record.id.startsWith('b16f0000-'))).toHaveLength(10);
  });

  test('pages every change after a checkpoint; a replayed page is the same; bad queries are 400', async () => {
    if (t.backend === 'dexie') {
      const refused = await pull('');
      expect(refused.status).toBe(404);
      expect(refused.body.message).toContain('fuzzbox serve');
      return;
    }
    const { agent, records } = await replicaRecords();
    // positions from 1 to past 100: paging must compare them as numbers, never as text
    await other.call('POST', `agent/${agent.id}`, { key: otherKey, body: Array.from({ length: 120 }, (_, i) => ({ service: i % 11 })) });
    await push(await exportOf(other, otherKey));
    const everything = await pull('?limit=5000');
    expect(everything.head!.more).toBe(false);
    expect(everything.records.map(canonical).sort()).toEqual((await exportOf(t, key)).map(canonical).sort());
    // seven at a time, each page from the last one's checkpoint
    const paged: BackupRecord[] = [];
    let checkpoint: string | null = null;
    const pages: Array<{ from: string | null; records: BackupRecord[] }> = [];
    for (;;) {
      const page = await pull(`?limit=7${checkpoint ? `&checkpoint=${checkpoint}` : ''}`);
      pages.push({ from: checkpoint, records: page.records });
      paged.push(...page.records);
      checkpoint = page.head!.checkpoint;
      if (!page.head!.more) break;
    }
    expect(paged).toEqual(everything.records);
    // every record after what it refers to: versions before their agent, logs before their feedback
    const seen = new Set<string>();
    for (const record of paged) {
      if (record.kind === 'agent') expect(seen.has(record.latestVersion)).toBe(true);
      if (record.kind === 'feedback') expect(seen.has(record.evaluationLog)).toBe(true);
      seen.add(record.kind === 'evaluation' ? record.reqID : record.id);
    }
    expect(pages.length).toBeGreaterThan(18);
    const replayed = await pull(`?limit=7&checkpoint=${pages[1]!.from}`);
    expect(replayed.records).toEqual(pages[1]!.records);
    // nothing new: an empty page that keeps the checkpoint
    const after = await pull(`?checkpoint=${checkpoint}`);
    expect(after.records).toEqual([]);
    expect(after.head).toMatchObject({ checkpoint, more: false });
    // a change moves the agent up the feed: it comes again, as it is now
    await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('fan v3') });
    expect((await pull(`?checkpoint=${checkpoint}`)).records.map((record) => record.kind)).toEqual(['version', 'agent']);
    for (const query of ['?checkpoint=1.2', '?checkpoint=abc', '?limit=0', '?limit=5001', '?limit=x']) {
      const refused = await pull(query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error).toBe('ValidationError');
    }
    expect((await pull('', 'fzb_unknown')).status).toBe(401);
  });

  test("a replica's pull leaves out the versions, logs and feedback it pushed, never the agent", async () => {
    if (t.backend === 'dexie') return;
    const { records } = await replicaRecords();
    await push(records, '?replica=phone');
    const own = await pull('?replica=phone');
    expect(own.records.map((record) => record.kind)).toEqual(['agent']);
    const someoneElse = await pull('?replica=laptop');
    expect(someoneElse.records).toHaveLength(records.length);
  });
});
