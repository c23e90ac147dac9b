// The `fuzzbox/node` entry: the same request handler as in the browser, served over Node's HTTP
// through @hono/node-server's Fetch adapter, over PostgreSQL (a server through `pg`) or PGlite
// (PostgreSQL in this process, file-backed). docs/SERVER.md.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createFuzzyService, normaliseBasePath, spelledHeaderName, type FuzzyService } from '../api/index.js';
import type { RetentionPolicy } from '../schema/retention.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
import type { FuzzboxStore } from '../store/store.js';
import { pgliteDatabase, postgresDatabase } from './databases.js';


/** Where the service keeps its data: a PostgreSQL URL, else PGlite files in a directory. */
export interface StoreOptions {
  /** `postgres://user@host:port/db`: a PostgreSQL server (or anything that speaks its protocol) */
  database?: string;
  /** PGlite's directory when no `database` is given; default `./fuzzbox-data` */
  dataDir?: string;
}

/** Opens (and migrates) the store `options` name. */
async function openStore(options: StoreOptions = {}): Promise<FuzzboxStore> {
  const db = options.database ? postgresDatabase(options.database) : await pgliteDatabase(resolve(options.dataDir ?? 'fuzzbox-data'));
  try {
    return await PostgresStore.open(db);
  } catch (error) {
    await db.close();
    throw error;
  }
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
 * request into a Fetch `Request` and the `Response` back; header names SPEC names are written as
 * it spells them (`X-Evaluation-ID`: clients match it case-sensitively); CORS and the access log wrap it.
 */
export function createRequestListener(service: Handler, options: ListenerOptions = {}) {
  const fetchListener = getRequestListener((request) => service.handle(request));
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const started = performance.now();
    const origin = allowedOrigin(options.cors, incoming.headers.origin);
    const corsHeaders: OutgoingHttpHeaders = origin
      ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'X-Evaluation-ID, Location', Vary: 'Origin' }
      : {};
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
        log({
          time: new Date().toISOString(),
          method: incoming.method ?? '',
          path: (incoming.url ?? '').split('?')[0]!,
          status: outgoing.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          bytes,
          remote: incoming.socket.remoteAddress,
        });
      });
    }
    if (options.cors && incoming.method === 'OPTIONS' && incoming.headers['access-control-request-method']) {
      // a preflight: answered here, the REST interface has no OPTIONS
      outgoing.writeHead(origin ? 204 : 403, {
        ...(origin
          ? {
              'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE',
              'Access-Control-Allow-Headers': 'Authorization, Content-Type',
              'Access-Control-Max-Age': '600',
            }
          : {}),
      });
      outgoing.end();
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
  /** whether `POST /account` creates accounts; default true */
  signup?: boolean;
  /** evaluation logs kept (docs/REST.md, retention); default all */
  retention?: { days?: number; perAgent?: number; keepWithFeedback?: boolean };
  /** default 8080; 0 picks a free port */
  port?: number;
  /** default `127.0.0.1`; `0.0.0.0` for every interface */
  host?: string;
}

export interface FuzzboxServer {
  /** e.g. `http://127.0.0.1:8080/` (with the base path) */
  url: string;
  port: number;
  server: Server;
  /** answers one request as the server does, without HTTP */
  handle(request: Request): Promise<Response>;
  /** an account made without `POST /account` (for `signup: false`) */
  createAccount(name?: string): Promise<CreatedAccount>;
  /**
   * Stops accepting connections, lets requests in flight finish (their writes commit before
   * their answers leave), then closes the store. Idle keep-alive connections are closed at once;
   * after `graceMs` (default 30 s) any still open are cut.
   */
  close(graceMs?: number): Promise<void>;
}

/** Opens the store, listens, and resolves once requests are accepted. */
export async function serve(options: ServeOptions = {}): Promise<FuzzboxServer> {
  const store = await openStore(options);
  const { basePath, signup, retention } = options;
  const service: FuzzyService = createFuzzyService({
    store,
    ...(basePath === undefined ? {} : { basePath }),
    ...(signup === undefined ? {} : { signup }),
    ...(retention ? { retention: retention as RetentionPolicy } : {}),
  });
  const server = createServer(createRequestListener(service, options));
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  const base = normaliseBasePath(basePath ?? '/');
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}${base}`,
    port,
    server,
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
