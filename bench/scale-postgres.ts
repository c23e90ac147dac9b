// The scale measurement (bench/scale.ts) on the PostgreSQL store, in PGlite files: the store
// `fuzzbox serve` runs on without a server. The control is a plain table beside the store's, keyed
// as randomly as evaluation ids are.
import { createFuzzyService } from '../src/api/index.js';
import { pgliteDatabase } from '../src/node/databases.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { controlKey, controlValue, type ScaleBackend } from './scale.js';

/** Rows per statement of the fill. */
const FILL_ROWS = 20_000;

export async function pgliteBackend(dataDir: string): Promise<ScaleBackend> {
  const sql = await pgliteDatabase(dataDir);
  const service = createFuzzyService({ store: await PostgresStore.open(sql) });
  await sql.exec('CREATE TABLE scale_control (key text PRIMARY KEY, value json NOT NULL)');
  const insertControl = (rows: Array<{ key: string; value: unknown }>) =>
    sql.query(`INSERT INTO scale_control SELECT r->>'key', r->'value' FROM json_array_elements($1::json) AS r`, [JSON.stringify(rows)]);
  return {
    service,
    async bulk(requests, feedback) {
      // the rows addEvaluations and addFeedback write, many per statement
      await sql.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO evaluations (req_id, user_id, agent_id, version_id, input, crisp, created_at)
           SELECT log->>'reqID', log->>'userID', log->>'agentID', log->>'versionID', log->'input', log->'crisp', log->>'createdAt'
           FROM json_array_elements($1::json) WITH ORDINALITY AS batch(log, position) ORDER BY position`,
          [JSON.stringify(requests.flat())],
        );
        await tx.query(
          `INSERT INTO feedback (id, user_id, evaluation_log, data, created_at)
           SELECT f->>'id', f->>'userID', f->>'evaluationLog', f->'data', f->>'createdAt' FROM json_array_elements($1::json) AS f`,
          [JSON.stringify(feedback)],
        );
      });
    },
    // PostgreSQL counts on its indexes: nothing kept
    counted: async () => undefined,
    async fillControl(count) {
      for (let from = 0; from < count; from += FILL_ROWS) {
        await insertControl(
          Array.from({ length: Math.min(FILL_ROWS, count - from) }, (_, i) => ({ key: controlKey(from + i), value: controlValue(from + i) })),
        );
      }
      await sql.exec('ANALYZE');
    },
    putControl: async (i) => void (await insertControl([{ key: controlKey(i), value: controlValue(i) }])),
    getControl: async (i) => void (await sql.query('SELECT value FROM scale_control WHERE key = $1', [controlKey(i)])),
    async close() {
      await service.close();
      await sql.close();
    },
  };
}
