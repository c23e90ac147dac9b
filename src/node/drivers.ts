// The server's drivers are optional peer dependencies of the package, so that a browser app
// installs none of them: `@hono/node-server` answers HTTP, `@electric-sql/pglite` keeps PGlite
// files, `pg` talks to a PostgreSQL server. Each is imported here once, if installed; what a
// caller needs and lacks is refused with the one command that installs it (docs/SERVER.md).
import { MissingDriverError, type Driver } from './missing-driver.js';

/** `undefined` when the package is not installed; any other failure to load it is thrown. */
async function importIfInstalled<T>(name: Driver, load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${name}'`)) return undefined;
    throw error;
  }
}

const loaded = {
  '@hono/node-server': await importIfInstalled('@hono/node-server', () => import('@hono/node-server')),
  '@electric-sql/pglite': await importIfInstalled('@electric-sql/pglite', () => import('@electric-sql/pglite')),
  pg: await importIfInstalled('pg', () => import('pg')),
};
type Loaded = { [name in Driver]: NonNullable<(typeof loaded)[name]> };

/** The drivers `purpose` needs, or a MissingDriverError naming all that are missing. */
export function drivers<const Names extends readonly Driver[]>(purpose: string, ...names: Names): { [K in keyof Names]: Loaded[Names[K]] } {
  const missing = names.filter((name) => loaded[name] === undefined);
  if (missing.length > 0) throw new MissingDriverError(missing, purpose);
  return names.map((name) => loaded[name]) as { [K in keyof Names]: Loaded[Names[K]] };
}
