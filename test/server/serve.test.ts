// fuzzbox/node and `fuzzbox serve` over real HTTP: the wire (header spelling on raw lines, CORS,
// the body cap, the access log), PGlite's files across a restart, and against the real
// PostgreSQL server: SIGTERM in the middle of a request, and PUTs from two server processes.
import { request as httpRequest } from 'node:http';
import { describe, expect, test } from 'vitest';
import { postgresDatabase } from '../../src/node/databases.js';
import { serve, type AccessLogEntry } from '../../src/node/index.js';
import { tippingAgent } from '../support/service.js';
import { newDatabase } from '../support/databases.js';
import { rawRequest, startServe, temporaryDirectories } from './child.js';

const tempDir = temporaryDirectories('fuzzbox-serve-');

describe('serve() on PGlite files', () => {
  test('X-Evaluation-ID is spelled so on the raw header line; the data outlives a restart', async () => {
    const dataDir = tempDir();
    const log: AccessLogEntry[] = [];
    const first = await serve({ port: 0, dataDir, log: (entry) => log.push(entry) });
    const { apiKey: key } = (await rawRequest(`${first.url}account`, 'POST', { body: {} })).body;
    const agent = (await rawRequest(`${first.url}agent`, 'POST', { key, body: tippingAgent() })).body;
    const evaluated = await rawRequest(`${first.url}agent/${agent.id}`, 'POST', { key, body: { service: 5 } });
    expect(evaluated.status).toBe(200);
    expect(evaluated.body).toEqual({ tip: 15 });
    const line = evaluated.headerLines.find((header) => header.toLowerCase().startsWith('x-evaluation-id:'));
    expect(line).toMatch(/^X-Evaluation-ID: [0-9a-f-]{36}$/);
    expect(evaluated.headerLines).toContain('Content-Type: application/json; charset=utf-8');
    const reqID = line!.slice('X-Evaluation-ID: '.length);
    // the access log: one entry per request, the path without its query (it may hold a key)
    await rawRequest(`${first.url}agent?access_token=${key}`, 'GET');
    await first.close();
    expect(log.map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['POST', '/account', 200],
      ['POST', '/agent', 200],
      ['POST', `/agent/${agent.id}`, 200],
      ['GET', '/agent', 200],
    ]);
    expect(JSON.stringify(log)).not.toContain(key);
    expect(log[2]!.bytes).toBe(Buffer.byteLength(JSON.stringify({ tip: 15 })));

    const second = await serve({ port: 0, dataDir });
    try {
      const stored = await rawRequest(`${second.url}evaluation/${reqID}`, 'GET', { key });
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ reqID, agentID: agent.id, input: { service: 5 }, crisp: { tip: 15 } });
    } finally {
      await second.close();
    }
  });

  test('CORS is off unless configured; bodies over 1 MiB are refused with 413', async () => {
    const dataDir = tempDir();
    const closed = await serve({ port: 0, dataDir });
    const open = await serve({ port: 0, dataDir: tempDir(), cors: { origins: ['https://app.example'] }, basePath: '/api/' });
    try {
      const origin = { Origin: 'https://app.example' };
      const plain = await rawRequest(`${closed.url}version`, 'GET', { headers: origin });
      expect(plain.status).toBe(200);
      expect(plain.headerLines.some((line) => line.toLowerCase().startsWith('access-control-'))).toBe(false);
      expect((await rawRequest(`${closed.url}agent`, 'OPTIONS', { headers: { ...origin, 'Access-Control-Request-Method': 'POST' } })).status).toBe(405);

      expect(open.url).toMatch(/\/api\/$/);
      const preflight = await rawRequest(`${open.url}agent`, 'OPTIONS', {
        headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headerLines).toContain('Access-Control-Allow-Origin: https://app.example');
      expect(preflight.headerLines).toContain('Access-Control-Allow-Headers: Authorization, Content-Type');
      const { apiKey: key } = (await rawRequest(`${open.url}account`, 'POST', { body: {}, headers: origin })).body;
      const agent = await rawRequest(`${open.url}agent`, 'POST', { key, body: tippingAgent(), headers: origin });
      expect(agent.headerLines).toContain('Access-Control-Allow-Origin: https://app.example');
      expect(agent.headerLines).toContain('Access-Control-Expose-Headers: X-Evaluation-ID, Location');
      const stranger = await rawRequest(`${open.url}version`, 'GET', { headers: { Origin: 'https://evil.example' } });
      expect(stranger.headerLines.some((line) => line.startsWith('Access-Control-Allow-Origin'))).toBe(false);

      const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
      const refused = await rawRequest(`${closed.url}account`, 'POST', { body: big });
      expect(refused.status).toBe(413);
      expect(refused.body).toMatchObject({ status: 'error', error: 'PayloadTooLarge' });
    } finally {
      await closed.close();
      await open.close();
    }
  });
});

describe('fuzzbox serve on PostgreSQL', () => {
  test('SIGTERM mid-request: the request finishes with its logs stored, then the process exits 0', async () => {
    const database = await newDatabase();
    const child = await startServe(['--database', database]);
    const { apiKey: key } = (await rawRequest(`${child.url}account`, 'POST', { body: {} })).body;
    const agent = (await rawRequest(`${child.url}agent`, 'POST', { key, body: tippingAgent() })).body;
    // a batch whose body arrives in two parts: SIGTERM lands between them
    const batch = JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ service: i % 11 })));
    const answer = new Promise<{ status: number; ids: string }>((resolve, reject) => {
      const request = httpRequest(`${child.url}agent/${agent.id}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(batch) },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode!, ids: String(response.headers['x-evaluation-id'] ?? '') }));
      });
      request.on('error', reject);
      request.write(batch.slice(0, 2000));
      setTimeout(() => {
        child.process.kill('SIGTERM');
        setTimeout(() => request.end(batch.slice(2000)), 300);
      }, 200);
    });
    const { status, ids } = await answer;
    expect(status).toBe(200);
    expect(await child.exited).toBe(0);
    expect(child.lines.map((line) => line.event).filter((event) => event !== 'starting')).toEqual([
      'listening',
      'request',
      'request',
      'stopping',
      'request',
      'stopped',
    ]);
    // every log of the answer is stored, nothing else
    const db = postgresDatabase(database, { max: 1 });
    try {
      const { rows } = await db.query<{ id: string }>('SELECT req_id AS id FROM evaluations ORDER BY seq');
      expect(rows.map((row) => row.id)).toEqual(ids.split(','));
      expect(rows).toHaveLength(300);
    } finally {
      await db.close();
    }
  });

  test('PUTs to one agent from two server processes: versions numbered in commit order, none lost', async () => {
    const database = await newDatabase();
    const [one, two] = await Promise.all([startServe(['--database', database, '--quiet']), startServe(['--database', database, '--quiet'])]);
    try {
      const { apiKey: key } = (await rawRequest(`${one.url}account`, 'POST', { body: {} })).body;
      const agent = (await rawRequest(`${one.url}agent`, 'POST', { key, body: tippingAgent() })).body;
      const puts = await Promise.all(
        Array.from({ length: 40 }, (_, i) => rawRequest(`${(i % 2 ? one : two).url}agent/${agent.id}`, 'PUT', { key, body: tippingAgent(`put ${i}`) })),
      );
      expect(puts.map((put) => put.status)).toEqual(Array(40).fill(200));
      const versions = (await rawRequest(`${two.url}agent/${agent.id}/version`, 'GET', { key })).body as Array<{ id: string; createdAt: string }>;
      expect(versions).toHaveLength(41);
      const written = new Set(puts.map((put) => put.body.latestVersion));
      expect(new Set(versions.slice(1).map((version) => version.id))).toEqual(written);
      // commit order: each version's time after the one before; the agent is at the last
      for (let i = 1; i < versions.length; i++) expect(versions[i]!.createdAt > versions[i - 1]!.createdAt).toBe(true);
      const final = (await rawRequest(`${one.url}agent/${agent.id}`, 'GET', { key })).body;
      expect(final.latestVersion).toBe(versions.at(-1)!.id);
      const db = postgresDatabase(database, { max: 1 });
      try {
        const { rows } = await db.query<{ seq: number }>('SELECT seq FROM versions WHERE version_of = $1 ORDER BY seq', [agent.id]);
        expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i));
      } finally {
        await db.close();
      }
    } finally {
      expect(await one.stop()).toBe(0);
      expect(await two.stop()).toBe(0);
    }
  });
});
