// A fuzzbox service behind a real http origin: fetch() → msw/node → service.handle(), over a
// fresh fake-indexeddb factory per service, so every test sees its own empty database.
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll } from 'vitest';
import { createFuzzyService, type FuzzyService, type FuzzyServiceOptions } from '../../src/index.js';
import { normaliseBasePath } from '../../src/api/index.js';

type Server = ReturnType<typeof setupServer>;
let server: Server | undefined;
let services = 0;

afterAll(() => {
  server?.close();
  server = undefined;
});

function interceptor(): Server {
  if (!server) {
    server = setupServer();
    server.listen({ onUnhandledRequest: 'error' });
  }
  return server;
}

export interface CallOptions {
  /** API key sent as `Authorization: Bearer <key>` */
  key?: string;
  /** a value to send as JSON, or a string sent as is */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  /** the parsed JSON body */
  body: T;
}

export interface TestService {
  /** e.g. `http://fuzzbox-3.test` */
  origin: string;
  /** origin + basePath, ending in `/`: `new URL('agent', baseURL)` */
  baseURL: string;
  service: FuzzyService;
  indexedDB: IDBFactory;
  dbName: string;
  /** POST /account; resolves to the new API key */
  signup(name?: string): Promise<string>;
  /** fetch() a path under baseURL (`agent/…`, with or without a leading slash), JSON in and out */
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  /** every table's primary keys and records, as one JSON string: equal strings, equal databases */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

export async function createTestService(options: FuzzyServiceOptions = {}): Promise<TestService> {
  const origin = `http://fuzzbox-${++services}.test`;
  const indexedDB = new IDBFactory();
  const dbName = options.dbName ?? 'fuzzbox';
  const service = createFuzzyService({ indexedDB, IDBKeyRange, ...options });
  const basePath = normaliseBasePath(options.basePath ?? '/');
  const baseURL = `${origin}${basePath}`;
  // A predicate rather than a URL pattern: msw's pattern matcher throws on malformed
  // percent-encoding, and such paths must reach the service, which answers them with a 404.
  const ours = ({ request }: { request: Request }) => request.url.startsWith(`${origin}/`);
  interceptor().use(http.all(ours, ({ request }) => service.handle(request)));

  let reader: Dexie | undefined;

  const call = async (method: string, path: string, { key, body, headers = {} }: CallOptions = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (key) (init.headers as Record<string, string>).Authorization = `Bearer ${key}`;
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(new URL(path.replace(/^\//, ''), baseURL), init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, headers: response.headers, body: parsed as any };
  };

  return {
    origin,
    baseURL,
    service,
    indexedDB,
    dbName,
    call,
    async signup(name) {
      const { status, body } = await call('POST', 'account', name === undefined ? {} : { body: { name } });
      if (status !== 200) throw new Error(`sign-up failed: ${status} ${JSON.stringify(body)}`);
      return body.apiKey as string;
    },
    async snapshot() {
      reader ??= new Dexie(dbName, { indexedDB, IDBKeyRange });
      if (!reader.isOpen()) await reader.open();
      const tables: Record<string, unknown> = {};
      for (const table of reader.tables) {
        tables[table.name] = { keys: await table.toCollection().primaryKeys(), records: await table.toArray() };
      }
      return JSON.stringify(tables);
    },
    async close() {
      reader?.close();
      await service.close();
    },
  };
}

/** A small valid agent: tipping from service quality, 0..10 → 0..30 percent. */
export function tippingAgent(name = 'tipping') {
  return {
    name,
    inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
    outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
    rules: [
      'IF service IS poor THEN tip IS low',
      'IF service IS good THEN tip IS medium',
      'IF service IS excellent THEN tip IS high',
    ],
  };
}
