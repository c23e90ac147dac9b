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
  for (const fine of ['0.0.0', ...(checkpoint ? [checkpoint] : [])]) expect((await t.call('GET', `sync/pull?checkpoint=${fine}`, { key })).status, fine).toBe(200);
  // one from a database whose transactions went further (this one restored from an older backup)
  const past = await t.call('GET', 'sync/pull?checkpoint=900000000000.0.0', { key });
  expect(past.status).toBe(400);
  expect(past.body).toMatchObject({ status: 'error', error: 'InvalidRequest' });
  expect(past.body.message).toMatch(/past every change this server has made.*without \?checkpoint=/);
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
