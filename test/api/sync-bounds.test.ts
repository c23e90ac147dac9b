// A push or an import is stored in transactions of bounded size (docs/REST.md, "Backup and
// restore"): 1,000 records, or 4 MiB of lines when the lines are large, whichever comes first.
import { randomUUID } from 'node:crypto';
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
    const big = () => JSON.stringify({ kind: 'feedback', id: randomUUID(), evaluationLog: log, data, createdAt });
    const lines = [header, ...Array.from({ length: 4 }, big), '{"kind":"nonsense"}'];
    const response = await t.call('POST', path, { key, body: lines.join('\n'), headers: NDJSON });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('line 6');
    // 4 lines of 1.2 MB pass 4 MiB: they went in one transaction before line 6 was read
    expect(response.body.message).toContain('the lines up to 5 were imported');
    expect((await t.call('GET', `evaluation/${log}/feedback`, { key })).body).toHaveLength(4);
  });
});

describe.each(['sync/push', 'import'])('POST /%s sent twice at once', (path) => {
  test('both answer 200 and the records are stored once (a replica retrying a push whose answer was slow, two tabs)', async () => {
    const source = await createTestService();
    try {
      /** A new account's agent, two versions and 300 logs on another service, as its export. */
      const exported = async (name: string) => {
        const sourceKey = await source.signup(name);
        const agent = (await source.call('POST', 'agent', { key: sourceKey, body: tippingAgent(name) })).body;
        await source.call('PUT', `agent/${agent.id}`, { key: sourceKey, body: tippingAgent(`${name} v2`) });
        await source.call('POST', `agent/${agent.id}`, { key: sourceKey, body: Array.from({ length: 300 }, (_, i) => ({ service: i % 11 })) });
        return (await fetch(new URL('export', source.baseURL), { headers: { Authorization: `Bearer ${sourceKey}` } })).text();
      };
      const body = await exported('twice');
      const records = body.trimEnd().split('\n').length - 2; // less the header and the trailer
      const answers = await Promise.all(Array.from({ length: 3 }, () => t.call('POST', path, { key, body, headers: NDJSON })));
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.map((answer) => answer.body)).slice(0, 500),
      ).toEqual([200, 200, 200]);
      expect(answers.reduce((sum, answer) => sum + answer.body.imported, 0)).toBe(records);
      expect(answers.reduce((sum, answer) => sum + answer.body.unchanged, 0)).toBe(2 * records);
      // two other accounts sending the same new ids at once: one stores them, the other is refused as another account's, never a 500
      const rivals = await Promise.all(['c', 'd'].map((name) => t.signup(name)));
      const fresh = await exported('raced');
      const raced = await Promise.all(rivals.map((rival) => t.call('POST', path, { key: rival, body: fresh, headers: NDJSON })));
      expect(raced.map((answer) => answer.status).sort(), JSON.stringify(raced.map((answer) => answer.body)).slice(0, 500)).toEqual([200, 400]);
    } finally {
      await source.close();
    }
  });
});
