// What the sync tests share: a `fuzzbox/node` server over PGlite files or the run's real
// PostgreSQL, browser-side services over fake-indexeddb syncing with it through a network the
// test can cut, and a way to compare what each holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { createFuzzyService, type FuzzyService, type SyncEvent } from '../../src/index.js';
import { DexieStore } from '../../src/store/dexie/dexie-store.js';
import { serve, type FuzzboxServer } from '../../src/node/index.js';
import { newDatabase } from '../support/databases.js';

/** The server's database: the `pglite` project runs on PGlite files, the `postgres` project on the real server. */
export const serverBackend = process.env.FUZZBOX_TEST_STORE === 'postgres' ? 'postgres' : 'pglite';

/** Where a server keeps its data: restarting on the same place finds everything again. */
export async function serverStorage(): Promise<{ database?: string; dataDir?: string; remove(): void }> {
  if (serverBackend === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-sync-'));
    return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  return { database: await newDatabase('sync'), remove: () => undefined };
}

export async function startServer(storage: { database?: string; dataDir?: string }, port = 0): Promise<FuzzboxServer> {
  return serve({ port, ...(storage.database ? { database: storage.database } : { dataDir: storage.dataDir! }) });
}

/**
 * The network between a browser and the server: `online` or not, and faults to inject once: a
 * request that fails after its body reached the server (`afterServer`), or an answer cut after
 * some bytes (`cutAnswerAfter`).
 */
export class Network {
  online = false;
  /** bytes sent and received */
  readonly bytes = { sent: 0, received: 0 };
  /** every request's method and URL, in order */
  readonly requests: string[] = [];
  /** the next request matching `path` never gets an answer: it waits until its signal aborts it */
  hang: { path: string } | undefined;
  /** runs before each request reaches the server (a test's hook: restart the server, …) */
  beforeRequest: ((url: URL) => Promise<void>) | undefined;
  /** the next request matching `path` is delivered, then its answer is lost */
  failAfterServer: { path: string } | undefined;
  /** the next answer to a request matching `path` breaks after this many bytes */
  cutAnswer: { path: string; after: number } | undefined;

  readonly fetch = async (input: string, init?: RequestInit): Promise<Response> => {
    if (!this.online) throw new TypeError('fetch failed: the network is down (test)');
    this.requests.push(`${init?.method ?? 'GET'} ${input}`);
    if (this.hang && new URL(input).pathname.endsWith(this.hang.path)) {
      this.hang = undefined;
      const signal = init?.signal;
      return new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    }
    await this.beforeRequest?.(new URL(input));
    const sent = typeof init?.body === 'string' ? Buffer.byteLength(init.body) : 0;
    this.bytes.sent += sent;
    const response = await fetch(input, init);
    const path = new URL(input).pathname;
    if (this.failAfterServer && path.endsWith(this.failAfterServer.path)) {
      this.failAfterServer = undefined;
      await response.arrayBuffer();
      throw new TypeError('fetch failed: the connection dropped after the request was sent (test)');
    }
    const body = new Uint8Array(await response.arrayBuffer());
    this.bytes.received += body.byteLength;
    if (this.cutAnswer && path.endsWith(this.cutAnswer.path)) {
      const { after } = this.cutAnswer;
      this.cutAnswer = undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(body.slice(0, after));
          controller.error(new TypeError('terminated: the connection dropped mid-answer (test)'));
        },
      });
      return new Response(stream, { status: response.status, headers: response.headers });
    }
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** An agent's definition: the tipping example, named `name`, its output term `high` ending at `high`. */
export const tipping = (name = 'tipping', high = 30) => ({
  name,
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, high] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
});

export interface Replica {
  service: FuzzyService;
  network: Network;
  events: SyncEvent[];
  /** a request to the browser's own service with the account's key, JSON in and out */
  call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

/** A browser's store over its own fake-indexeddb: a test that steps into its writes makes it first (`Dexie.use`). */
export const browserStore = () => new DexieStore('fuzzbox', { indexedDB: new IDBFactory(), IDBKeyRange });

/** A browser-side service over `store` (its own fake-indexeddb by default), syncing with `url` as the account of `apiKey`. */
export function browser(url: string, apiKey: string, options: { batchSize?: number; timeout?: number } = {}, store = browserStore()): Replica {
  const network = new Network();
  const events: SyncEvent[] = [];
  const service = createFuzzyService({
    store,
    // rounds only when the test asks: timers would make the interleavings the test means to pin down random
    sync: { url, apiKey, fetch: network.fetch, interval: 3_600_000, ...options },
    onSync: (event) => events.push(event),
  });
  return {
    service,
    network,
    events,
    call: (method, path, body) => request(service.handle, 'http://browser.test/', apiKey, method, path, body),
    close: () => service.close(),
  };
}

export async function request(
  handle: (request: Request) => Promise<Response>,
  base: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await handle(
    new Request(new URL(path, base), {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
    headers: response.headers,
  };
}

/**
 * An account's export as a set: each record without what is local to a store (a version's number
 * and an agent's version count are numbered where they arrive), sorted.
 */
export async function exported(handle: (request: Request) => Promise<Response>, base: string, apiKey: string): Promise<string[]> {
  const { status, body } = await request(handle, base, apiKey, 'GET', 'export');
  if (status !== 200) throw new Error(`GET /export answered ${status}`);
  return exportRecords(body as string);
}

/** An export's text as `exported` gives it: the records after the header, without what each store numbers, sorted. */
export function exportRecords(text: string): string[] {
  return text
    .trimEnd()
    .split('\n')
    .slice(1, -1) // between the header and the trailer
    .map((line) => {
      const { seq: _seq, versionCount: _count, ...record } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(record);
    })
    .sort();
}
