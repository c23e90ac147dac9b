// A pull reads only transactions that can no longer commit (docs/SYNC.md, "Checkpoints on the
// server"), on the real PostgreSQL server, where other databases share the transaction counter:
// a write still running in this database holds a pull back; one running in another database
// (another application on the same server) does not, unless the server's role may not read
// pg_stat_activity, where the whole server's horizon is the safe one.
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { serve, type FuzzboxServer } from '../../src/node/index.js';
import { newDatabase } from '../support/databases.js';
import { tippingAgent } from '../support/service.js';

let server: FuzzboxServer;
let database: string;
let apiKey: string;
const servers: FuzzboxServer[] = [];
const clients: pg.Client[] = [];

beforeAll(async () => {
  database = await newDatabase('horizon');
  server = await serve({ port: 0, database });
  const account = await fetch(`${server.url}account`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
  apiKey = ((await account.json()) as { apiKey: string }).apiKey;
});
afterAll(async () => {
  for (const client of clients) await client.end().catch(() => undefined);
  await server?.close();
  for (const other of servers) await other.close();
});

/** A connection holding a transaction open that has written (so it has a transaction ID). */
async function writeHeldOpen(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  clients.push(client);
  await client.connect();
  await client.query('BEGIN');
  await client.query('CREATE TEMPORARY TABLE held (n int)');
  await client.query('INSERT INTO held VALUES (1)');
  return client;
}

async function createAgent(name: string, on = server, key = apiKey): Promise<string> {
  const answer = await fetch(`${on.url}agent`, { method: 'POST', body: JSON.stringify(tippingAgent(name)), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

/** The agents a pull from `checkpoint` sends, and the checkpoint it ends at. */
async function pullAgents(checkpoint: string | null, on = server, key = apiKey): Promise<{ agents: string[]; checkpoint: string | null }> {
  const answer = await fetch(`${on.url}sync/pull${checkpoint ? `?checkpoint=${checkpoint}` : ''}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  const [head, ...lines] = (await answer.text()).trim().split('\n').map((line) => JSON.parse(line) as { kind?: string; id?: string; checkpoint?: string | null });
  return { agents: lines.filter((line) => line.kind === 'agent').map((line) => line.id!), checkpoint: head!.checkpoint ?? null };
}

test('a write running in this database holds the pull back until it ends; nothing is skipped', async () => {
  const before = await createAgent('before');
  const holder = await writeHeldOpen(database);
  const during = await createAgent('during');
  const held = await pullAgents(null);
  expect(held.agents).toEqual([before]);
  await holder.query('COMMIT');
  expect((await pullAgents(held.checkpoint)).agents).toEqual([during]);
});

test('a write running in another database on the server holds nothing back', async () => {
  const start = (await pullAgents(null)).checkpoint;
  const elsewhere = await writeHeldOpen(await newDatabase('elsewhere'));
  const created = await createAgent('while another database writes');
  expect((await pullAgents(start)).agents).toEqual([created]);
  await elsewhere.query('ROLLBACK');
});

test('a role that may not read pg_stat_activity pulls by the whole server\'s horizon: held back by a write elsewhere, nothing skipped', async () => {
  // a server run by a role of its own, in a database it owns, where pg_stat_activity is revoked
  const role = `limited_${process.pid}`;
  const url = new URL(inject('postgresURL'));
  const admin = new pg.Client({ connectionString: url.href });
  clients.push(admin);
  await admin.connect();
  await admin.query(`CREATE ROLE ${role} LOGIN`);
  await admin.query(`CREATE DATABASE ${role} OWNER ${role}`);
  url.pathname = `/${role}`;
  const owner = new pg.Client({ connectionString: url.href });
  clients.push(owner);
  await owner.connect();
  await owner.query('REVOKE SELECT ON pg_catalog.pg_stat_activity FROM PUBLIC');
  url.username = role;
  const limited = await serve({ port: 0, database: url.href });
  servers.push(limited);
  const account = await fetch(`${limited.url}account`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
  const key = ((await account.json()) as { apiKey: string }).apiKey;
  const start = (await pullAgents(null, limited, key)).checkpoint;
  const elsewhere = await writeHeldOpen(await newDatabase('elsewhere'));
  const created = await createAgent('while another database writes', limited, key);
  expect((await pullAgents(start, limited, key)).agents).toEqual([]);
  await elsewhere.query('COMMIT');
  expect((await pullAgents(start, limited, key)).agents).toEqual([created]);
});
