// Databases on the run's PostgreSQL server (test/support/postgres-server.ts starts it): each test
// file writes into databases of its own, so files running at once never share a transaction
// horizon, a lock or a name.
import { inject } from 'vitest';
import { postgresDatabase } from '../../src/node/databases.js';

let databases = 0;

/** A new, empty database on the run's server, named after this process; resolves to its URL. */
export async function newDatabase(prefix = 'test'): Promise<string> {
  const url = inject('postgresURL');
  const name = `${prefix}_${process.pid}_${++databases}`;
  const admin = postgresDatabase(url, { max: 1 });
  try {
    await admin.exec(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return url.replace(/\/[^/]*$/, `/${name}`);
}
