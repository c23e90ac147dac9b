// GET /export and POST /import: a backup is the account as NDJSON, and restoring it anywhere
// gives back the same records; a refused file says which line and writes nothing of its batch.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { backupHeaderSchema, backupRecordSchema, importResultSchema } from '../../src/schema/index.js';
import { IMPORT_BATCH } from '../../src/core/backup-stream.js';
import { failWrites, quotaExceeded } from '../support/faults.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService({ random: () => 0.25 });
  key = await t.signup('backed up');
});
afterEach(() => t.close());

async function exportText(service: TestService, apiKey: string): Promise<{ type: string | null; text: string }> {
  const response = await fetch(new URL('export', service.baseURL), { headers: { Authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return { type: response.headers.get('content-type'), text: await response.text() };
}

async function importText(service: TestService, apiKey: string, text: string) {
  return service.call('POST', 'import', { key: apiKey, body: text, headers: { 'Content-Type': 'application/x-ndjson' } });
}

/** The records of a backup, without the header's time. */
/** A backup's records: the lines between its header and its trailer. */
const recordsOf = (text: string) => text.trimEnd().split('\n').slice(1, -1);

/** An account with everything a backup holds: versions, a deleted agent, singles, batches, explored answers, feedback. */
async function seed(service: TestService, apiKey: string) {
  const kept = (await service.call('POST', 'agent', { key: apiKey, body: tippingAgent('kept') })).body;
  await service.call('PUT', `agent/${kept.id}`, { key: apiKey, body: { ...tippingAgent('kept v2'), performance: { stars: 'maximize' } } });
  const gone = (await service.call('POST', 'agent', { key: apiKey, body: tippingAgent('gone') })).body;
  const batch = Array.from({ length: 100 }, (_, i) => ({ service: i % 11 }));
  const batchIDs = (await service.call('POST', `agent/${kept.id}?explore=0.1`, { key: apiKey, body: batch })).headers.get('X-Evaluation-ID')!.split(',');
  const single = (await service.call('POST', `agent/${kept.id}`, { key: apiKey, body: { service: 7 } })).headers.get('X-Evaluation-ID')!;
  const ofGone = (await service.call('POST', `agent/${gone.id}`, { key: apiKey, body: { service: 2 } })).headers.get('X-Evaluation-ID')!;
  for (const [id, stars] of [
    [batchIDs[0]!, 1],
    [batchIDs[99]!, 5],
    [single, 3],
    [single, 4],
    [ofGone, 2],
  ] as const) {
    expect((await service.call('POST', `evaluation/${id}/feedback`, { key: apiKey, body: { stars } })).status).toBe(200);
  }
  expect((await service.call('DELETE', `agent/${gone.id}`, { key: apiKey })).status).toBe(200);
  return { kept: kept.id as string, gone: gone.id as string, ids: [...batchIDs, single, ofGone] };
}

describe('export', () => {
  test('NDJSON: a header, then every record of the caller in an order where each refers only to lines before it', async () => {
    const seeded = await seed(t, key);
    const other = await t.signup('someone else');
    await seed(t, other);
    const { type, text } = await exportText(t, key);
    expect(type).toBe('application/x-ndjson');
    const [header, ...lines] = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(backupHeaderSchema.parse(header)).toEqual({ format: 'fuzzbox-backup', version: 2, exportedAt: expect.any(String) });
    // the last line counts the records between: a file cut off at a line boundary lacks it
    expect(lines.pop()).toEqual({ kind: 'end', records: lines.length });
    const records = lines.map((line) => backupRecordSchema.parse(line));
    // the records themselves, exactly as parsed: no field added or dropped
    expect(records).toEqual(lines);
    expect(records.map((record) => record.kind)).toEqual([
      'version',
      'version',
      'agent',
      'version',
      'deletion',
      ...Array(102).fill('evaluation'),
      ...Array(5).fill('feedback'),
    ]);
    expect(records.filter((record) => record.kind === 'evaluation').map((record) => record.reqID)).toEqual(seeded.ids);
    expect(records.find((record) => record.kind === 'version' && record.versionOf === seeded.gone)).toMatchObject({ retired: true });
    // nothing of the other account, and no account at all
    expect(text).not.toContain('"userID"');
    const theirs = await exportText(t, other);
    expect(recordsOf(theirs.text).some((line) => text.includes(line))).toBe(false);
  });

  test('an empty account is the header and a trailer counting no records', async () => {
    const { text } = await exportText(t, key);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({ kind: 'end', records: 0 });
  });
});

describe('import', () => {
  test('round trip: export → import into an empty database → export gives the same records, and every read the same answer', async () => {
    const seeded = await seed(t, key);
    const backup = (await exportText(t, key)).text;
    const elsewhere = await createTestService();
    try {
      const restoredKey = await elsewhere.signup('restored');
      const imported = await importText(elsewhere, restoredKey, backup);
      expect(imported.status).toBe(200);
      const lines = recordsOf(backup).length;
      expect(importResultSchema.parse(imported.body)).toEqual({ lines: lines + 2, imported: lines, unchanged: 0 });
      expect(recordsOf((await exportText(elsewhere, restoredKey)).text)).toEqual(recordsOf(backup));
      for (const path of [
        'agent',
        `agent/${seeded.kept}`,
        `agent/${seeded.kept}/version`,
        `agent/${seeded.gone}`,
        ...seeded.ids.slice(98).flatMap((id) => [`evaluation/${id}`, `evaluation/${id}/feedback`]),
      ]) {
        const [before, after] = [await t.call('GET', path, { key }), await elsewhere.call('GET', path, { key: restoredKey })];
        expect(after.status).toBe(before.status);
        // the same records, now the importer's
        const anyOwner = (body: unknown) => JSON.stringify(body).replace(/"userID":"[^"]+"/g, '"userID":"…"');
        expect(anyOwner(after.body)).toBe(anyOwner(before.body));
      }
      expect((await elsewhere.call('GET', 'storage', { key: restoredKey })).body.counts).toEqual((await t.call('GET', 'storage', { key })).body.counts);
    } finally {
      await elsewhere.close();
    }
  });

  test('importing the same file twice changes nothing; into its own account it changes nothing either', async () => {
    await seed(t, key);
    const backup = (await exportText(t, key)).text;
    const lines = recordsOf(backup).length;
    const before = await t.snapshot();
    expect((await importText(t, key, backup)).body).toEqual({ lines: lines + 2, imported: 0, unchanged: lines });
    expect(await t.snapshot()).toBe(before);
    const fresh = await t.signup('fresh');
    const withFresh = await t.snapshot();
    const first = await importText(t, fresh, backup);
    // the same ids in another account of the same database are refused: they belong to `key`
    expect(first.status).toBe(400);
    expect(first.body.message).toMatch(/^line 2: version "[^"]+" belongs to another account here/);
    expect(await t.snapshot()).toBe(withFresh);
  });

  test("evaluation ids are the account's own: another account may import the same ids, and neither sees the other's feedback", async () => {
    const seeded = await seed(t, key);
    const backup = (await exportText(t, key)).text;
    // the same logs under new agent, version and feedback ids (those are unique in the database)
    // (feedback ids are UUIDs: a copy's differs in its first four digits)
    const copyOf = (id: string) => (/^[0-9a-f]{8}-/.test(id) ? `c0de${id.slice(4)}` : `copy-${id}`);
    const copy = backup.replace(/"(id|versionOf|agentID|versionID|latestVersion)":"([^"]+)"/g, (_, field: string, id: string) => `"${field}":"${copyOf(id)}"`);
    const other = await t.signup('other');
    const imported = await importText(t, other, copy);
    expect(imported.status).toBe(200);
    const single = seeded.ids[100]!;
    const mine = (await t.call('GET', `evaluation/${single}/feedback`, { key })).body;
    const theirs = (await t.call('GET', `evaluation/${single}/feedback`, { key: other })).body;
    expect(mine.map((f: { data: unknown }) => f.data)).toEqual([{ stars: 3 }, { stars: 4 }]);
    expect(theirs.map((f: { id: string }) => f.id)).toEqual(mine.map((f: { id: string }) => copyOf(f.id)));
    expect((await t.call('GET', `evaluation/${single}`, { key: other })).body.agentID).toBe(`copy-${seeded.kept}`);
    expect((await t.call('GET', `evaluation/${single}`, { key })).body.agentID).toBe(seeded.kept);
  });

  test('a newer format, a corrupt line, a record that contradicts the store: 400 naming the line, nothing written', async () => {
    const seeded = await seed(t, key);
    const backup = (await exportText(t, key)).text;
    const lines = backup.trimEnd().split('\n');
    const before = await t.snapshot();
    const newer = [JSON.stringify({ ...JSON.parse(lines[0]!), version: 3 }), ...lines.slice(1)].join('\n');
    const corrupt = [...lines.slice(0, 7), '{"kind": "evaluation", "reqID": ', ...lines.slice(7)].join('\n');
    const changed = lines
      .map((line) => (line.includes(seeded.ids[50]!) && line.includes('"kind":"evaluation"') ? line.replace('"crisp":{"tip":', '"crisp":{"tip":1') : line))
      .join('\n');
    const changedLine = lines.findIndex((line) => line.includes(seeded.ids[50]!)) + 1;
    const unknownKind = [...lines.slice(0, 3), '{"kind":"account","id":"x"}'].join('\n');
    const notABackup = '{"name": "an agent"}\n';
    for (const [text, line, message] of [
      [newer, 1, /format version 3, written by a newer fuzzbox/],
      [corrupt, 8, /not JSON/],
      [changed, changedLine, /differs from the stored evaluation/],
      [unknownKind, 4, /"kind" is version, agent, deletion, evaluation or feedback/],
      [notABackup, 1, /not a fuzzbox backup header/],
    ] as const) {
      const { status, body } = await importText(t, key, text);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: 'error', error: 'ValidationError', message: expect.stringMatching(new RegExp(`^line ${line}: `)) });
      expect(body.message).toMatch(message);
      expect(await t.snapshot()).toBe(before);
    }
    const wrongType = await t.call('POST', 'import', { key, body: backup, headers: { 'Content-Type': 'text/csv' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toMatch(/application\/x-ndjson/);
  });

  test('a record unlike the records it refers to, or with a key "__proto__": 400 naming the line, nothing written', async () => {
    const seeded = await seed(t, key);
    const lines = (await exportText(t, key)).text.trimEnd().split('\n');
    const fresh = await createTestService();
    try {
      const freshKey = await fresh.signup();
      const at = (test: (line: string) => boolean) => lines.findIndex(test);
      const log = at((line) => line.includes(`"reqID":"${seeded.ids[3]}"`));
      const agent = at((line) => line.includes('"kind":"agent"'));
      const feedback = at((line) => line.includes('"kind":"feedback"'));
      const edited = (index: number, edit: (line: string) => string) => lines.map((line, i) => (i === index ? edit(line) : line)).join('\n');
      for (const [text, index, message] of [
        // GET /evaluation/:id recomputes the trace from the version, which has no such input
        [edited(log, (line) => line.replace('"input":{"service":', '"input":{"speed":')), log, /input "speed" is not an input of its version/],
        [edited(log, (line) => line.replace('"crisp":{"tip":', '"crisp":{"total":')), log, /output "total" is not an output of its version/],
        // the agent answers with its own definition and logs its latest version as the one that ran
        [edited(agent, (line) => line.replace('"name":"kept v2"', '"name":"renamed"')), agent, /differs from its latest version/],
        // JSON.parse keeps it as an own key; storing it as is would drop it silently
        [edited(feedback, (line) => line.replace('"data":{', '"data":{"__proto__":1,')), feedback, /__proto__/],
      ] as const) {
        expect(index).toBeGreaterThan(0);
        const { status, body } = await importText(fresh, freshKey, text);
        expect(status).toBe(400);
        expect(body.message).toMatch(new RegExp(`^line ${index + 1}: `));
        expect(body.message).toMatch(message);
        expect((await fresh.call('GET', 'storage', { key: freshKey })).body.counts).toMatchObject({ agents: 0, versions: 0, evaluations: 0, feedback: 0 });
      }
      expect((await importText(fresh, freshKey, lines.join('\n'))).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  test("a version numbered past its agent's count is refused: the next PUT would take its number", async () => {
    const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
    const header = (await exportText(t, key)).text.split('\n')[0]!;
    const at = '2026-01-01T00:00:00.000Z';
    const version = (id: string, versionOf: string, seq: number) =>
      JSON.stringify({ kind: 'version', id, versionOf, ...tippingAgent('later'), createdAt: at, seq, retired: false });
    const agentLine = (id: string, latestVersion: string, versionCount: number) =>
      JSON.stringify({ kind: 'agent', id, ...tippingAgent('later'), createdAt: at, updatedAt: at, latestVersion, versionCount });
    const before = await t.snapshot();
    for (const [lines, line, message] of [
      // into an agent that lives here with one version
      [[version('v-extra', agent.id, 1)], 2, /has 1 version/],
      // an agent whose count is not above its versions' numbers
      [[version('v-0', 'new-agent', 0), version('v-5', 'new-agent', 5), agentLine('new-agent', 'v-0', 1)], 4, /versionCount 1/],
    ] as const) {
      const { status, body } = await importText(t, key, [header, ...lines].join('\n'));
      expect(status).toBe(400);
      expect(body.message).toMatch(new RegExp(`^line ${line}: `));
      expect(body.message).toMatch(message);
      expect(await t.snapshot()).toBe(before);
    }
    expect((await t.call('PUT', `agent/${agent.id}`, { key, body: tippingAgent('v2') })).status).toBe(200);
  });

  test("another account's agent deleted on a full disk (versions left, no tombstone) cannot be taken over by an import", async () => {
    const other = await t.signup('owner');
    const agent = (await t.call('POST', 'agent', { key: other, body: tippingAgent() })).body;
    const reqID = (await t.call('POST', `agent/${agent.id}`, { key: other, body: { service: 3 } })).headers.get('X-Evaluation-ID');
    const restore = failWrites('retiredVersions', quotaExceeded);
    try {
      expect((await t.call('DELETE', `agent/${agent.id}`, { key: other })).status).toBe(200);
    } finally {
      restore();
    }
    const header = (await exportText(t, key)).text.split('\n')[0]!;
    const at = '2026-01-01T00:00:00.000Z';
    const before = await t.snapshot();
    for (const lines of [
      [{ kind: 'version', id: 'taken-over', versionOf: agent.id, ...tippingAgent('mine'), createdAt: at, seq: 1, retired: false }],
      [{ kind: 'deletion', id: agent.id, deletedAt: at }],
    ]) {
      const { status, body } = await importText(t, key, [header, ...lines.map((line) => JSON.stringify(line))].join('\n'));
      expect(status).toBe(400);
      expect(body.message).toMatch(/^line 2: .*belongs to another account/);
      expect(await t.snapshot()).toBe(before);
    }
    const listed = await t.call('GET', `agent/${agent.id}/evaluation`, { key: other });
    expect(listed.status).toBe(200);
    expect(listed.body.evaluations.map((entry: { reqID: string }) => entry.reqID)).toEqual([reqID]);
  });

  test('an engine-invalid definition in a backup is refused like a POST /agent would be', async () => {
    await seed(t, key);
    const lines = (await exportText(t, key)).text.trimEnd().split('\n');
    const fresh = await createTestService();
    try {
      const freshKey = await fresh.signup();
      const broken = lines.map((line, i) => (i === 1 ? line.replace('IF service IS poor', 'IF service IS awful') : line)).join('\n');
      const { status, body } = await importText(fresh, freshKey, broken);
      expect(status).toBe(400);
      expect(body.message).toMatch(/^line 2: version "[^"]+": .*awful/);
      expect((await fresh.call('GET', 'storage', { key: freshKey })).body.counts).toMatchObject({ agents: 0, versions: 0, evaluations: 0 });
    } finally {
      await fresh.close();
    }
  });

  test(`a large backup is stored ${IMPORT_BATCH} records per transaction: a late bad line keeps earlier batches, and importing the fixed file completes it`, async () => {
    const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
    const batch = Array.from({ length: 4096 }, (_, i) => ({ service: (i % 101) / 10 }));
    for (let i = 0; i < 3; i++) await t.call('POST', `agent/${agent.id}`, { key, body: batch });
    const backup = (await exportText(t, key)).text;
    expect(new TextEncoder().encode(backup).byteLength).toBeGreaterThan(1024 * 1024); // not bound by the 1 MiB JSON cap
    const lines = backup.trimEnd().split('\n');
    const bad = 2 * IMPORT_BATCH + IMPORT_BATCH / 2;
    const broken = lines.map((line, i) => (i === bad - 1 ? line.replace(/"input":\{[^}]*\}/, '"input":{"service":"x"}') : line)).join('\n');
    const fresh = await createTestService();
    try {
      const freshKey = await fresh.signup();
      const first = await importText(fresh, freshKey, broken);
      expect(first.status).toBe(400);
      expect(first.body.message).toMatch(new RegExp(`^line ${bad}: input\\.service: .*the lines up to ${2 * IMPORT_BATCH + 1} were imported`));
      // the part stored is a state every read handles: the agent, its version, whole logs
      expect((await fresh.call('GET', 'storage', { key: freshKey })).body.counts).toMatchObject({ agents: 1, versions: 1, evaluations: 2 * IMPORT_BATCH - 2 });
      const [, firstLog] = [lines[0], JSON.parse(lines[3]!)];
      expect((await fresh.call('GET', `evaluation/${firstLog.reqID}`, { key: freshKey })).body).toMatchObject({ input: firstLog.input, crisp: firstLog.crisp });
      const second = await importText(fresh, freshKey, backup);
      expect(second.body).toEqual({ lines: lines.length, imported: lines.length - 2 - 2 * IMPORT_BATCH, unchanged: 2 * IMPORT_BATCH });
      expect(recordsOf((await exportText(fresh, freshKey)).text)).toEqual(recordsOf(backup));
    } finally {
      await fresh.close();
    }
  });

  test('import needs a key and a body', async () => {
    expect((await t.call('POST', 'import', { body: '', headers: { 'Content-Type': 'application/x-ndjson' } })).status).toBe(401);
    const empty = await t.call('POST', 'import', { key, headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/empty/);
  });

  test('a refused upload is not read on: the sender is told to stop, whether the header or a later line is at fault', async () => {
    const encoder = new TextEncoder();
    const goodHeader = (await exportText(t, key)).text.split('\n')[0]!;
    for (const first of ['{"not": "a header"}\n', `${goodHeader}\n{"kind": "nothing"}\n`]) {
      let cancelled = false;
      // a large upload: the first chunk, then more for as long as anyone reads
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(first));
        },
        pull(controller) {
          controller.enqueue(encoder.encode(' '.repeat(1024)));
        },
        cancel() {
          cancelled = true;
        },
      });
      const request = new Request(new URL('import', t.baseURL), {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/x-ndjson' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect((await t.service.handle(request)).status).toBe(400);
      expect(cancelled).toBe(true);
    }
  });
});
