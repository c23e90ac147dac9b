// A replica reads a pull answer only up to MAX_PULL_ANSWER bytes (docs/SYNC.md, "Pulling"): an
// answer larger than any fuzzbox server's page fails the round instead of filling the browser's memory.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, test } from 'vitest';
import { createFuzzyService } from '../../src/index.js';
import { MAX_PULL_ANSWER } from '../../src/core/replicator.js';

test('a pull answer past MAX_PULL_ANSWER fails the round; an answer that never ends is not read on', async () => {
  const chunk = new TextEncoder().encode(`${'x'.repeat(64 * 1024 - 1)}\n`);
  let sent = 0;
  // a server that answers a pull with a header, then lines without end
  const fetch = async (input: string): Promise<Response> => {
    if (!new URL(input).pathname.endsWith('sync/pull')) return new Response('{"status":"error","error":"NotFound","message":"no"}', { status: 404 });
    const header = new TextEncoder().encode('{"format":"fuzzbox-backup","version":1,"checkpoint":"1.0.1","more":true}\n');
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(header),
      pull: (controller) => {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/x-ndjson' } });
  };
  const service = createFuzzyService({
    indexedDB: new IDBFactory(),
    IDBKeyRange,
    sync: { url: 'http://server.test/', apiKey: 'fzb_test', fetch, interval: 3_600_000 },
  });
  try {
    const key = (await (
      await service.handle(new Request('http://browser.test/account', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }))
    ).json()) as { apiKey?: string };
    expect(key).toBeDefined();
    const status = await service.sync!.now();
    expect(status.lastError).toContain(`more than ${MAX_PULL_ANSWER} bytes`);
    // the answer never ends, yet the round stopped reading it: what was produced stays within a
    // small multiple of the bound (the Response's own stream buffers ahead of the reader)
    expect(sent).toBeGreaterThan(MAX_PULL_ANSWER);
    expect(sent).toBeLessThan(4 * MAX_PULL_ANSWER);
  } finally {
    await service.close();
  }
});
