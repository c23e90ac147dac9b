// The Node setup people copy from fake-indexeddb's README, `import 'fake-indexeddb/auto'`, puts
// one factory on globalThis whose key checks are strict: a key that holds one object twice is
// refused (DataError). GET /export then answered 200 and its body failed midway; the other tests
// pass a `new IDBFactory()` each and missed it.
import 'fake-indexeddb/auto';
import { Dexie } from 'dexie';
import { expect, test } from 'vitest';
import { createFuzzyService } from '../../src/index.js';
import { tippingAgent } from '../support/service.js';

const origin = 'http://global-indexeddb.test';

test('GET /export under fake-indexeddb/auto reads every record to the end, and the tally is recounted', async () => {
  const service = createFuzzyService({ dbName: 'global-indexeddb' });
  const call = async (method: string, path: string, key?: string, body?: unknown) =>
    service.handle(
      new Request(`${origin}/${path}`, {
        method,
        headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const key = ((await (await call('POST', 'account', undefined, { name: 'auto' })).json()) as { apiKey: string }).apiKey;
  const agent = (await (await call('POST', 'agent', key, tippingAgent())).json()) as { id: string };
  const evaluated = await call('POST', `agent/${agent.id}`, key, [{ service: 1 }, { service: 5 }, { service: 9 }]);
  const logs = evaluated.headers.get('X-Evaluation-ID')!.split(',');
  await call('POST', `evaluation/${logs[0]}/feedback`, key, { tip: 3 });

  const exported = await call('GET', 'export', key);
  expect(exported.status).toBe(200);
  const lines = (await exported.text())
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind?: string; format?: string });
  expect(lines[0]!.format).toBe('fuzzbox-backup');
  expect(lines.filter((line) => line.kind === 'evaluation')).toHaveLength(3);
  expect(lines.filter((line) => line.kind === 'feedback')).toHaveLength(1);

  // the tally's recount (after a delete on a full disk dropped it) ranges over the same keys
  const reader = new Dexie('global-indexeddb');
  await reader.open();
  await reader.table('tallies').clear();
  reader.close();
  const storage = await call('GET', 'storage', key);
  expect(storage.status).toBe(200);
  expect(((await storage.json()) as { counts: object }).counts).toMatchObject({ evaluations: 3, feedback: 1 });
});
