// The server's wire around the REST interface (issue 32, item 12): a refused CORS preflight
// answers JSON as every error does, answers that depend on the Origin say `Vary: Origin` to every
// origin, and a client that hangs up mid-request is logged as such, not as an internal error
// with status 200.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { serve, type AccessLogEntry } from '../../src/node/index.js';
import { rawRequest } from './child.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuzzbox-contract-'));
  dirs.push(dir);
  return dir;
};

test('CORS: a refused preflight answers JSON, and every answer says Vary: Origin', async () => {
  const server = await serve({ port: 0, dataDir: tempDir(), cors: { origins: ['https://app.example'] } });
  try {
    const refused = await rawRequest(`${server.url}agent`, 'OPTIONS', { headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(refused.status).toBe(403);
    expect(refused.headerLines).toContain('Content-Type: application/json; charset=utf-8');
    expect(refused.body).toMatchObject({ status: 'error', error: 'Forbidden' });
    expect(refused.body.message).toMatch(/"https:\/\/evil\.example" is not among the origins/);
    for (const origin of ['https://evil.example', 'https://app.example']) {
      const answer = await rawRequest(`${server.url}version`, 'GET', { headers: { Origin: origin } });
      expect(answer.status, origin).toBe(200);
      expect(answer.headerLines, origin).toContain('Vary: Origin');
    }
  } finally {
    await server.close();
  }
});

test('a client that hangs up mid-body is logged as aborted (499), with no internal error', async () => {
  const log: AccessLogEntry[] = [];
  const errors = vi.spyOn(console, 'error');
  const server = await serve({ port: 0, dataDir: tempDir(), log: (entry) => log.push(entry) });
  try {
    const { apiKey: key } = (await rawRequest(`${server.url}account`, 'POST', { body: {} })).body;
    const closed = new Promise<void>((resolve) => {
      const request = httpRequest(`${server.url}import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
      });
      request.on('error', () => resolve());
      request.on('close', () => resolve());
      request.write(`${JSON.stringify({ format: 'fuzzbox-backup', version: 1, exportedAt: new Date().toISOString() })}\n`);
      setTimeout(() => request.destroy(), 200);
    });
    await closed;
    await vi.waitFor(() => expect(log.map((entry) => entry.path)).toContain('/import'), { timeout: 10_000 });
    const entry = log.find((line) => line.path === '/import')!;
    expect(entry).toMatchObject({ method: 'POST', status: 499, aborted: true });
    expect(errors.mock.calls.filter((call) => String(call[0]).includes('internal error'))).toEqual([]);
  } finally {
    errors.mockRestore();
    await server.close();
  }
});
