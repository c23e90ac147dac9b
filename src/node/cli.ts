#!/usr/bin/env node
// `npx fuzzbox serve`: the REST service over HTTP, data in PGlite (./fuzzbox-data) or PostgreSQL;
// `npx fuzzbox account create`: an account and its key, without sign-up. docs/SERVER.md.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PACKAGE_VERSION } from '../api/resources/about.js';
import { createAccount, isLoopback, serve, type AccessLogEntry, type StoreOptions } from './index.js';

const USAGE = `usage: fuzzbox serve [options]            the REST service over HTTP
       fuzzbox account create [options]   an account and its API key, printed once
       fuzzbox --version | --help`;

const STORE_OPTIONS = `  --data DIR        keep the data in PGlite files under DIR (default ./fuzzbox-data);
                    one process at a time per directory
  --database URL    keep it in PostgreSQL instead, e.g. postgres://user:pass@host:5432/fuzzbox`;

const SERVE_USAGE = `usage: fuzzbox serve [--port 8080] [--host 127.0.0.1] [--data DIR | --database URL]
                     [--base-path /] [--signup | --no-signup] [--cors ORIGIN]... [--quiet]

${STORE_OPTIONS}
  --port N          default 8080; 0 picks a free port (the "listening" line says which)
  --host H          default 127.0.0.1 (this machine only); 0.0.0.0 for every interface
  --base-path PATH  serve the interface under PATH, e.g. /api/
  --signup          POST /account creates accounts: the default on a loopback host only
  --no-signup       POST /account is refused (403); make keys with \`fuzzbox account create\`
  --cors ORIGIN     let browsers on ORIGIN call the service (repeat, or * for any); off by default
  --quiet           no access log (one JSON line per request on stdout)`;

const ACCOUNT_USAGE = `usage: fuzzbox account create [--name NAME] [--data DIR | --database URL]

  Creates an account in the store and prints it as one JSON line, with its API key (shown this
  once; only its SHA-256 is kept). On PGlite, stop the server on DIR first (it holds the directory).

${STORE_OPTIONS}
  --name NAME       the account's name`;

class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

const storeOptionSpec = { data: { type: 'string' }, database: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

function parse<const Options extends ParseArgsConfig['options']>(args: string[], options: Options, usage: string) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
}

function storeOf(values: { data?: string; database?: string }, usage: string): StoreOptions {
  if (values.data !== undefined && values.database !== undefined) throw new UsageError('give --data or --database, not both', usage);
  return values.database ? { database: values.database } : { dataDir: values.data ?? 'fuzzbox-data' };
}

/**
 * Lines on stdout. A reader that goes away (`| head`, a restarting logger) turns the next write
 * into EPIPE: the server goes on without its log, and says so once on stderr.
 */
function stdoutLines(): (record: object) => void {
  let open = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!open) return;
    open = false;
    process.stderr.write(`fuzzbox: stdout is closed (${error.code ?? error.message}); no more log lines, the server goes on\n`);
  });
  return (record) => {
    if (open) process.stdout.write(`${JSON.stringify(record)}\n`);
  };
}

async function runServe(args: string[]): Promise<void> {
  const values = parse(
    args,
    {
      ...storeOptionSpec,
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'base-path': { type: 'string', default: '/' },
      signup: { type: 'boolean' },
      'no-signup': { type: 'boolean' },
      cors: { type: 'string', multiple: true },
      quiet: { type: 'boolean', default: false },
    },
    SERVE_USAGE,
  );
  if (values.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, 0 to 65535 (got "${values.port}")`, SERVE_USAGE);
  if (values.signup && values['no-signup']) throw new UsageError('give --signup or --no-signup, not both', SERVE_USAGE);
  const store = storeOf(values, SERVE_USAGE);
  const line = stdoutLines();
  const time = () => new Date().toISOString();
  const cors = values.cors?.includes('*') ? { origins: '*' as const } : values.cors ? { origins: values.cors } : undefined;
  const server = await serve({
    port,
    host: values.host,
    ...store,
    basePath: values['base-path'],
    ...(values.signup ? { signup: true } : values['no-signup'] ? { signup: false } : {}),
    ...(cors ? { cors } : {}),
    ...(values.quiet ? {} : { log: (entry: AccessLogEntry) => line({ event: 'request', ...entry }) }),
    onProgress: (message) => line({ event: 'starting', time: time(), message }),
  });
  if (!isLoopback(values.host)) {
    process.stderr.write(
      `fuzzbox: warning: listening on ${values.host}, reachable beyond this machine: anyone who reaches port ${server.port} ` +
        (server.signup
          ? 'can create an account (--signup); put it behind TLS and rate limits, or use --no-signup and `fuzzbox account create`\n'
          : 'can call it with a key; sign-up is off (make keys with `fuzzbox account create`, or pass --signup)\n'),
    );
  }
  line({
    event: 'listening',
    time: time(),
    url: server.url,
    port: server.port,
    store: store.database ? 'postgres' : 'pglite',
    signup: server.signup,
    pid: process.pid,
  });
  const stop = (signal: string) => {
    line({ event: 'stopping', time: time(), signal });
    server.close().then(
      () => {
        line({ event: 'stopped', time: time() });
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`fuzzbox: closing failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

async function runAccount(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === '--help' || action === '-h') {
    process.stdout.write(`${ACCOUNT_USAGE}\n`);
    return;
  }
  if (action !== 'create') throw new UsageError(action ? `unknown account command "${action}"` : 'say `account create`', ACCOUNT_USAGE);
  const values = parse(rest, { ...storeOptionSpec, name: { type: 'string' } }, ACCOUNT_USAGE);
  if (values.help) {
    process.stdout.write(`${ACCOUNT_USAGE}\n`);
    return;
  }
  const account = await createAccount({
    ...storeOf(values, ACCOUNT_USAGE),
    ...(values.name === undefined ? {} : { name: values.name }),
    onProgress: (message) => process.stderr.write(`fuzzbox: ${message}\n`),
  });
  process.stdout.write(`${JSON.stringify(account)}\n`);
}

async function main([command, ...rest]: string[]): Promise<void> {
  if (command === '--help' || command === '-h' || command === 'help') process.stdout.write(`${USAGE}\n\n${SERVE_USAGE}\n\n${ACCOUNT_USAGE}\n`);
  else if (command === '--version' || command === '-v') process.stdout.write(`${PACKAGE_VERSION}\n`);
  else if (command === 'serve') await runServe(rest);
  else if (command === 'account') await runAccount(rest);
  else throw new UsageError(command ? `unknown command "${command}"` : 'a command is required', USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`fuzzbox: ${error.message}\n\n${error.usage}\n`);
    process.exit(2);
  }
  process.stderr.write(`fuzzbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
