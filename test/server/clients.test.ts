// Clients in other languages, unchanged from how fuzzy.ai's were written, against `fuzzbox serve`
// on PostgreSQL: Python's requests (which looks headers up case-insensitively) and PHP cURL code
// that keys raw header lines by name as sent ($headers['X-Evaluation-ID']). Debian's
// /usr/bin/python3 with python3-requests and php-cli with php-curl (scripts/setup.mjs --server).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { newDatabase } from '../support/databases.js';
import { startServe, type Child } from './child.js';

const clients = fileURLToPath(new URL('./clients/', import.meta.url));
let server: Child;
beforeAll(async () => {
  server = await startServe(['--database', await newDatabase(), '--quiet']);
});
afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

/** What both clients print after the same steps. */
function expectTheWholeRound(seen: any): void {
  expect(seen.single).toEqual({ tip: 15 });
  expect(seen.single_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen.batch).toEqual([{ tip: 15 }, { tip: 25 }]);
  expect(seen.batch_ids).toHaveLength(2);
  expect(seen.feedback).toMatchObject({ evaluationLog: seen.single_id, data: { satisfaction: 4 } });
  expect(seen.log_input).toEqual({ service: 5 });
  expect(seen.log_crisp).toEqual({ tip: 15 });
  expect(seen.deleted).toBe(200);
  expect(seen.after_delete).toBe(410);
  expect(seen.after_delete_error).toBe('Gone');
}

test('a Python client written with requests: create, evaluate one and a batch, feedback, log, delete, 410', () => {
  const output = execFileSync('/usr/bin/python3', [`${clients}fuzzy_client.py`, server.url], { encoding: 'utf8' });
  expectTheWholeRound(JSON.parse(output));
});

test("PHP cURL reading $headers['X-Evaluation-ID'] from raw header lines: the same round", () => {
  const output = execFileSync('php', [`${clients}fuzzy_client.php`, server.url], { encoding: 'utf8' });
  expectTheWholeRound(JSON.parse(output));
});
