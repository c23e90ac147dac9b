// `fuzzbox` as an operator meets it, in real processes: --help and --version, sign-up and the
// warning beyond loopback, health and readiness, GET /storage's size on PGlite and PostgreSQL,
// and a stdout whose reader goes away (a real pipe to a process that exits).
import { spawn } from 'node:child_process';
import { readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { postgresDatabase } from '../../src/node/databases.js';
import { storageStatusSchema } from '../../src/schema/index.js';
import { newDatabase } from '../support/databases.js';
import { tippingAgent } from '../support/service.js';
import { PGLITE_STARTS, rawRequest, root, runCli, startServe, temporaryDirectories } from './child.js';

const tempDir = temporaryDirectories('fuzzbox-process-');

describe('the command line', () => {
  test("--version prints package.json's version; --help and serve --help print the options; a wrong option is refused with them", async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    for (const option of ['--data DIR', '--database URL', '--port N', '--host H', '--signup', '--no-signup', '--cors ORIGIN', '--quiet'])
      expect(help.stdout).toContain(option);
    const all = await runCli(['--help']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('fuzzbox account create');
    const wrong = await runCli(['serve', '--prot', '80']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^fuzzbox: Unknown option '--prot'/);
    expect(wrong.stderr).toContain('usage: fuzzbox serve');
  });
});

describe('sign-up by where the server listens', () => {
  test('on loopback sign-up is on, with no warning', async () => {
    const server = await startServe(['--database', await newDatabase(), '--quiet']);
    try {
      expect(server.lines.find((line) => line.event === 'listening')).toMatchObject({ signup: true });
      expect((await rawRequest(`${server.url}account`, 'POST', { body: {} })).status).toBe(200);
      expect(server.stderr()).toBe('');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test('on every interface sign-up is off unless asked, and stderr warns either way', async () => {
    const database = await newDatabase();
    const closed = await startServe(['--database', database, '--host', '0.0.0.0', '--quiet']);
    const open = await startServe(['--database', database, '--host', '0.0.0.0', '--signup', '--quiet']);
    try {
      const loopback = (server: typeof closed) => server.url.replace('0.0.0.0', '127.0.0.1');
      expect(closed.lines.find((line) => line.event === 'listening')).toMatchObject({ signup: false });
      const refused = await rawRequest(`${loopback(closed)}account`, 'POST', { body: {} });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ status: 'error', error: 'Forbidden' });
      expect(closed.stderr()).toContain(`fuzzbox: warning: listening on 0.0.0.0, reachable beyond this machine`);
      expect(closed.stderr()).toContain('sign-up is off (make keys with `fuzzbox account create`, or pass --signup)');
      // the way to a key: `fuzzbox account create` on the same database, beside the running servers
      const created = await runCli(['account', 'create', '--name', 'ops', '--database', database]);
      expect(created.code).toBe(0);
      const account = JSON.parse(created.stdout) as { name: string; apiKey: string };
      expect(account.name).toBe('ops');
      expect((await rawRequest(`${loopback(closed)}agent`, 'POST', { key: account.apiKey, body: tippingAgent() })).status).toBe(200);

      expect((await rawRequest(`${loopback(open)}account`, 'POST', { body: {} })).status).toBe(200);
      expect(open.stderr()).toContain('can create an account (--signup)');
    } finally {
      expect(await closed.stop()).toBe(0);
      expect(await open.stop()).toBe(0);
    }
  });
});

describe('health, readiness and GET /storage on a real server', () => {
  test('PostgreSQL: /storage reports the database size; /ready turns 503 when the database goes away, /health stays 200', async () => {
    const database = await newDatabase();
    const server = await startServe(['--database', database, '--quiet']);
    try {
      expect((await rawRequest(`${server.url}health`, 'GET')).body).toEqual({ status: 'ok' });
      expect((await rawRequest(`${server.url}ready`, 'GET')).body).toEqual({ status: 'ok' });
      const { apiKey: key } = (await rawRequest(`${server.url}account`, 'POST', { body: {} })).body;
      const storage = storageStatusSchema.parse((await rawRequest(`${server.url}storage`, 'GET', { key })).body);
      const name = new URL(database).pathname.slice(1);
      const admin = postgresDatabase(database.replace(/\/[^/]*$/, '/postgres'), { max: 1 });
      try {
        const { rows } = await admin.query<{ size: string }>('SELECT pg_database_size($1)::text AS size', [name]);
        // measured by another connection; allow for a page the server's own writes may add
        expect(Math.abs(storage.usage! - Number(rows[0]!.size))).toBeLessThanOrEqual(64 * 1024);
        expect(storage.usage).toBeGreaterThan(1_000_000); // an empty PostgreSQL database is ~7 MB
        expect(storage).toMatchObject({ quota: null, persisted: true, counts: { agents: 0, evaluations: 0 } });

        await admin.exec(`DROP DATABASE ${name} WITH (FORCE)`);
      } finally {
        await admin.close();
      }
      const ready = await rawRequest(`${server.url}ready`, 'GET');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'error', error: 'ServiceUnavailable' });
      expect(ready.body.message).toMatch(/^not ready: the database does not answer \(.*does not exist/);
      expect((await rawRequest(`${server.url}health`, 'GET')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  test(
    "PGlite: /storage reports the database size, which grows with what is stored, and the file system's room as quota",
    async () => {
      const data = join(tempDir(), 'data');
      const server = await startServe(['--data', data, '--quiet']);
      try {
        expect((await rawRequest(`${server.url}ready`, 'GET')).body).toEqual({ status: 'ok' });
        const { apiKey: key } = (await rawRequest(`${server.url}account`, 'POST', { body: {} })).body;
        const before = storageStatusSchema.parse((await rawRequest(`${server.url}storage`, 'GET', { key })).body);
        expect(before.usage).toBeGreaterThan(1_000_000);
        expect(before.persisted).toBe(true);
        const { bavail, bsize } = statfsSync(data);
        // quota = usage + the room left on the file system, which other processes change meanwhile
        expect(Math.abs(before.quota! - before.usage! - bavail * bsize)).toBeLessThan(256 * 1024 * 1024);

        const agent = (await rawRequest(`${server.url}agent`, 'POST', { key, body: tippingAgent() })).body;
        // batches of 400: their X-Evaluation-ID header stays under Node's 16 KB
        const batch = Array.from({ length: 400 }, (_, i) => ({ service: i % 11 }));
        for (let round = 0; round < 10; round++) expect((await rawRequest(`${server.url}agent/${agent.id}`, 'POST', { key, body: batch })).status).toBe(200);
        const after = storageStatusSchema.parse((await rawRequest(`${server.url}storage`, 'GET', { key })).body);
        expect(after.counts.evaluations).toBe(4000);
        // 4,000 logs, each with its input, version id and crisp output: at least 50 bytes apiece
        expect(after.usage! - before.usage!).toBeGreaterThan(4000 * 50);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
    PGLITE_STARTS,
  );
});

describe('stdout whose reader goes away', () => {
  test('the server goes on answering without its log, says so once on stderr, and stops cleanly', async () => {
    // the reader: another process that passes the lines on until "listening", then exits (as `| head` does)
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `let b='';process.stdin.on('data',c=>{b+=c;const l=b.split('\\n').find(x=>x.includes('"listening"'));if(l){process.stdout.write(l+'\\n');process.exit(0)}})`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/node/cli.ts', 'serve', '--port', '0', '--database', await newDatabase()], {
      cwd: root,
      stdio: ['ignore', reader.stdin!, 'pipe'],
    });
    reader.stdin!.destroy(); // only the server writes into the pipe
    let stderr = '';
    server.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
    let listening = '';
    reader.stdout!.on('data', (chunk) => (listening += chunk));
    await new Promise((resolve) => reader.once('exit', resolve));
    const url = (JSON.parse(listening) as { url: string }).url;

    // every request writes an access-log line into the closed pipe
    const { apiKey: key } = (await rawRequest(`${url}account`, 'POST', { body: {} })).body;
    const agent = (await rawRequest(`${url}agent`, 'POST', { key, body: tippingAgent() })).body;
    for (let service = 0; service < 20; service++) {
      expect((await rawRequest(`${url}agent/${agent.id}`, 'POST', { key, body: { service } })).status).toBe(200);
    }
    expect(server.exitCode).toBe(null);
    expect(stderr.match(/stdout is closed \(EPIPE\)/g)).toHaveLength(1);
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
