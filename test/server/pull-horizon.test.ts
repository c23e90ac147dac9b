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
  const answer = await fetch(`${on.url}agent`, {
    method: 'POST',
    body: JSON.stringify(tippingAgent(name)),
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

/** The agents a pull from `checkpoint` sends, and the checkpoint it ends at. */
async function pullAgents(checkpoint: string | null, on = server, key = apiKey): Promise<{ agents: string[]; checkpoint: string | null }> {
  const answer = await fetch(`${on.url}sync/pull${checkpoint ? `?checkpoint=${checkpoint}` : ''}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  const [head, ...lines] = (await answer.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind?: string; id?: string; checkpoint?: string | null });
  return { agents: lines.filter((line) => line.kind === 'agent').map((line) => line.id!), checkpoint: head!.checkpoint ?? null };
}

/**
 * pullAgents again until it sends `id` (at most 100 times, 50 ms apart). Other test files write on
 * the same server meanwhile: one of their transactions that ended between a pull's snapshot and
 * its read of pg_stat_activity cannot be placed, so it counts as running and that pull may lag for
 * a moment. What must hold is that the pull catches up.
 */
async function pullUntil(id: string, checkpoint: string | null, on = server, key = apiKey): Promise<{ agents: string[]; checkpoint: string | null }> {
  let pulled = await pullAgents(checkpoint, on, key);
  for (let attempt = 0; !pulled.agents.includes(id) && attempt < 100; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pulled = await pullAgents(checkpoint, on, key);
  }
  return pulled;
}

test('a write running in this database holds the pull back until it ends; nothing is skipped', async () => {
  const before = await createAgent('before');
  const holder = await writeHeldOpen(database);
  try {
    const during = await createAgent('during');
    const held = await pullUntil(before, null);
    expect(held.agents).toContain(before);
    expect(held.agents).not.toContain(during);
    await holder.query('COMMIT');
    expect((await pullUntil(during, held.checkpoint)).agents).toContain(during);
  } finally {
    await holder.query('ROLLBACK');
  }
});

test('a write running in another database on the server holds nothing back', async () => {
  const start = (await pullAgents(null)).checkpoint;
  const elsewhere = await writeHeldOpen(await newDatabase('elsewhere'));
  try {
    const created = await createAgent('while another database writes');
    // it arrives while the write elsewhere is still open
    expect((await pullUntil(created, start)).agents).toContain(created);
  } finally {
    await elsewhere.query('ROLLBACK');
  }
});

test("a role that may not read pg_stat_activity pulls by the whole server's horizon: held back by a write elsewhere, nothing skipped", async () => {
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
  try {
    const created = await createAgent('while another database writes', limited, key);
    expect((await pullAgents(start, limited, key)).agents).toEqual([]);
    await elsewhere.query('COMMIT');
    expect((await pullUntil(created, start, limited, key)).agents).toEqual([created]);
  } finally {
    await elsewhere.query('ROLLBACK');
  }
});
