// One `fuzzbox serve` per PGlite directory: two real server processes on one --data directory
// (the second refuses at once, naming the first), a SIGKILL (its stale lock is taken over and
// every acknowledged write is still there), and `fuzzbox account create` beside a running server.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DataDirectoryLocked, LOCK_FILE, lockDataDirectory, type LockOwner } from '../../src/node/data-lock.js';
import { tippingAgent } from '../support/service.js';
import { PGLITE_STARTS, rawRequest, runCli, startServe, temporaryDirectories } from './child.js';

const tempDir = temporaryDirectories('fuzzbox-lock-');
const dataDir = () => join(tempDir(), 'data');

describe('two fuzzbox serve on one PGlite directory', () => {
  test(
    'the second refuses at once, naming the first; the first keeps serving and its data is whole',
    async () => {
      const data = dataDir();
      const first = await startServe(['--data', data, '--quiet']);
      try {
        const { apiKey: key } = (await rawRequest(`${first.url}account`, 'POST', { body: {} })).body;
        const agent = (await rawRequest(`${first.url}agent`, 'POST', { key, body: tippingAgent() })).body;

        const second = await runCli(['serve', '--port', '0', '--data', data]);
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`the data directory ${data} is in use by fuzzbox process ${first.process.pid}`);
        // at once: refused before it opened the database (no "starting" line), let alone listened
        expect(second.stdout).toBe('');

        // the refused process touched nothing: the first still answers, with everything it stored
        const evaluated = await rawRequest(`${first.url}agent/${agent.id}`, 'POST', { key, body: { service: 5 } });
        expect(evaluated.status).toBe(200);
        expect((await rawRequest(`${first.url}agent`, 'GET', { key })).body.map((a: { id: string }) => a.id)).toEqual([agent.id]);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      // a stopped server releases the directory
      expect(existsSync(join(data, LOCK_FILE))).toBe(false);
    },
    PGLITE_STARTS,
  );

  test(
    'after SIGKILL the lock is stale: the next start takes it over and every acknowledged write is there',
    async () => {
      const data = dataDir();
      const killed = await startServe(['--data', data, '--quiet']);
      const { apiKey: key } = (await rawRequest(`${killed.url}account`, 'POST', { body: {} })).body;
      const agent = (await rawRequest(`${killed.url}agent`, 'POST', { key, body: tippingAgent() })).body;
      const acknowledged: string[] = [];
      for (let service = 0; service <= 10; service++) {
        const answer = await rawRequest(`${killed.url}agent/${agent.id}`, 'POST', { key, body: { service } });
        expect(answer.status).toBe(200);
        acknowledged.push(answer.headerLines.find((line) => line.startsWith('X-Evaluation-ID: '))!.slice('X-Evaluation-ID: '.length));
      }
      killed.process.kill('SIGKILL');
      expect(await killed.exited).toBe(null);
      expect(existsSync(join(data, LOCK_FILE))).toBe(true); // left behind

      const next = await startServe(['--data', data, '--quiet']);
      try {
        const tookOver = next.lines.find((line) => line.event === 'starting' && String(line.message).startsWith('took over'));
        expect(tookOver?.message).toBe(`took over ${data} from fuzzbox process ${killed.process.pid}, which stopped without releasing it`);
        const stored = await Promise.all(acknowledged.map((reqID) => rawRequest(`${next.url}evaluation/${reqID}`, 'GET', { key })));
        expect(stored.map((answer) => answer.status)).toEqual(acknowledged.map(() => 200));
        expect(stored.map((answer) => answer.body.input.service)).toEqual(acknowledged.map((_, service) => service));
        // and it is held again: a third process is refused, naming the new owner
        const third = await runCli(['serve', '--port', '0', '--data', data]);
        expect(third.code).toBe(1);
        expect(third.stderr).toContain(`in use by fuzzbox process ${next.process.pid}`);
      } finally {
        expect(await next.stop()).toBe(0);
      }
      // no leftovers of the takeover beside PGlite's files
      expect(readdirSync(data).filter((name) => name.startsWith(LOCK_FILE))).toEqual([]);
    },
    PGLITE_STARTS,
  );
});

describe('whose lock is stale', () => {
  /** A directory whose lock file names `owner`, as a process would have left it. */
  function lockedBy(owner: Partial<LockOwner>): string {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, host: hostname(), processStart: null, lockedAt: '2026-01-01T00:00:00.000Z', ...owner }),
    );
    return dir;
  }
  const ownStart = (JSON.parse(readFileSync(join(lockedByMe(), LOCK_FILE), 'utf8')) as LockOwner).processStart;
  function lockedByMe(): string {
    const dir = dataDir();
    lockDataDirectory(dir); // left held: read back for this process's start time
    return dir;
  }

  test('a live pid that started at another time is a later process given the same pid: taken over', () => {
    expect(ownStart).toMatch(/^\d+$/); // Linux: /proc gives the start time
    const dir = lockedBy({ processStart: String(Number(ownStart) - 1000) });
    const lock = lockDataDirectory(dir);
    expect(lock.stale).toMatchObject({ pid: process.pid, lockedAt: '2026-01-01T00:00:00.000Z' });
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('the same live process, or a process on another host, is never taken over', () => {
    for (const owner of [{ processStart: ownStart }, { host: `not-${hostname()}`, pid: 1 }]) {
      const dir = lockedBy(owner);
      expect(() => lockDataDirectory(dir)).toThrow(DataDirectoryLocked);
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject(owner); // untouched
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    }
  });
});

describe('fuzzbox account create', () => {
  test(
    'makes a key a --no-signup server accepts; refused while a server holds the PGlite directory',
    async () => {
      const data = dataDir();
      const created = await runCli(['account', 'create', '--name', 'ops', '--data', data]);
      expect(created.stderr).toContain('creating a new PGlite database');
      expect(created.code).toBe(0);
      const account = JSON.parse(created.stdout) as { userID: string; name: string; apiKey: string };
      expect(account.name).toBe('ops');

      const server = await startServe(['--data', data, '--no-signup', '--quiet']);
      try {
        const refused = await rawRequest(`${server.url}account`, 'POST', { body: {} });
        expect(refused.status).toBe(403);
        const agent = await rawRequest(`${server.url}agent`, 'POST', { key: account.apiKey, body: tippingAgent() });
        expect(agent.status).toBe(200);
        const busy = await runCli(['account', 'create', '--data', data]);
        expect(busy.code).toBe(1);
        expect(busy.stderr).toContain(`in use by fuzzbox process ${server.process.pid}`);
        expect(busy.stdout).toBe('');
      } finally {
        expect(await server.stop()).toBe(0);
      }
    },
    PGLITE_STARTS,
  );
});
