#!/usr/bin/env node
// `npx fuzzbox serve`: the REST service over HTTP, data in PGlite (./fuzzbox-data) or PostgreSQL.
import { parseArgs } from 'node:util';
import { serve, type AccessLogEntry } from './index.js';

const USAGE = `usage: fuzzbox serve [--port 8080] [--host 127.0.0.1] [--data DIR | --database URL]
                     [--base-path /] [--no-signup] [--cors ORIGIN]... [--quiet]

  --data DIR        keep the data in PGlite files under DIR (default ./fuzzbox-data)
  --database URL    keep it in PostgreSQL instead, e.g. postgres://user:pass@host:5432/fuzzbox
  --base-path PATH  serve the interface under PATH, e.g. /api/
  --no-signup       POST /account is refused (403)
  --cors ORIGIN     let browsers on ORIGIN call the service (repeat, or * for any); off by default
  --quiet           no access log (one JSON line per request on stdout)`;

function fail(message: string): never {
  process.stderr.write(`fuzzbox: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command !== 'serve') fail(command ? `unknown command "${command}"` : 'a command is required');
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string' },
        database: { type: 'string' },
        'base-path': { type: 'string', default: '/' },
        'no-signup': { type: 'boolean', default: false },
        cors: { type: 'string', multiple: true },
        quiet: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, 0 to 65535 (got "${values.port}")`);
  if (values.data !== undefined && values.database !== undefined) {
    fail('give --data or --database, not both');
  }
  const line = (record: object) => process.stdout.write(`${JSON.stringify(record)}\n`);
  const cors = values.cors?.includes('*') ? { origins: '*' as const } : values.cors ? { origins: values.cors } : undefined;
  const server = await serve({
    port,
    host: values.host,
    ...(values.database ? { database: values.database } : { dataDir: values.data ?? 'fuzzbox-data' }),
    basePath: values['base-path'],
    signup: !values['no-signup'],
    ...(cors ? { cors } : {}),
    ...(values.quiet ? {} : { log: (entry: AccessLogEntry) => line({ event: 'request', ...entry }) }),
  });
  const store = values.database ? 'postgres' : 'pglite';
  line({ event: 'listening', time: new Date().toISOString(), url: server.url, port: server.port, store, pid: process.pid });
  const stop = (signal: string) => {
    line({ event: 'stopping', time: new Date().toISOString(), signal });
    server.close().then(
      () => {
        line({ event: 'stopped', time: new Date().toISOString() });
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

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`fuzzbox: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
