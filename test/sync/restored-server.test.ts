// A server whose database is restored from an older copy (docs/SYNC.md, "A restored server"): the
// replica's checkpoint is past every change the restored database has made, so its pull is refused;
// the replica then pulls everything again from the start and pushes everything again, and from
// then on receives what is made on the restored server. A real `fuzzbox serve` over PGlite files
// (the `pglite` project) or PostgreSQL (`postgres`: the run's server, then a new one the dump is loaded into).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, expect, test } from 'vitest';
import type { FuzzboxServer } from '../../src/node/index.js';
import { postgresBin, startPostgres } from '../support/postgres-server.js';
import { browser, request, serverBackend, serverStorage, startServer, tipping, type Replica } from './support.js';

type Storage = Awaited<ReturnType<typeof serverStorage>>;

/**
 * A backup of a stopped server's storage as it is now, and its restore: PGlite's directory copied
 * (and later served from the copy); PostgreSQL's database dumped (pg_dump), and later loaded into
 * a new PostgreSQL server, whose transaction ids start over as a restore's on another machine do.
 */
function backUp(storage: Storage): { restore(): Promise<Storage> } {
  if (storage.dataDir) {
    const dataDir = mkdtempSync(join(tmpdir(), 'fuzzbox-restored-'));
    cpSync(storage.dataDir, dataDir, { recursive: true });
    return { restore: async () => ({ dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) }) };
  }
  const dump = execFileSync(join(postgresBin(), 'pg_dump'), ['--no-owner', '--no-privileges', storage.database!], { encoding: 'utf8' });
  return {
    restore: async () => {
      const restored = await startPostgres('restored');
      execFileSync(join(postgresBin(), 'psql'), ['--single-transaction', '--quiet', '-v', 'ON_ERROR_STOP=1', restored.url], {
        input: dump,
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      return { database: restored.url, remove: () => restored.stop() };
    },
  };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

test(`a replica of a ${serverBackend} server restored from an older copy pulls and pushes everything again, then receives what is made there`, async () => {
  const storage = await serverStorage();
  cleanup.push(() => storage.remove());
  let restored: Storage | undefined;
  cleanup.push(() => restored?.remove());
  let server: FuzzboxServer = await startServer(storage);
  cleanup.push(() => server.close());
  const port = Number(new URL(server.url).port);
  const { apiKey } = await server.createAccount('restored');
  const onServer = (method: string, path: string, body?: unknown) => request(server.handle, server.url, apiKey, method, path, body);
  const replica: Replica = browser(server.url, apiKey);
  cleanup.push(() => replica.close());
  replica.network.online = true;

  const kept = (await onServer('POST', 'agent', tipping('kept'))).body;
  expect((await replica.service.sync!.now()).lastError).toBeNull();
  expect((await replica.call('GET', `agent/${kept.id}`)).body.latestVersion).toBe(kept.latestVersion);

  // the backup, taken with the server stopped; then the server goes on and the replica follows it
  await server.close();
  const backup = backUp(storage);
  server = await startServer(storage, port);
  for (let i = 0; i < 20; i++) expect((await onServer('PUT', `agent/${kept.id}`, tipping(`kept, edit ${i}`, 31 + i))).status).toBe(200);
  const lost = (await onServer('POST', 'agent', tipping('lost with the restore'))).body;
  expect((await replica.service.sync!.now()).lastError).toBeNull();
  expect((await replica.call('GET', `agent/${lost.id}`)).body.latestVersion).toBe(lost.latestVersion);

  // offline, the replica writes what waits to be pushed
  replica.network.online = false;
  const offline = (await replica.call('POST', 'agent', tipping('made offline'))).body;
  expect(offline.id).toBeDefined();

  // the server restored from the backup: the edits and the agent made since are gone from it
  await server.close();
  restored = await backup.restore();
  server = await startServer(restored, port);
  expect((await onServer('GET', `agent/${lost.id}`)).status).toBe(404);
  // a version made on the restored server, after the restore
  const afterRestore = (await onServer('PUT', `agent/${kept.id}`, tipping('kept, edited after the restore', 60))).body;
  expect(afterRestore.latestVersion).not.toBe(kept.latestVersion);

  replica.network.online = true;
  const requestsBefore = replica.network.requests.length;
  const eventsBefore = replica.events.length;
  const status = await replica.service.sync!.now();
  expect(status.lastError).toBeNull();
  expect(status.pending).toBe(0);
  // the pulls: the old checkpoint (refused), then from the beginning (a retry of the round that
  // failed offline may have run first and recovered the same way)
  const pulls = replica.network.requests.slice(requestsBefore).filter((line) => line.startsWith('GET ') && line.includes('/sync/pull?'));
  expect(pulls[0]).toContain('checkpoint=');
  expect(pulls[1]).not.toContain('checkpoint=');

  // the replica received the version made after the restore, and reported it as new
  const onReplica = (await replica.call('GET', `agent/${kept.id}`)).body;
  expect(onReplica.latestVersion).toBe(afterRestore.latestVersion);
  expect(onReplica.name).toBe('kept, edited after the restore');
  const arrived = replica.events.slice(eventsBefore).flatMap((event) => event.newVersions.map((version) => version.id));
  expect(arrived).toEqual([afterRestore.latestVersion]);
  // and pushed what the server lost, besides what waited: the restored server holds both again
  expect((await onServer('GET', `agent/${lost.id}`)).body.latestVersion).toBe(lost.latestVersion);
  expect((await onServer('GET', `agent/${offline.id}`)).body.latestVersion).toBe(offline.latestVersion);
  const versions = ((await onServer('GET', `agent/${kept.id}/version`)).body as Array<{ id: string }>).map((version) => version.id);
  expect(versions.length).toBe(22); // the first, the 20 edits pushed back, the one after the restore

  // from then on, rounds go on from the new checkpoint
  const again = (await onServer('PUT', `agent/${kept.id}`, tipping('kept, once more', 61))).body;
  const before = replica.network.requests.length;
  expect((await replica.service.sync!.now()).lastError).toBeNull();
  expect(replica.network.requests.slice(before).find((line) => line.includes('/sync/pull?'))).toContain('checkpoint=');
  expect((await replica.call('GET', `agent/${kept.id}`)).body.latestVersion).toBe(again.latestVersion);
});
