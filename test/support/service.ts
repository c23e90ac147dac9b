// A fuzzbox service behind a real http origin: fetch() → msw/node → service.handle(), over an
// empty store of its own. Which store is the test run's parameter (vitest.config.ts runs the
// conformance suite once per backend): a fresh fake-indexeddb factory, a schema of its own in
// this test file's PGlite, or a schema of its own in this test file's database on the real
// PostgreSQL server that test/support/postgres-server.ts starts.
import { PGlite } from '@electric-sql/pglite';
import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll } from 'vitest';
import { createFuzzyService, type FuzzyService, type FuzzyServiceOptions } from '../../src/index.js';
import { normaliseBasePath } from '../../src/api/index.js';
import { onPGlite, postgresDatabase } from '../../src/node/databases.js';
import { DexieStore } from '../../src/store/dexie/dexie-store.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { SqlDatabase } from '../../src/store/postgres/sql.js';
import type { FuzzboxStore } from '../../src/store/store.js';
import { newDatabase } from './databases.js';
import { answerProblems } from './openapi.js';
import { brokenStore, failWrites, quotaExceeded } from './faults.js';

export type StoreBackend = 'dexie' | 'pglite' | 'postgres';

/** The store this run tests: vitest.config.ts sets it per project. */
export const backend = (process.env.FUZZBOX_TEST_STORE ?? 'dexie') as StoreBackend;

/** The stores' writes a test can make fail, by what they hold. */
export type StoredKind = 'accounts' | 'agents' | 'versions' | 'deletedAgents' | 'logs' | 'feedback';
const dexieTables: Record<StoredKind, string> = {
  accounts: 'accounts',
  agents: 'agents',
  versions: 'versions',
  deletedAgents: 'deletedAgents',
  logs: 'logGroups',
  feedback: 'feedback',
};
const sqlTables: Record<StoredKind, string> = { ...dexieTables, deletedAgents: 'deleted_agents', logs: 'evaluations' };
/** A store that fails as a broken one does (a 500), or as a full disk does (a 507). */
export type Fault = 'broken' | 'full';

let pglite: Promise<PGlite> | undefined;
/** this test file's database on the PostgreSQL server: its services' schemas are in it */
let fileDatabase: Promise<string> | undefined;
let schemas = 0;

type Server = ReturnType<typeof setupServer>;
let server: Server | undefined;
let services = 0;

afterAll(async () => {
  server?.close();
  server = undefined;
  await (await pglite)?.close();
  pglite = undefined;
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
  backend: StoreBackend;
  /** what the service stores through */
  store: FuzzboxStore;
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
  /** the id of every evaluation log stored, in the order they were stored */
  storedLogIDs(): Promise<string[]>;
  /** how many evaluation logs and feedback records are stored (every account's), counted around the service */
  storedRecords(): Promise<{ evaluations: number; feedback: number }>;
  /** how many agents and (live) versions are stored, read around the service */
  storedCounts(): Promise<{ agents: number; versions: number }>;
  /**
   * Until the returned function is called, writes of `kind` fail: in IndexedDB by a throwing
   * object store, in PostgreSQL by a trigger raising an error (disk_full for `full`).
   */
  failWrites(kind: StoredKind, fault: Fault): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function createTestService(options: FuzzyServiceOptions = {}): Promise<TestService> {
  const origin = `http://fuzzbox-${++services}.test`;
  const indexedDB = new IDBFactory();
  const dbName = options.dbName ?? 'fuzzbox';
  const { store, sql } = await openStore(dbName, indexedDB);
  const service = createFuzzyService({ ...options, store });
  const basePath = normaliseBasePath(options.basePath ?? '/');
  const baseURL = `${origin}${basePath}`;
  // A predicate rather than a URL pattern: msw's pattern matcher throws on malformed
  // percent-encoding, and such paths must reach the service, which answers them with a 404.
  const ours = ({ request }: { request: Request }) => request.url.startsWith(`${origin}/`);
  interceptor().use(http.all(ours, ({ request }) => service.handle(request)));

  let reader: Dexie | undefined;
  const dexieReader = async () => {
    reader ??= new Dexie(dbName, { indexedDB, IDBKeyRange });
    if (!reader.isOpen()) await reader.open();
    return reader;
  };

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
    // every answer of the conformance suite is also a test of the REST reference (GET /openapi.json)
    const problem = answerProblems(method, path, response.status, parsed);
    if (problem) throw new Error(problem);
    return { status: response.status, headers: response.headers, body: parsed as any };
  };

  return {
    backend,
    store,
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
      const tables: Record<string, unknown> = {};
      if (sql) {
        const { rows } = await sql.query<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`,
        );
        for (const { name } of rows) tables[name] = { records: (await sql.query(`SELECT * FROM ${name} ORDER BY 1`)).rows };
        return JSON.stringify(tables);
      }
      for (const table of (await dexieReader()).tables) {
        tables[table.name] = { keys: await table.toCollection().primaryKeys(), records: await table.toArray() };
      }
      return JSON.stringify(tables);
    },
    async storedLogIDs() {
      if (sql) return (await sql.query<{ id: string }>('SELECT req_id AS id FROM evaluations ORDER BY seq')).rows.map((row) => row.id);
      const groups: Array<{ keys: Array<[string, string]> }> = await (await dexieReader()).table('logGroups').toArray();
      return groups.flatMap((group) => group.keys.map(([, reqID]) => reqID));
    },
    async storedRecords() {
      if (sql) {
        const { rows } = await sql.query<{ evaluations: number; feedback: number }>(
          'SELECT (SELECT count(*)::int FROM evaluations) AS evaluations, (SELECT count(*)::int FROM feedback) AS feedback',
        );
        return rows[0]!;
      }
      const reader = await dexieReader();
      const groups: Array<{ keys: unknown[] }> = await reader.table('logGroups').toArray();
      return { evaluations: groups.reduce((sum, group) => sum + group.keys.length, 0), feedback: await reader.table('feedback').count() };
    },
    async storedCounts() {
      if (sql) {
        const { rows } = await sql.query<{ agents: number; versions: number }>(
          'SELECT (SELECT count(*)::int FROM agents) AS agents, (SELECT count(*)::int FROM versions WHERE NOT retired) AS versions',
        );
        return rows[0]!;
      }
      const reader = await dexieReader();
      return { agents: await reader.table('agents').count(), versions: await reader.table('versions').count() };
    },
    async failWrites(kind, fault) {
      if (!sql) {
        const restore = failWrites(dexieTables[kind], fault === 'full' ? quotaExceeded : brokenStore);
        return async () => restore();
      }
      // disk_full, as PostgreSQL raises it when it cannot extend a file; XX001 (data_corrupted) otherwise
      const code = fault === 'full' ? '53100' : 'XX001';
      const table = sqlTables[kind];
      await sql.exec(`
        CREATE OR REPLACE FUNCTION fail_write() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'a write to % failed (injected by the test)', TG_TABLE_NAME USING ERRCODE = TG_ARGV[0]; END $$;
        CREATE TRIGGER fail_write BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_write('${code}');`);
      return async () => sql.exec(`DROP TRIGGER IF EXISTS fail_write ON ${table}`);
    },
    async close() {
      reader?.close();
      await service.close();
    },
  };
}

/** An empty schema of its own in this run's PostgreSQL (the test file's PGlite, or its database on the server). */
export async function openTestDatabase(): Promise<SqlDatabase> {
  const schema = `test_${process.pid}_${++schemas}`;
  if (backend === 'pglite') {
    const database = await (pglite ??= PGlite.create());
    await database.exec(`CREATE SCHEMA ${schema}`);
    return onPGlite(database, { schema });
  }
  if (backend !== 'postgres') throw new Error(`the ${backend} backend has no SQL database`);
  const url = await (fileDatabase ??= newDatabase());
  const admin = postgresDatabase(url, { max: 1 });
  await admin.exec(`CREATE SCHEMA ${schema}`);
  await admin.close();
  return postgresDatabase(url, { schema, max: 4 });
}

/** An empty store of this run's backend, and for PostgreSQL the database it is in. */
async function openStore(dbName: string, indexedDB: IDBFactory): Promise<{ store: FuzzboxStore; sql?: SqlDatabase }> {
  if (backend === 'dexie') return { store: new DexieStore(dbName, { indexedDB, IDBKeyRange }) };
  const sql = await openTestDatabase();
  return { store: await PostgresStore.open(sql), sql };
}

/** A small valid agent: tipping from service quality, 0..10 → 0..30 percent. */
export function tippingAgent(name = 'tipping') {
  return {
    name,
    inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
    outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
    rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
  };
}
