// The PostgreSQL schema is a contract with every database an earlier fuzzbox wrote: a database
// at schema version 1, filled by plain SQL independently of the store, upgrades at start keeping
// every row, and reads back through the API. Runs on PGlite and on the real server.
import { createHash, randomUUID } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { IMPORT_BATCH } from '../../src/core/backup-stream.js';
import { createFuzzyService } from '../../src/index.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { migrations } from '../../src/store/postgres/migrations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { SqlDatabase } from '../../src/store/postgres/sql.js';
import { backend, openTestDatabase } from '../support/service.js';

let db: SqlDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

const definition = {
  inputs: { x: { low: [0, 10], high: [0, 10, 20] } },
  outputs: { y: { small: [0, 1, 2] } },
  rules: ['IF x IS low THEN y IS small'],
};
const apiKey = 'fzb_written-by-an-earlier-release';
const createdAt = '2026-01-02T03:04:05.678Z';
const reqIDs = ['11111111-1111-4111-8111-111111111111', '33333333-3333-4333-8333-333333333333'];

/** What schema version 1 holds, written as plain SQL. */
async function writeVersion1(sql: SqlDatabase): Promise<void> {
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  const json = JSON.stringify;
  await sql.query(`INSERT INTO accounts VALUES ('U1', 'old', $1, $2)`, [keyHash, createdAt]);
  const agent = `INSERT INTO agents (id, user_id, name, inputs, outputs, rules, created_at, updated_at, latest_version, version_count)
    VALUES ($1, 'U1', $2, $3, $4, $5, $6, $6, $7, 1)`;
  const version = `INSERT INTO versions (id, version_of, user_id, name, inputs, outputs, rules, parsed_rules, created_at, seq, retired)
    VALUES ($1, $2, 'U1', $3, $4, $5, $6, '[]', $7, 0, $8)`;
  await sql.query(agent, ['A1', 'old agent', json(definition.inputs), json(definition.outputs), json(definition.rules), createdAt, 'V1']);
  await sql.query(version, ['V1', 'A1', 'old agent', json(definition.inputs), json(definition.outputs), json(definition.rules), createdAt, false]);
  // a deleted agent: its version retired, its tombstone, its log still there
  await sql.query(version, ['V2', 'A2', 'gone', json(definition.inputs), json(definition.outputs), json(definition.rules), createdAt, true]);
  await sql.query(`INSERT INTO deleted_agents VALUES ('A2', 'U1', $1)`, [createdAt]);
  const log = `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, returned, created_at)
    VALUES ($1, 'U1', $2, $3, $4, $5, $6, $7)`;
  await sql.query(log, [reqIDs[0], 'A1', 'V1', json({ x: 5 }), json({ y: 1 }), null, createdAt]);
  await sql.query(log, [reqIDs[1], 'A2', 'V2', json({ x: 5 }), json({ y: 1 }), json({ y: 1.5 }), createdAt]);
  await sql.query(`INSERT INTO feedback (id, evaluation_log, data, created_at) VALUES ($1, $2, $3, $4)`, [
    '22222222-2222-4222-8222-222222222222',
    reqIDs[0],
    json({ score: 2 }),
    createdAt,
  ]);
}

async function rowCounts(sql: SqlDatabase): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['accounts', 'agents', 'versions', 'deleted_agents', 'evaluations', 'feedback']) {
    counts[table] = (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  }
  return counts;
}

test('a version-1 database upgrades at start, keeps every row, and reads back through the API', async () => {
  db = await openTestDatabase();
  expect(await migrate(db, 1)).toBe(1);
  await writeVersion1(db);
  const before = await rowCounts(db);

  const service = createFuzzyService({ store: await PostgresStore.open(db) });
  const versions = await db.query<{ version: number }>('SELECT version FROM fuzzbox_migrations ORDER BY version');
  expect(versions.rows.map((row) => row.version)).toEqual(migrations.map((_, index) => index + 1));
  expect(await rowCounts(db)).toEqual(before);
  // version 2 gave feedback its account, taken from the log it is on
  expect((await db.query('SELECT user_id FROM feedback')).rows).toEqual([{ user_id: 'U1' }]);

  const call = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method, headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await service.handle(new Request(`http://local/${path}`, init));
    return { status: response.status, body: (await response.json()) as any };
  };
  expect((await call('GET', 'agent')).body).toEqual([{ id: 'A1', name: 'old agent' }]);
  expect((await call('GET', 'agent/A1')).body).toMatchObject({ ...definition, latestVersion: 'V1', createdAt });
  expect((await call('GET', 'agent/A2')).status).toBe(410);
  const log = (await call('GET', `evaluation/${reqIDs[0]}`)).body;
  // x = 5: low and high are 0.5; small [0,1,2] cut at 0.5 is symmetric about 1
  expect(log).toMatchObject({ reqID: reqIDs[0], versionID: 'V1', input: { x: 5 }, crisp: { y: 1 }, inferred: { y: { small: 0.5 } } });
  // a deleted agent's log is recomputed from its retired version
  expect((await call('GET', `evaluation/${reqIDs[1]}`)).body).toMatchObject({ agentID: 'A2', returned: { y: 1.5 }, centroid: { y: [1, 2 / 9] } });
  expect((await call('GET', `evaluation/${reqIDs[0]}/feedback`)).body).toMatchObject([{ data: { score: 2 } }]);
  // version 6 counted the logs and feedback already stored, for GET /storage
  const stored = (
    await db.query<{ evaluations: number; feedback: number }>(
      `SELECT (SELECT count(*)::int FROM evaluations WHERE user_id = 'U1') AS evaluations, (SELECT count(*)::int FROM feedback WHERE user_id = 'U1') AS feedback`,
    )
  ).rows[0]!;
  expect(stored.evaluations).toBeGreaterThan(0);
  expect((await call('GET', 'storage')).body.counts).toMatchObject(stored);
  // the next PUT is version number 1 of A1, after the one written at version 1
  expect((await call('PUT', 'agent/A1', { name: 'renamed', ...definition })).status).toBe(200);
  expect((await call('GET', 'agent/A1/version')).body.map((v: { id: string }) => v.id)[0]).toBe('V1');
  expect((await db.query('SELECT seq FROM versions WHERE version_of = $1 ORDER BY seq', ['A1'])).rows).toEqual([{ seq: 0 }, { seq: 1 }]);
  // a second start migrates nothing more
  expect(await migrate(db)).toBe(0);
  await service.close();
});

test('a database a newer fuzzbox migrated further is refused at start, untouched', async () => {
  db = await openTestDatabase();
  await migrate(db);
  await db.query('INSERT INTO fuzzbox_migrations VALUES ($1, $2)', [migrations.length + 1, createdAt]);
  await expect(PostgresStore.open(db)).rejects.toThrow(/newer than this fuzzbox knows/);
});

test('every statement of a migration or none: a failing migration leaves the version before', async () => {
  db = await openTestDatabase();
  await migrate(db, 1);
  // a row version 2 cannot migrate: feedback on a log that does not exist gets no account, and
  // the NOT NULL that follows fails, rolling back the ALTER and UPDATE before it
  await db.query(`INSERT INTO feedback (id, evaluation_log, data, created_at) VALUES ('F', 'no such log', '{}', $1)`, [createdAt]);
  await expect(migrate(db)).rejects.toThrow();
  expect((await db.query('SELECT max(version) AS v FROM fuzzbox_migrations')).rows).toEqual([{ v: 1 }]);
  const columns = await db.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'feedback' AND column_name = 'user_id'`,
  );
  expect(columns.rows).toEqual([]);
});

test('the per-account count rows fold into one with the same sums; a second folder in another transaction skips, never waits', async () => {
  db = await openTestDatabase();
  await migrate(db);
  // statements as the writers make them: each adds a row of its own
  for (const [table, rows] of [
    ['evaluations', 3],
    ['feedback', 2],
    ['evaluations', -1],
  ] as const) {
    await db.query('INSERT INTO record_counts (user_id, evaluations, feedback) VALUES ($1, $2, $3)', [
      'U1',
      table === 'evaluations' ? rows : 0,
      table === 'feedback' ? rows : 0,
    ]);
  }
  await db.query(`INSERT INTO record_counts (user_id, evaluations, feedback) VALUES ('U2', 7, 1)`);
  const rows = async () => (await db!.query('SELECT user_id, evaluations::int, feedback::int FROM record_counts ORDER BY user_id, evaluations')).rows;
  if (backend === 'postgres') {
    // PGlite is one session: only a server has another transaction to hold the lock
    await db.transaction(async (sql) => {
      await sql.query(`SELECT pg_advisory_xact_lock(7141994, hashtext('U1'))`);
      // another transaction holds the account's fold lock: this fold leaves the rows as they are
      await db!.query(`SELECT fold_record_counts('U1')`);
      expect((await rows()).filter((row) => row.user_id === 'U1')).toHaveLength(3);
    });
  }
  await db.query(`SELECT fold_record_counts('U1')`);
  expect(await rows()).toEqual([
    { user_id: 'U1', evaluations: 2, feedback: 2 },
    { user_id: 'U2', evaluations: 7, feedback: 1 },
  ]);
});

test('a push of deletions is written set-based: each batch of the push issues as many statements as a batch of three lines', async () => {
  db = await openTestDatabase();
  const open = db;
  // statements per transaction, of the transactions that store a pushed batch (they take the account's import lock first)
  let batches: number[][] = [];
  const counted: SqlDatabase = {
    ...open,
    transaction: (work) =>
      open.transaction((sql) => {
        const statements: number[] = [];
        let pushed = false;
        return work({
          query(text, params) {
            if (statements.length === 0 && String(params?.[0]).startsWith('fuzzbox import ')) pushed = batches.push(statements) > 0;
            if (pushed) statements.push(1);
            return sql.query(text, params);
          },
          exec: (text) => sql.exec(text),
        });
      }),
  };
  const service = createFuzzyService({ store: await PostgresStore.open(counted) });
  const call = async (method: string, path: string, key: string | undefined, body?: string, type = 'application/json') => {
    const headers: Record<string, string> = { 'Content-Type': type, ...(key ? { Authorization: `Bearer ${key}` } : {}) };
    const response = await service.handle(new Request(`http://local/${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
    return { status: response.status, body: (await response.json()) as any };
  };
  const key = (await call('POST', 'account', undefined, '{}')).body.apiKey as string;
  const agent = async () => (await call('POST', 'agent', key, JSON.stringify({ name: 'gone', ...definition }))).body.id as string;
  const earlier = '2020-01-02T03:04:05.678Z';
  const now = new Date().toISOString();
  const push = (lines: object[]) =>
    call(
      'POST',
      'sync/push',
      key,
      [{ format: 'fuzzbox-backup', version: 1, exportedAt: now }, ...lines].map((line) => JSON.stringify(line)).join('\n'),
      'application/x-ndjson',
    );
  // three kinds of deletion: of a live agent (its row goes, its versions retire), of one deleted
  // here later (the earlier time stands), of one never seen here (a new tombstone)
  const live = async () => ({ kind: 'deletion', id: await agent(), deletedAt: earlier });
  const deletedLater = async () => {
    const id = await agent();
    expect((await call('DELETE', `agent/${id}`, key)).status).toBe(200);
    return { kind: 'deletion', id, deletedAt: earlier };
  };
  const unseen = () => ({ kind: 'deletion', id: `D${randomUUID().replace(/-/g, '')}`, deletedAt: earlier });

  const small = [await live(), await deletedLater(), unseen()];
  batches = [];
  expect((await push(small)).body).toEqual({ lines: 4, imported: 3, unchanged: 0 });
  expect(batches).toHaveLength(1);
  const perBatch = batches[0]!.length;
  expect(perBatch).toBeLessThan(20);

  // two full batches, each with ten of each of the first two kinds
  const lines: object[] = [];
  for (let batch = 0; batch < 2; batch++) {
    for (let i = 0; i < 10; i++) lines.push(await live(), await deletedLater());
    while (lines.length < (batch + 1) * IMPORT_BATCH) lines.push(unseen());
  }
  batches = [];
  expect((await push(lines)).body).toEqual({ lines: 2 * IMPORT_BATCH + 1, imported: 2 * IMPORT_BATCH, unchanged: 0 });
  expect(batches.map((statements) => statements.length)).toEqual([perBatch, perBatch]);

  // and each was written: the live agents are gone, the stored deletions keep the earlier time
  for (const line of [...small, ...lines.slice(0, 20), ...lines.slice(IMPORT_BATCH, IMPORT_BATCH + 20)] as Array<{ id: string }>) {
    const answer = await call('GET', `agent/${line.id}`, key);
    expect(answer.status).toBe(410);
    expect(answer.body.message).toBe(`agent "${line.id}" was deleted at ${earlier}`);
  }
  expect((await call('GET', 'storage', key)).body.counts).toMatchObject({ agents: 0, versions: 0, deletions: 3 + 2 * IMPORT_BATCH });
  await service.close();
});
