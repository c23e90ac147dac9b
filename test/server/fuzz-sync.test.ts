// The fuzz run of bench/fuzz-sync.ts at CI size, on `fuzzbox serve` over PGlite files and over
// the PostgreSQL server: mutated pushes and imports are answered 200 or 4xx, never 5xx, and what
// a 200 took is all in the export while nothing of a refused body is. (The run of 10⁵ requests
// and its timings: `node --import tsx bench/fuzz-sync.ts 100000 pglite|postgres`.)
import { describe, expect, test } from 'vitest';
import { fuzzSync, withServer } from '../../bench/fuzz-sync.js';
import { newDatabase } from '../support/databases.js';

describe.each(['pglite', 'postgres'])('sync and import fuzzed on %s', (store) => {
  test('no 5xx, nothing lost, nothing of a refused body stored', async () => {
    const database = store === 'postgres' ? await newDatabase('fuzz') : undefined;
    const result = await withServer(database, (url) => fuzzSync(url, 300, store === 'postgres' ? 2 : 3));
    expect(result.requests).toBe(300);
    expect(Object.keys(result.statuses).filter((status) => Number(status) >= 500 || Number(status) < 200)).toEqual([]);
    // both kinds of answer came: the run exercised acceptance and refusal
    expect(result.statuses[200]).toBeGreaterThan(30);
    expect(result.statuses[400]).toBeGreaterThan(30);
    expect(result.noAnswer).toBe(0);
    expect(result.lost).toBe(0);
    expect(result.leaked).toBe(0);
  }, 600_000);
});
