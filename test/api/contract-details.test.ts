// Details of the contract that held loosely (issue 32, item 12): a pull's `limit` is decimal
// digits, a checkpoint past every change of the server is a 400 (a replica of a database
// restored from a backup would else wait forever for changes), a backup is UTF-8 whatever charset
// it names, and its 2 MiB line limit counts UTF-8 bytes.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTestService, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('contract');
});
afterEach(async () => t.close());

const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });

test('GET /sync/pull refuses a limit not in decimal digits, and a checkpoint past the server', async () => {
  if (t.backend === 'dexie') return; // IndexedDB keeps no change feed: test/api/sync.test.ts checks its 404
  expect((await t.call('GET', 'sync/pull?limit=16', { key })).status).toBe(200);
  for (const limit of ['0x10', '1e3', ' 7', '+5', '0b11', '16.0']) {
    const response = await t.call('GET', `sync/pull?limit=${encodeURIComponent(limit)}`, { key });
    expect(response.status, limit).toBe(400);
    expect(response.body.message, limit).toMatch(/decimal digits/);
  }
  const first = await fetch(new URL('sync/pull', t.baseURL), { headers: { Authorization: `Bearer ${key}` } });
  const checkpoint = (JSON.parse((await first.text()).split('\n')[0]!) as { checkpoint: string | null }).checkpoint;
  // a checkpoint this server handed out, or one before it, is fine
  for (const fine of ['0.0.0', ...(checkpoint ? [checkpoint] : [])])
    expect((await t.call('GET', `sync/pull?checkpoint=${fine}`, { key })).status, fine).toBe(200);
  // one from a database whose transactions went further (this one restored from an older backup)
  const past = await t.call('GET', 'sync/pull?checkpoint=900000000000.0.0', { key });
  expect(past.status).toBe(400);
  expect(past.body).toMatchObject({ status: 'error', error: 'InvalidRequest' });
  // the fixed words a replica recognises it by (docs/SYNC.md, "A restored server")
  expect(past.body.message).toMatch(/^unknown checkpoint: .*past every change this server has made.*without \?checkpoint=/);
});

test.each(['import', 'sync/push'])('POST /%s refuses a charset other than UTF-8, and a line over 2 MiB of UTF-8 bytes', async (path) => {
  const before = await t.snapshot();
  for (const charset of ['latin1', 'iso-8859-1', 'utf-16']) {
    const response = await t.call('POST', path, { key, body: `${header}\n`, headers: { 'Content-Type': `application/x-ndjson; charset=${charset}` } });
    expect(response.status, charset).toBe(400);
    expect(response.body.message, charset).toMatch(/a backup is UTF-8/);
  }
  expect((await t.call('POST', path, { key, body: `${header}\n`, headers: { 'Content-Type': 'application/x-ndjson; charset=UTF-8' } })).status).toBe(200);
  // 2,000,000 euro signs: fewer UTF-16 units than 2 MiB, 6 MB of UTF-8
  const euros = '€'.repeat(2_000_000);
  for (const line of [`{"kind":"feedback","note":"${euros}"}`, `{"kind":"feedback","note":"${euros}"}\n`]) {
    const response = await t.call('POST', path, { key, body: `${header}\n${line}`, headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(response.status).toBe(413);
    expect(response.body.message).toMatch(/^line 2 is over 2097152 bytes of UTF-8/);
  }
  expect(await t.snapshot()).toBe(before);
});

test('a backup cut at a line boundary, or with a line dropped, is refused at its end; sent whole it completes', async () => {
  const agent = (
    await t.call('POST', 'agent', {
      key,
      body: {
        name: 'cut',
        inputs: { x: { low: [0, 5], high: [5, 10] } },
        outputs: { y: { low: [0, 5], high: [5, 10] } },
        rules: ['IF x IS low THEN y IS high'],
      },
    })
  ).body;
  await t.call('POST', `agent/${agent.id}`, { key, body: [{ x: 1 }, { x: 2 }, { x: 3 }] });
  const backup = await (await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } })).text();
  const lines = backup.trimEnd().split('\n');
  const records = lines.length - 2;
  expect(JSON.parse(lines.at(-1)!)).toEqual({ kind: 'end', records });
  // each into an account of a database of its own (ids are unique in a database)
  const services: TestService[] = [];
  const fresh = async () => {
    const service = await createTestService();
    services.push(service);
    return { service, key: await service.signup('restored') };
  };
  const importText = (into: { service: TestService; key: string }, text: string) =>
    into.service.call('POST', 'import', { key: into.key, body: text, headers: { 'Content-Type': 'application/x-ndjson' } });
  try {
    // cut after the last evaluation: every record came and is stored, the cut is reported
    const cutInto = await fresh();
    const cut = await importText(cutInto, `${lines.slice(0, -1).join('\n')}\n`);
    expect(cut.status).toBe(400);
    expect(cut.body.message).toMatch(new RegExp(`^line ${lines.length}: the backup ends after line ${lines.length - 1} without its last line .*cut off`));
    expect((await importText(cutInto, backup)).body).toEqual({ lines: lines.length, imported: 0, unchanged: records });

    // one evaluation dropped: the count is off, and nothing of the batch is stored
    const droppedInto = await fresh();
    const dropped = await importText(droppedInto, [...lines.slice(0, 3), ...lines.slice(4)].join('\n'));
    expect(dropped.status).toBe(400);
    expect(dropped.body.message).toMatch(new RegExp(`^line ${lines.length - 1}: the trailer counts ${records} records, and ${records - 1} came before it`));
    expect((await importText(droppedInto, backup)).body).toEqual({ lines: lines.length, imported: records, unchanged: 0 });

    // a line after the trailer
    const extra = await importText(await fresh(), `${backup}${lines[2]}\n`);
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/a line after the backup's last line/);
  } finally {
    for (const service of services) await service.close();
  }
});
