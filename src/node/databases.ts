import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Queryable, SqlDatabase } from '../store/postgres/sql.js';
import { drivers } from './drivers.js';

/**
 * A PostgreSQL server through a `pg` pool. `schema`, when given, is where every connection
 * looks for (and the migrations create) the tables: one server can hold several services.
 */
export function postgresDatabase(connectionString: string, options: { schema?: string; max?: number } = {}): SqlDatabase {
  const [pg] = drivers('a PostgreSQL database', 'pg');
  const pool = new pg.default.Pool({
    connectionString,
    max: options.max ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle connection the server drops (a restart, a failover) must not crash the process: the
  // pool replaces it, and a query on a broken connection fails that request alone.
  pool.on('error', () => undefined);
  let closed: Promise<void> | undefined;
  return {
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await pool.query(text, params)).rows as R[] }),
    async exec(text) {
      await pool.query(text);
    },
    async transaction(work) {
      const client = await pool.connect();
      const sql: Queryable = {
        query: async <R>(text: string, params?: unknown[]) => ({ rows: (await client.query(text, params)).rows as R[] }),
        async exec(text) {
          await client.query(text);
        },
      };
      try {
        await client.query('BEGIN');
        const result = await work(sql);
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        // a connection whose rollback failed is in an unknown state: destroy it
        const broken = await client.query('ROLLBACK').then(
          () => undefined,
          (rollback: unknown) => rollback,
        );
        client.release(broken instanceof Error ? broken : undefined);
        throw error;
      }
    },
    // a second close is a no-op, as Dexie's is
    close: () => (closed ??= pool.end()),
  };
}

/**
 * PostgreSQL compiled to WebAssembly, in this process: files under `dataDir`, or memory when
 * absent. PGlite has one session and runs one transaction at a time.
 */
export async function pgliteDatabase(dataDir?: string): Promise<SqlDatabase> {
  const [{ PGlite }] = drivers('PGlite', '@electric-sql/pglite');
  const pglite = await PGlite.create(dataDir);
  let closed: Promise<void> | undefined;
  return onPGlite(pglite, { close: () => (closed ??= pglite.close()) });
}

/**
 * A turn of the event loop before each statement or transaction. PGlite runs in this thread and
 * its promises settle as microtasks, so work that issues statement after statement (a push's
 * batches, autopilot reading 10,000 logs a page at a time) would otherwise never let another
 * request be read until all of it was done; with the turn, requests that arrived meanwhile queue
 * their statements first, and wait for one statement or transaction, not the whole run.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A database on an open PGlite; with `schema`, every statement runs in a transaction that looks
 * there first (SET LOCAL), so one PGlite can hold several services, e.g. one per test.
 */
export function onPGlite(pglite: PGlite, options: { schema?: string; close?: () => Promise<void> } = {}): SqlDatabase {
  const { schema } = options;
  const wrap = (tx: Transaction): Queryable => ({
    query: async <R>(text: string, params?: unknown[]) => ({ rows: (await tx.query<R>(text, params)).rows }),
    async exec(text) {
      await tx.exec(text);
    },
  });
  const transaction = async <T>(work: (sql: Queryable) => Promise<T>) => {
    await turn();
    return pglite.transaction(async (tx) => {
      if (schema) await tx.exec(`SET LOCAL search_path TO ${schema}`);
      return work(wrap(tx));
    });
  };
  if (!schema) {
    return {
      async query(text, params) {
        await turn();
        return { rows: (await pglite.query(text, params)).rows as never[] };
      },
      async exec(text) {
        await turn();
        await pglite.exec(text);
      },
      transaction,
      close: options.close ?? (async () => undefined),
    };
  }
  return {
    query: (text, params) => transaction((sql) => sql.query(text, params)),
    exec: (text) => transaction((sql) => sql.exec(text)),
    transaction,
    close: options.close ?? (async () => undefined),
  };
}
