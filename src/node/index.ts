// The `fuzzbox/node` entry: the same request handler as in the browser, served over Node's HTTP
// through @hono/node-server's Fetch adapter, over PostgreSQL (a server through `pg`) or PGlite
// (PostgreSQL in this process, file-backed). docs/SERVER.md.
import { existsSync, statfsSync } from 'node:fs';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createFuzzyService, errorResponse, normaliseBasePath, spelledHeaderName, type FuzzyService, type StorageManagerLike } from '../api/index.js';
import { ApiError, clip } from '../schema/errors.js';
import type { RetentionPolicy } from '../schema/retention.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { SqlDatabase } from '../store/postgres/sql.js';
import type { FuzzboxStore } from '../store/store.js';
import { lockDataDirectory } from './data-lock.js';
import { pgliteDatabase, postgresDatabase } from './databases.js';
import { drivers } from './drivers.js';
import type { Driver } from './missing-driver.js';

export { DataDirectoryLocked, type LockOwner } from './data-lock.js';
export { MissingDriverError, type Driver } from './missing-driver.js';

/** Where the service keeps its data: a PostgreSQL URL, else PGlite files in a directory. */
export interface StoreOptions {
  /** `postgres://user@host:port/db`: a PostgreSQL server (or anything that speaks its protocol) */
  database?: string;
  /** PGlite's directory when no `database` is given; default `./fuzzbox-data` */
  dataDir?: string;
}

/** An open store, and what `GET /storage` and `GET /ready` ask of the database under it. */
interface OpenStore {
  store: FuzzboxStore;
  storageManager: StorageManagerLike;
  /** undefined when the database answers, else why not */
  reachable(): Promise<string | undefined>;
}

/**
 * Opens (and migrates) the store `options` name, saying what it does on `progress`: the first
 * start on a new PGlite directory creates the database, which takes 10–30 s. A PGlite directory
 * is locked for this process until the store closes (docs/SERVER.md, "One process per PGlite directory").
 */
async function openStore(options: StoreOptions, progress: (message: string) => void): Promise<OpenStore> {
  if (options.database) {
    const db = postgresDatabase(options.database);
    return migrated(db, { estimate: async () => ({ usage: await databaseSize(db) }), persisted: async () => true }, progress);
  }
  const dataDir = resolve(options.dataDir ?? 'fuzzbox-data');
  const lock = lockDataDirectory(dataDir);
  if (lock.stale) progress(`took over ${dataDir} from fuzzbox process ${lock.stale.pid}, which stopped without releasing it`);
  let db: SqlDatabase;
  try {
    const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
    progress(fresh ? `creating a new PGlite database in ${dataDir} (the first start takes 10–30 s)` : `opening the PGlite database in ${dataDir}`);
    db = await pgliteDatabase(dataDir);
  } catch (error) {
    lock.release();
    throw error;
  }
  const unlocked: SqlDatabase = { ...db, close: () => db.close().finally(() => lock.release()) };
  const storageManager: StorageManagerLike = {
    async estimate() {
      const usage = await databaseSize(db);
      // what the directory's file system has left, on top of what the database holds
      const { bavail, bsize } = statfsSync(dataDir);
      return { usage, quota: usage + bavail * bsize };
    },
    persisted: async () => true,
  };
  return migrated(unlocked, storageManager, progress);
}

async function migrated(db: SqlDatabase, storageManager: StorageManagerLike, progress: (message: string) => void): Promise<OpenStore> {
  const reachable = () =>
    db.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => `the database does not answer (${error instanceof Error ? error.message : String(error)})`,
    );
  try {
    progress('bringing the database schema up to date');
    return { store: await PostgresStore.open(db), storageManager, reachable };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** The bytes the database takes on disk, as PostgreSQL counts them. */
async function databaseSize(db: SqlDatabase): Promise<number> {
  const { rows } = await db.query<{ size: string }>('SELECT pg_database_size(current_database())::text AS size');
  return Number(rows[0]!.size);
}

/** Cross-origin access for browsers on other origins: off unless given. */
export interface CorsOptions {
  /** origins allowed to call, e.g. `['https://app.example']`, or `'*'` for any */
  origins: readonly string[] | '*';
}

/** One line of the access log, written as JSON. */
export interface AccessLogEntry {
  time: string;
  method: string;
  /** the path without its query (which may carry ?access_token=) */
  path: string;
  status: number;
  /** from the request's arrival to the response's last byte */
  ms: number;
  /** the response's body bytes */
  bytes: number;
  remote: string | undefined;
  /** the client closed the connection before the response's last byte; `status` is then 499 if no status line went out */
  aborted?: true;
}

export interface ListenerOptions {
  cors?: CorsOptions;
  /** called once per request when its response ends; default none */
  log?: (entry: AccessLogEntry) => void;
}

function allowedOrigin(cors: CorsOptions | undefined, origin: string | undefined): string | undefined {
  if (!cors || !origin) return undefined;
  if (cors.origins === '*') return '*';
  return cors.origins.includes(origin) ? origin : undefined;
}

/**
 * A Node request listener that answers with `service.handle`: @hono/node-server turns the
 * request into a Fetch `Request` and the `Response` back; the service's header names are written as
 * it spells them (`X-Evaluation-ID`: clients match it case-sensitively); CORS and the access log wrap it.
 */
export function createRequestListener(service: Handler, options: ListenerOptions = {}) {
  const [{ getRequestListener }] = drivers('createRequestListener', '@hono/node-server');
  const fetchListener = getRequestListener((request) => service.handle(request));
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const started = performance.now();
    const origin = allowedOrigin(options.cors, incoming.headers.origin);
    // an answer that depends on the Origin says so to every cache, also where the origin is refused
    const vary: OutgoingHttpHeaders = options.cors && options.cors.origins !== '*' ? { Vary: 'Origin' } : {};
    const corsHeaders: OutgoingHttpHeaders = origin
      ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'X-Evaluation-ID, Location', ...vary }
      : vary;
    let bytes = 0;
    const write = outgoing.write.bind(outgoing);
    const end = outgoing.end.bind(outgoing);
    const count = (chunk: unknown) => {
      if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk);
      else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
    };
    outgoing.write = ((chunk: unknown, ...rest: never[]) => (count(chunk), write(chunk as never, ...rest))) as typeof outgoing.write;
    outgoing.end = ((chunk?: unknown, ...rest: never[]) => (count(chunk), end(chunk as never, ...rest))) as typeof outgoing.end;
    const writeHead = outgoing.writeHead.bind(outgoing);
    outgoing.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as OutgoingHttpHeaders | undefined;
      const message = rest.find((arg) => typeof arg === 'string') as string | undefined;
      // Node writes a name as given, and `Headers` gives every name in lower case
      const all = Object.fromEntries(Object.entries({ ...(headers ?? {}), ...corsHeaders }).map(([name, value]) => [spelledHeaderName(name), value]));
      return message === undefined ? writeHead(status, all) : writeHead(status, message, all);
    }) as typeof outgoing.writeHead;
    if (options.log) {
      const log = options.log;
      outgoing.once('close', () => {
        const aborted = !outgoing.writableFinished;
        log({
          time: new Date().toISOString(),
          method: incoming.method ?? '',
          path: (incoming.url ?? '').split('?')[0]!,
          // 499, "client closed request" (nginx's): no status went out, so none is reported as sent
          status: aborted && !outgoing.headersSent ? 499 : outgoing.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          bytes,
          remote: incoming.socket.remoteAddress,
          ...(aborted ? { aborted } : {}),
        });
      });
    }
    if (options.cors && incoming.method === 'OPTIONS' && incoming.headers['access-control-request-method']) {
      // a preflight: answered here, the REST interface has no OPTIONS
      if (origin) {
        outgoing.writeHead(204, {
          'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE',
          'Access-Control-Allow-Headers': 'Authorization, Content-Type',
          'Access-Control-Max-Age': '600',
        });
        outgoing.end();
        return;
      }
      const refused = errorResponse(
        new ApiError(
          'Forbidden',
          `origin ${JSON.stringify(clip(incoming.headers.origin ?? '', 200))} is not among the origins this server answers (its cors.origins)`,
        ),
      );
      void refused.text().then((text) => {
        outgoing.writeHead(refused.status, { 'Content-Type': refused.headers.get('content-type')! });
        outgoing.end(text);
      });
      return;
    }
    void fetchListener(incoming, outgoing);
  };
}

/** What answers requests: a FuzzyService, or anything with its `handle`. */
export interface Handler {
  handle(request: Request): Promise<Response>;
}

/** An account made by `createAccount`: its key is shown here once. */
export interface CreatedAccount {
  userID: string;
  name: string | null;
  apiKey: string;
  createdAt: string;
}

// What a server takes: where it stores, how it listens, and the service options that make sense
// on a server (a browser's, such as IndexedDB's names or sync, stay out).
export interface ServeOptions extends StoreOptions, ListenerOptions {
  /** where the interface lives, e.g. `/api/`; default `/` */
  basePath?: string;
  /**
   * whether `POST /account` creates accounts; default true on a loopback `host` only, so that a
   * server reachable from the network hands out keys only when told to (docs/SERVER.md)
   */
  signup?: boolean;
  /** evaluation logs kept (docs/REST.md, retention); default all */
  retention?: { days?: number; perAgent?: number; keepWithFeedback?: boolean };
  /** default 8080; 0 picks a free port */
  port?: number;
  /** default `127.0.0.1`; `0.0.0.0` for every interface */
  host?: string;
  /** told what the start is doing, e.g. creating a new PGlite database (10–30 s the first time) */
  onProgress?: (message: string) => void;
}

export interface FuzzboxServer {
  /** e.g. `http://127.0.0.1:8080/` (with the base path) */
  url: string;
  port: number;
  server: Server;
  /** whether `POST /account` creates accounts (ServeOptions' `signup`, or its default for the host) */
  signup: boolean;
  /** answers one request as the server does, without HTTP */
  handle(request: Request): Promise<Response>;
  /** an account made without `POST /account` (for `signup: false`) */
  createAccount(name?: string): Promise<CreatedAccount>;
  /**
   * Stops accepting connections, lets requests in flight finish (their writes commit before
   * their answers leave), then closes the store. Idle keep-alive connections are closed at once;
   * after `graceMs` (default 30 s) any still open are cut. `GET /ready` answers 503 from the start.
   */
  close(graceMs?: number): Promise<void>;
}

/** Whether `host` is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Opens the store, listens, and resolves once requests are accepted. */
export async function serve(options: ServeOptions = {}): Promise<FuzzboxServer> {
  drivers(`a server over ${options.database ? 'PostgreSQL' : 'PGlite'}`, ...serverDrivers(options));
  const progress = options.onProgress ?? (() => undefined);
  const { store, storageManager, reachable } = await openStore(options, progress);
  const { basePath, retention } = options;
  const host = options.host ?? '127.0.0.1';
  const signup = options.signup ?? isLoopback(host);
  let closing: Promise<void> | undefined;
  const service: FuzzyService = createFuzzyService({
    store,
    storageManager,
    unreadiness: async () => (closing ? 'the server is shutting down' : reachable()),
    ...(basePath === undefined ? {} : { basePath }),
    signup,
    ...(retention ? { retention: retention as RetentionPolicy } : {}),
  });
  const server = createServer(createRequestListener(service, options));
  try {
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8080, host, () => resolveListen());
    });
  } catch (error) {
    await service.close();
    throw error;
  }
  const { port, address, family } = server.address() as AddressInfo;
  const hostInUrl = family === 'IPv6' ? `[${address}]` : address;
  const base = normaliseBasePath(basePath ?? '/');
  return {
    url: `http://${hostInUrl}:${port}${base}`,
    port,
    server,
    signup,
    handle: (request) => service.handle(request),
    createAccount: (name) => service.createAccount(name),
    close(graceMs = 30_000) {
      closing ??= new Promise<void>((resolveClose) => {
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(cut);
          resolveClose();
        });
        server.closeIdleConnections();
      }).then(() => service.close());
      return closing;
    },
  };
}

/** Creates an account in the store `options` name, without a server (`fuzzbox account create`); the key is shown once. */
export async function createAccount(options: StoreOptions & { name?: string; onProgress?: (message: string) => void }): Promise<CreatedAccount> {
  drivers(`an account in ${options.database ? 'PostgreSQL' : 'PGlite'}`, options.database ? 'pg' : '@electric-sql/pglite');
  const { store } = await openStore(options, options.onProgress ?? (() => undefined));
  const service = createFuzzyService({ store });
  try {
    return await service.createAccount(options.name);
  } finally {
    await service.close();
  }
}

/** The drivers a server over the store `options` name needs. */
function serverDrivers(options: StoreOptions): Driver[] {
  return ['@hono/node-server', options.database ? 'pg' : '@electric-sql/pglite'];
}
