// A fuzz run over sync, import and model files (issue 32): many accounts' clients send
// POST /sync/push and POST /import bodies that mix valid records with mutated ones (wrong types,
// extreme numbers, dates out of range, deep nesting, bad ids, cut JSON, bytes that are not UTF-8,
// unknown kinds), and POST /agent bodies that are model files (FCL, FLL, FIS: the service's own,
// mutated, cut, or a reader's worst case from formats-worst-cases.ts), to `fuzzbox serve` on
// PGlite files or on a PostgreSQL server. Every answer must be 200 or a 4xx; no request may take
// over a second; and nothing may be lost: every record of a body answered 200 (every agent a
// model file created) is in the account's export afterwards, and no record of a refused body is.
//   node --import tsx bench/fuzz-sync.ts [requests] [pglite|postgres] [seed]
// Prints progress every 1,000 requests and the result: answers by status, latency percentiles per
// kind of request, the machine's load average over the run.
// test/server/fuzz-sync.test.ts runs a small one on both stores.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../src/learn/random.js';
import { serve, type ServeOptions } from '../src/node/index.js';
import { worstCases } from './formats-worst-cases.js';

export interface FuzzResult {
  requests: number;
  /** answers by status */
  statuses: Record<number, number>;
  /** requests whose connection closed without an answer */
  noAnswer: number;
  /** requests that took over a second, and the longest */
  overOneSecond: number;
  longestMs: number;
  /** records of bodies answered 200 missing from the export, and records of refused bodies found in it */
  lost: number;
  leaked: number;
  /** milliseconds per kind of request: median, 99th percentile, longest */
  latency: Record<Kind, { requests: number; p50: number; p99: number; max: number }>;
  /** the machine's 1-minute load average: at the start, the highest seen, at the end */
  load: { start: number; max: number; end: number };
}

type Kind = 'sync/push' | 'import' | 'model file';
const MODEL_TYPES = { fcl: 'text/x-fcl', fll: 'text/x-fll', fis: 'text/x-fis' } as const;

const tipping = {
  name: 'fuzzed',
  inputs: { service: { poor: [0, 5], good: [0, 5, 10], excellent: [5, 10] } },
  outputs: { tip: { low: [0, 5, 10], medium: [10, 15, 20], high: [20, 25, 30] } },
  rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium', 'IF service IS excellent THEN tip IS high'],
  performance: { score: 'maximize' },
};

const WEIRD: unknown[] = [
  null,
  true,
  0,
  -0,
  1e308,
  -1e308,
  5e-324,
  2 ** 53 + 1,
  '',
  'x'.repeat(300),
  '..',
  '../agent',
  '__proto__',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '2026-02-31T00:00:00.000Z',
  '2026-01-01',
  [],
  [1, 2],
  {},
  { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } },
  { '': 1 },
  { tip: 1e308 },
  { service: 'high' },
  'e\u0301\u0000\ud800',
];

/** One fuzz run against `url` with `requests` requests from `clients` clients at once. */
export async function fuzzSync(url: string, requests: number, seed = 1, clients = 4): Promise<FuzzResult> {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const call = (path: string, init: RequestInit = {}) => fetch(new URL(path, url), init);
  const accounts: Array<{ key: string; agentID: string; versionID: string; logs: string[] }> = [];
  for (let i = 0; i < clients; i++) {
    const key = ((await (await call('account', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json()) as { apiKey: string })
      .apiKey;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const agent = (await (await call('agent', { method: 'POST', headers: auth, body: JSON.stringify(tipping) })).json()) as {
      id: string;
      latestVersion: string;
    };
    const evaluated = await call(`agent/${agent.id}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify([{ service: 1 }, { service: 5 }, { service: 9 }]),
    });
    await evaluated.text();
    accounts.push({ key, agentID: agent.id, versionID: agent.latestVersion, logs: evaluated.headers.get('X-Evaluation-ID')!.split(',') });
  }
  // the service's own model files of the agent (without `performance`: agents a model file
  // creates have autopilot off), the texts the fuzzed ones start from
  const modelFiles = await Promise.all(
    (Object.keys(MODEL_TYPES) as Array<keyof typeof MODEL_TYPES>).map(async (format) => {
      const { performance: _, ...plain } = tipping;
      const auth = { Authorization: `Bearer ${accounts[0]!.key}` };
      const created = (await (
        await call('agent', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(plain) })
      ).json()) as {
        id: string;
      };
      const text = await (await call(`agent/${created.id}`, { headers: { ...auth, Accept: MODEL_TYPES[format] } })).text();
      await (await call(`agent/${created.id}`, { method: 'DELETE', headers: auth })).text();
      return { format, text };
    }),
  );

  const load = { start: loadavg()[0]!, max: loadavg()[0]!, end: 0 };
  const result: FuzzResult = {
    requests: 0,
    statuses: {},
    noAnswer: 0,
    overOneSecond: 0,
    longestMs: 0,
    lost: 0,
    leaked: 0,
    latency: {} as FuzzResult['latency'],
    load,
  };
  const latencies: Record<Kind, number[]> = { 'sync/push': [], import: [], 'model file': [] };
  const accepted = accounts.map(() => new Set<string>());
  const refused = accounts.map(() => new Set<string>());
  /** agents model files created, per account */
  const created = accounts.map(() => new Set<string>());

  /** A valid record of the account, with fresh ids; `logs` are the logs it may give feedback on. */
  const validRecord = (account: (typeof accounts)[number], logs: string[]): Record<string, unknown> => {
    const now = new Date().toISOString();
    const kind = pick(['evaluation', 'evaluation', 'feedback', 'feedback', 'deletion']);
    if (kind === 'evaluation') {
      const reqID = randomUUID();
      logs.push(reqID);
      const log: Record<string, unknown> = {
        kind,
        reqID,
        agentID: account.agentID,
        versionID: account.versionID,
        input: { service: random() * 10 },
        crisp: { tip: random() * 30 },
        createdAt: now,
      };
      if (random() < 0.3) Object.assign(log, { returned: { tip: random() * 30 }, density: 0.5 + random() * 5 });
      return log;
    }
    if (kind === 'feedback') return { kind, id: randomUUID(), evaluationLog: pick(logs), data: { score: random() * 100 - 50 }, createdAt: now };
    return { kind, id: `D${randomUUID().replace(/-/g, '').slice(0, 25)}`, deletedAt: now };
  };

  /** A record changed one way: a field set to something odd, or dropped. */
  const mutate = (record: Record<string, unknown>): Record<string, unknown> => {
    const copy = structuredClone(record);
    const field = pick(Object.keys(copy));
    if (random() < 0.2) delete copy[field];
    else copy[field] = pick(WEIRD);
    return copy;
  };

  const idOf = (record: Record<string, unknown>) => (typeof record.reqID === 'string' ? record.reqID : typeof record.id === 'string' ? record.id : undefined);

  /** One request's body: a header, then lines, maybe one broken. */
  const body = (account: (typeof accounts)[number]) => {
    const logs = [...account.logs];
    const records: Array<Record<string, unknown>> = [];
    const lines: Array<string | Buffer> = [JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() })];
    const count = 1 + Math.floor(random() * 12);
    const broken = random() < 0.6 ? Math.floor(random() * count) : -1;
    for (let i = 0; i < count; i++) {
      const record = validRecord(account, logs);
      if (i !== broken) {
        records.push(record);
        lines.push(JSON.stringify(record));
        continue;
      }
      const how = random();
      const changed = mutate(record);
      records.push(changed);
      if (how < 0.6) lines.push(JSON.stringify(changed));
      else if (how < 0.7) lines.push(JSON.stringify(changed).slice(0, 20));
      else if (how < 0.8) lines.push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
      else if (how < 0.9) lines.push(`{"kind":"${pick(['account', 'version', '', 'Feedback'])}","id":"${randomUUID()}"}`);
      else lines.push(`${'{"deep":'.repeat(2000)}1${'}'.repeat(2000)}`);
    }
    const bytes = Buffer.concat(lines.flatMap((line) => [typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n')]));
    return { bytes, records };
  };

  /** A model file: the service's own, changed at a few places, cut off, or a reader's worst case up to 256 KiB. */
  const modelFile = () => {
    const how = random();
    if (how < 0.1) {
      const worst = pick(worstCases.filter((c) => c.format !== 'rule'));
      return { type: MODEL_TYPES[worst.format as keyof typeof MODEL_TYPES], text: worst.make(1024 + Math.floor(random() * 255 * 1024)) };
    }
    const { format, text } = pick(modelFiles);
    // now and then a file sent as another format
    const type = random() < 0.05 ? MODEL_TYPES[pick(modelFiles).format] : MODEL_TYPES[format];
    if (how < 0.3) return { type, text };
    if (how < 0.45) return { type, text: text.slice(0, Math.floor(random() * text.length)) };
    const characters = [...text];
    for (let edits = 1 + Math.floor(random() * 4); edits > 0; edits--) {
      const at = Math.floor(random() * characters.length);
      const edit = random();
      if (edit < 0.4)
        characters[at] = pick(['', ' ', '\n', '\r', ';', ':', '(', ')', '[', ']', "'", ',', '0', '-1', '1e308', 'NaN', '\u0000', '\ud800', '#', '/*']);
      else if (edit < 0.7) characters.splice(at, 0, String(pick(WEIRD)));
      else characters.splice(at, 0, characters.slice(at, at + Math.floor(random() * 200)).join('')); // a piece twice
    }
    return { type, text: characters.join('') };
  };

  let next = 0;
  const client = async (index: number) => {
    const account = accounts[index]!;
    while (next < requests) {
      next++;
      const draw = random();
      const path: Kind = draw < 0.4 ? 'sync/push' : draw < 0.8 ? 'import' : 'model file';
      const { bytes, records } = path === 'model file' ? { bytes: undefined, records: [] } : body(account);
      const file = path === 'model file' ? modelFile() : undefined;
      const started = performance.now();
      let response: Response;
      let answer: string;
      try {
        response = await call(file ? 'agent' : path, {
          method: 'POST',
          headers: { Authorization: `Bearer ${account.key}`, 'Content-Type': file ? file.type : 'application/x-ndjson' },
          body: file ? file.text : bytes,
        });
        answer = await response.text();
      } catch (error) {
        // no answer (the connection reset): what became of the body is unknown, so it counts for neither side
        result.requests++;
        result.noAnswer++;
        console.error(`${path}: no answer (${(error as Error).cause ?? error})`);
        continue;
      }
      const ms = performance.now() - started;
      latencies[path].push(ms);
      result.requests++;
      result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
      if (ms > 1000) result.overOneSecond++;
      result.longestMs = Math.max(result.longestMs, ms);
      if (response.status >= 500) console.error(`${path} answered ${response.status}: ${answer.slice(0, 300)}`);
      if (result.requests % 1000 === 0) {
        load.max = Math.max(load.max, loadavg()[0]!);
        console.error(
          JSON.stringify({
            progress: result.requests,
            statuses: result.statuses,
            noAnswer: result.noAnswer,
            overOneSecond: result.overOneSecond,
            longestMs: Math.round(result.longestMs),
            load: loadavg()[0],
          }),
        );
      }
      if (file) {
        if (response.status === 200) created[index]!.add((JSON.parse(answer) as { id: string }).id);
        continue;
      }
      const into = response.status === 200 ? accepted[index]! : refused[index]!;
      for (const record of records) {
        const id = idOf(record);
        // a log or feedback a 200 took is stored; feedback past the bound a push leaves out is not (none here: a few per log)
        if (typeof id === 'string') into.add(id);
      }
      if (response.status === 200) for (const record of records) if (record.kind === 'evaluation') account.logs.push(record.reqID as string);
    }
  };
  await Promise.all(accounts.map((_, index) => client(index)));
  load.end = loadavg()[0]!;
  load.max = Math.max(load.max, load.end);
  for (const [kind, measured] of Object.entries(latencies)) {
    const sorted = measured.sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
    result.latency[kind as Kind] = { requests: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
  }

  for (const [index, account] of accounts.entries()) {
    const exported = await (await call('export', { headers: { Authorization: `Bearer ${account.key}` } })).text();
    const records = exported
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const stored = new Set(
      records.flatMap((record) =>
        record.kind === 'evaluation'
          ? [record.reqID as string]
          : record.kind === 'feedback' || record.kind === 'deletion' || record.kind === 'agent'
            ? [record.id as string]
            : [],
      ),
    );
    for (const id of [...accepted[index]!, ...created[index]!]) if (!stored.has(id)) result.lost++;
    for (const id of refused[index]!) if (stored.has(id) && !accepted[index]!.has(id)) result.leaked++;
    // an agent no request created: a refused model file stored after all
    result.leaked += records.filter((record) => record.kind === 'agent' && record.id !== account.agentID && !created[index]!.has(record.id as string)).length;
  }
  return result;
}

/** `fuzzbox serve` on PGlite files, or on the PostgreSQL database `database`, for the length of `run`. */
export async function withServer<T>(database: string | undefined, run: (url: string) => Promise<T>): Promise<T> {
  const dataDir = database ? undefined : mkdtempSync(join(tmpdir(), 'fuzzbox-fuzz-'));
  const options: ServeOptions = { port: 0, ...(database ? { database } : { dataDir }) };
  const server = await serve(options);
  try {
    return await run(server.url);
  } finally {
    await server.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('fuzz-sync.ts')) {
  const requests = Number(process.argv[2] ?? 100_000);
  const store = process.argv[3] ?? 'pglite';
  const seed = Number(process.argv[4] ?? 1);
  let stop = () => {};
  let database: string | undefined;
  if (store === 'postgres') {
    const { startPostgres } = await import('../test/support/postgres-server.js');
    const server = await startPostgres('fuzzbox_fuzz');
    database = server.url;
    stop = server.stop;
  }
  try {
    const started = performance.now();
    const result = await withServer(database, (url) => fuzzSync(url, requests, seed));
    console.log(JSON.stringify({ store, seed, seconds: Math.round((performance.now() - started) / 1000), ...result, longestMs: Math.round(result.longestMs) }));
  } finally {
    stop();
  }
}
