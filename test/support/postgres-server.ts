// vitest globalSetup of the `postgres` project: a real PostgreSQL server for the run, from
// Debian's `postgresql` package (scripts/setup.mjs installs it when missing). A cluster in a
// temporary directory (initdb), on a free loopback port (pg_ctl), stopped and removed afterwards.
// Each test file makes databases of its own on it (test/support/databases.ts).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://… of the run's database */
    postgresURL: string;
  }
}

/** The newest installed server's binaries; PG_BIN overrides. */
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) {
    throw new Error("PostgreSQL is not installed: run `node scripts/setup.mjs --server` (as root it installs Debian's postgresql), or set PG_BIN");
  }
  return join(root, newest, 'bin');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, commands run as the `postgres` user. */
function runAsServerUser(command: string, args: string[]): string {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface PostgresServer {
  url: string;
  stop(): void;
}

/** Starts a throwaway server; `stop()` stops it and removes its files. */
export async function startPostgres(database = 'fuzzbox_test'): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'fuzzbox-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const stop = () => {
    try {
      runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // not running (a failed start): only the files are left to remove
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    runAsServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'fuzzbox', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    const options = `-p ${port} -h 127.0.0.1 -k ${dir} -c max_connections=200`;
    runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    runAsServerUser(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'fuzzbox', database]);
    return { url: `postgres://fuzzbox@127.0.0.1:${port}/${database}`, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('postgresURL', server.url);
  return () => server.stop();
}
