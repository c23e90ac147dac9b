import { migrations } from './migrations.js';
import type { SqlDatabase } from './sql.js';

/** Any constant: the advisory lock that makes processes starting together migrate one at a time. */
const MIGRATION_LOCK = 7_141_993;

/**
 * Brings the database's schema to the newest migration, each in its own transaction together with
 * the row that records it, so a failed migration leaves the database at the one before. Safe to
 * run from many processes at once: they wait for each other's lock, and each applies only what
 * is still missing. `target` is for tests that write an older schema. Refuses a database that a newer fuzzbox has migrated further.
 */
export async function migrate(db: SqlDatabase, target = migrations.length): Promise<number> {
  // under the lock too: two CREATE TABLE IF NOT EXISTS at once can both create the table's type, and one fails
  await db.transaction(async (sql) => {
    await sql.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await sql.query(`CREATE TABLE IF NOT EXISTS fuzzbox_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)`);
  });
  let applied = 0;
  for (;;) {
    const done = await db.transaction(async (sql) => {
      await sql.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows } = await sql.query<{ version: number | null }>('SELECT max(version) AS version FROM fuzzbox_migrations');
      const current = rows[0]?.version ?? 0;
      if (current > migrations.length) {
        throw new Error(`the database is at schema version ${current}, newer than this fuzzbox knows (${migrations.length}); run a newer fuzzbox`);
      }
      if (current >= target) return true;
      await sql.exec(migrations[current]!);
      await sql.query('INSERT INTO fuzzbox_migrations (version, applied_at) VALUES ($1, $2)', [current + 1, new Date().toISOString()]);
      applied++;
      return false;
    });
    if (done) return applied;
  }
}
