// GET /openapi.json: a valid OpenAPI 3.1 document (checked by an independent validator) naming
// every route of the route table, whose schemas the service's real answers fit. Every other test
// of test/api checks its answers against it too (test/support/service.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openApiPath, renderReference } from '../../src/api/openapi.js';
import { routes } from '../../src/api/routes.js';
import { answerProblems } from '../support/openapi.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
beforeEach(async () => {
  t = await createTestService({ basePath: '/api' });
});
afterEach(() => t.close());

const served = async () => {
  const { status, headers, body } = await t.call('GET', 'openapi.json');
  expect(status).toBe(200);
  expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
  return body as { openapi: string; servers: Array<{ url: string }>; paths: Record<string, Record<string, { security?: unknown[] }>> };
};

describe('GET /openapi.json', () => {
  test("is a valid OpenAPI 3.1 document, served without a key, for the service's base path", async () => {
    const document = await served();
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers).toEqual([{ url: '/api/' }]);
  });

  test('names every route of the route table, and nothing else', async () => {
    const document = await served();
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const routed = routes.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(documented.sort()).toEqual(routed.sort());
    // the routes that need no key are the ones the document exempts
    const open = routes.filter((route) => route.access === 'public').map((route) => `${route.method} ${openApiPath(route.path)}`);
    const exempt = documented.filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return document.paths[path]![method.toLowerCase()]!.security?.length === 0;
    });
    expect(exempt.sort()).toEqual(open.sort());
    // tools name a generated client's methods by operationId: one each
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => (operation as { operationId: string }).operationId),
    );
    expect(new Set(ids).size).toBe(routes.length);
  });

  test('the 404 of an unknown path points to it, and it is what the 404 says', async () => {
    const { status, body } = await t.call('GET', 'agents');
    expect(status).toBe(404);
    expect(body.message).toContain('GET /api/openapi.json lists every endpoint');
    expect(body.message).not.toMatch(/docs\//);
  });

  test('an answer that breaks the document is caught (the check can fail)', () => {
    expect(answerProblems('GET', 'version', 200, { name: 'fuzzbox', version: '0.1.0' })).toMatch(/controllerVersion/);
    expect(answerProblems('GET', 'agent/x/performance', 200, { latestVersion: 'v', performance: null, versions: [{ id: 'v' }] })).toMatch(/createdAt/);
    expect(answerProblems('GET', 'nowhere', 404, { status: 'error', error: 'Lost', message: 'm' })).toMatch(/error/);
    expect(answerProblems('GET', 'version', 200, { name: 'fuzzbox', version: '0.1.0', controllerVersion: '1.0.0' })).toBeUndefined();
  });

  test('docs/REST.md holds the reference rendered from the document', () => {
    const file = new URL('../../docs/REST.md', import.meta.url);
    const rest = readFileSync(file, 'utf8');
    const block = /(<!-- reference: [\s\S]*?-->\n\n)([\s\S]*?)\n<!-- reference end -->/.exec(rest)!;
    expect(block, 'docs/REST.md marks its reference with <!-- reference: … --> and <!-- reference end -->').not.toBeNull();
    // after a change of the interface: FUZZBOX_WRITE_REFERENCE=1 npx vitest run --project dexie test/api/openapi.test.ts
    if (process.env.FUZZBOX_WRITE_REFERENCE === '1') writeFileSync(file, rest.replace(block[0], `${block[1]}${renderReference()}\n<!-- reference end -->`));
    else expect(block[2]).toBe(renderReference());
  });
});

describe('real answers fit the document', () => {
  // call() checks each answer against the document (test/support/openapi.ts); this walks every
  // route once, with the options that change an answer's shape
  test('every route, with meta, batches, feedback, optimization, autopilot and rollback', async () => {
    const key = await t.signup('reference');
    const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const answer = await t.call(method, path, { key, body, headers });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body;
    };
    expect((await t.call('GET', 'version')).status).toBe(200);
    await served();
    const agent = await call('POST', 'agent', { ...tippingAgent(), performance: { stars: 'maximize' } });
    await call('GET', 'agent');
    await call('GET', `agent/${agent.id}`);
    const edited = await call('PUT', `agent/${agent.id}`, { ...tippingAgent('edited'), performance: { stars: 'maximize' } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await t.call('POST', `agent/${agent.id}?meta=true`, { key, body: { service: i * 3 } });
      expect(answer.status).toBe(200);
      ids.push(answer.headers.get('x-evaluation-id')!);
    }
    const batch = await t.call('POST', `agent/${agent.id}?meta=steps`, { key, body: Array.from({ length: 56 }, (_, i) => ({ service: (i * 7) % 11 })) });
    expect(batch.status).toBe(200);
    ids.push(...batch.headers.get('x-evaluation-id')!.split(','));
    for (const [i, id] of ids.entries()) await call('POST', `evaluation/${id}/feedback`, i % 2 ? { data: { stars: i % 5 } } : { stars: i % 5 });
    await call('GET', `evaluation/${ids[0]}`);
    await call('GET', `evaluation/${ids[0]}/feedback`);
    await call('GET', `agent/${agent.id}/evaluation?limit=5&feedback=true`);
    const versions = await call('GET', `agent/${agent.id}/version`);
    await call('GET', `version/${versions[0].id}`);
    await call('POST', `agent/${agent.id}/optimize`, { metric: 'stars', goal: 'maximize', dryRun: true });
    await call('GET', `agent/${agent.id}/autopilot`);
    await call('PUT', `agent/${agent.id}/autopilot`, { enabled: false });
    const performance = await call('GET', `agent/${agent.id}/performance`);
    expect(performance.versions.find(({ id }: { id: string }) => id === edited.latestVersion).metrics.stars.n).toBe(60);
    expect(performance.versions[0].metrics.stars).toEqual({ n: 0, mean: null, low: null, high: null }); // no values: null, not infinite
    await call('POST', `agent/${agent.id}/rollback`, { version: versions[0].id });
    expect(edited.latestVersion).not.toBe(versions[0].id);
    await call('GET', 'storage');
    const exported = await fetch(new URL('export', t.baseURL), { headers: { Authorization: `Bearer ${key}` } });
    expect(exported.headers.get('content-type')).toBe('application/x-ndjson');
    const backup = await exported.text();
    const imported = await t.call('POST', 'import', { key, body: backup, headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(imported.status).toBe(200);
    expect(imported.body.unchanged).toBeGreaterThan(60);
    // sync status is a 404 error body on a service without sync: the error schema
    expect((await t.call('GET', 'sync/status', { key })).status).toBe(404);
    await call('DELETE', `evaluation/${ids[1]}`);
    await call('DELETE', `agent/${agent.id}`);
  });
});

describe('the docs stand alone', () => {
  test("README, docs and the source a user reads never cite the team's contract (SPEC), and REST.md says what low/high are", () => {
    const root = new URL('../../', import.meta.url).pathname;
    const files = [
      'README.md',
      ...readdirSync(join(root, 'docs')).map((name) => `docs/${name}`),
      ...readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.ts'))
        .map((name) => `src/${name}`),
    ];
    const citing = files.filter((file) => /\bSPEC\b/.test(readFileSync(join(root, file), 'utf8')));
    expect(citing).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
    const rest = readFileSync(join(root, 'docs/REST.md'), 'utf8');
    expect(rest).not.toMatch(/infinite below 2 values/);
    expect(rest).toContain('`low` and `high` are `null` below 2 values');
  });
});
