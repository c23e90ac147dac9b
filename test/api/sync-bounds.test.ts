// A push or an import is stored in transactions of bounded size (docs/REST.md, "Backup and
// restore"): 1,000 records, or 4 MiB of lines when the lines are large, whichever comes first.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('b');
});
afterEach(async () => t.close());

const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const header = JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() });

describe.each(['sync/push', 'import'])('POST /%s of large lines', (path) => {
  test('stores them a few MiB per transaction: a bad line after 4 MiB of them leaves the earlier batch stored', async () => {
    const agent = (await t.call('POST', 'agent', { key, body: tippingAgent('big') })).body;
    const log = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 2 } })).headers.get('x-evaluation-id')!;
    // each about 1.2 MB: a feedback line with 100,000 metrics
    const data = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`m${i}`, i % 7]));
    const createdAt = new Date().toISOString();
    const big = (i: number) => JSON.stringify({ kind: 'feedback', id: `big-${i}`, evaluationLog: log, data, createdAt });
    const lines = [header, ...Array.from({ length: 4 }, (_, i) => big(i)), '{"kind":"nonsense"}'];
    const response = await t.call('POST', path, { key, body: lines.join('\n'), headers: NDJSON });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('line 6');
    // 4 lines of 1.2 MB pass 4 MiB: they went in one transaction before line 6 was read
    expect(response.body.message).toContain('the lines up to 5 were imported');
    expect((await t.call('GET', `evaluation/${log}/feedback`, { key })).body).toHaveLength(4);
  });
});
