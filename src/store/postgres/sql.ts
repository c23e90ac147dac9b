/** What a query answers: its rows, one object per row, keyed by column name. */
export interface QueryResult<R> {
  rows: R[];
}

/** A connection, or a transaction on one, that runs parameterised SQL (`$1`, `$2`, …). */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** Runs several `;`-separated statements without parameters (a migration). */
  exec(text: string): Promise<void>;
}

/**
 * A PostgreSQL database, whichever client reaches it: `pg` against a server, or PGlite in this
 * process (src/node/databases.ts). Only what the store needs, so any client can be wrapped.
 */
export interface SqlDatabase extends Queryable {
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws (and the error rethrown).
   */
  transaction<T>(work: (sql: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
