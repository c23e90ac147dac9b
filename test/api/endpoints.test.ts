// The success path of every endpoint in SPEC section 2, through fetch() → msw → handle().
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  accountSchema,
  agentSchema,
  agentVersionSchema,
  evaluationLogSchema,
  evaluationMetaSchema,
  feedbackSchema,
  healthSchema,
  serviceInfoSchema,
} from '../../src/schema/index.js';
import { normaliseBasePath } from '../../src/api/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const URL_SAFE = /^[A-Za-z0-9_-]+$/;

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('endpoints');
});
afterEach(() => t.close());

async function createAgent(body: unknown = tippingAgent()) {
  const created = await t.call('POST', 'agent', { key, body });
  expect(created.status).toBe(200);
  return created;
}

describe('accounts and service info', () => {
  test('POST /account answers the key once; only its SHA-256 is stored', async () => {
    const { status, headers, body } = await t.call('POST', 'account', { body: { name: 'Ada' } });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe(JSON_TYPE);
    expect(accountSchema.parse(body)).toEqual(body);
    expect(body.name).toBe('Ada');
    const stored = await t.snapshot();
    expect(stored).not.toContain(body.apiKey);
    const { createHash } = await import('node:crypto');
    expect(stored).toContain(createHash('sha256').update(body.apiKey).digest('hex'));
  });

  test('POST /account without a body creates an unnamed account', async () => {
    const { status, body } = await t.call('POST', 'account');
    expect(status).toBe(200);
    expect(body.name).toBeNull();
    expect((await t.call('GET', 'agent', { key: body.apiKey })).status).toBe(200);
  });

  test('GET /version needs no key and names the package version', async () => {
    const { status, body } = await t.call('GET', 'version');
    expect(status).toBe(200);
    const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(serviceInfoSchema.parse(body)).toEqual({ ...body, name: 'fuzzbox', version: packageJson.version });
  });

  test('GET /health and GET /ready need no key and answer ok; /ready answers 503 once the service closes', async () => {
    for (const path of ['health', 'ready']) {
      const { status, body } = await t.call('GET', path);
      expect(status, path).toBe(200);
      expect(healthSchema.parse(body)).toEqual({ status: 'ok' });
    }
    const closed = t.service.close();
    const ready = await t.service.handle(new Request(`${t.baseURL}ready`));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'error', error: 'ServiceUnavailable', message: 'not ready: the service is closing' });
    await closed;
  });

  test('GET /ready answers 503 with the reason the platform gives', async () => {
    const unready = await createTestService({ unreadiness: async () => 'the database does not answer (connection refused)' });
    try {
      const { status, body } = await unready.call('GET', 'ready');
      expect(status).toBe(503);
      expect(body).toEqual({ status: 'error', error: 'ServiceUnavailable', message: 'not ready: the database does not answer (connection refused)' });
      expect((await unready.call('GET', 'health')).status).toBe(200);
    } finally {
      await unready.close();
    }
  });

  test('the key also works as ?access_token=', async () => {
    await createAgent();
    const { status, body } = await t.call('GET', `agent?access_token=${encodeURIComponent(key)}`);
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
  });
});

describe('agents', () => {
  test('POST /agent ignores id, dates and latestVersion in the body and answers Location', async () => {
    const { headers, body } = await createAgent({
      ...tippingAgent(),
      id: 'mine',
      createdAt: '2000-01-01T00:00:00.000Z',
      latestVersion: 'v0',
    });
    expect(headers.get('content-type')).toBe(JSON_TYPE);
    expect(agentSchema.parse(body)).toEqual(body);
    expect(body.id).not.toBe('mine');
    expect(body.id).toMatch(URL_SAFE);
    expect(body.latestVersion).toMatch(URL_SAFE);
    expect(body.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(body.updatedAt).toBe(body.createdAt);
    expect(headers.get('location')).toBe(`${t.origin}/agent/${body.id}`);
    const { name, inputs, outputs, rules } = tippingAgent();
    expect(body).toMatchObject({ name, inputs, outputs, rules });
  });

  test('GET /agent lists the caller’s agents oldest first, as {id, name}', async () => {
    const names = ['first', 'second', 'third', 'fourth'];
    const ids: string[] = [];
    for (const name of names) ids.push((await createAgent(tippingAgent(name))).body.id);
    const { status, body } = await t.call('GET', 'agent', { key });
    expect(status).toBe(200);
    expect(body).toEqual(names.map((name, i) => ({ id: ids[i], name })));
  });

  test('GET /agent/:id answers the agent as POST did', async () => {
    const created = await createAgent();
    const read = await t.call('GET', `agent/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  test('PUT /agent/:id reads only name, inputs, outputs and rules and makes a new version', async () => {
    const created = await createAgent();
    const changed = { ...tippingAgent('renamed'), id: 'other', createdAt: '2000-01-01T00:00:00.000Z' };
    changed.rules = [...changed.rules, 'IF service IS NOT poor THEN tip IS medium WITH 0.5'];
    const { status, body } = await t.call('PUT', `agent/${created.body.id}`, { key, body: changed });
    expect(status).toBe(200);
    expect(body.id).toBe(created.body.id);
    expect(body.createdAt).toBe(created.body.createdAt);
    expect(body.updatedAt > created.body.updatedAt).toBe(true);
    expect(body.latestVersion).not.toBe(created.body.latestVersion);
    expect(body.name).toBe('renamed');
    expect(body.rules).toHaveLength(4);
    expect((await t.call('GET', `agent/${created.body.id}`, { key })).body).toEqual(body);
  });

  test('performance is stored with every version and returned; a PUT without it removes it', async () => {
    const withPerformance = { ...tippingAgent(), performance: { 'tip share': 'maximize', complaints: 'minimize' } };
    const created = await t.call('POST', 'agent', { key, body: withPerformance });
    expect(created.status).toBe(200);
    expect(created.body.performance).toEqual(withPerformance.performance);
    expect((await t.call('GET', `agent/${created.body.id}`, { key })).body).toEqual(created.body);
    expect((await t.call('GET', `version/${created.body.latestVersion}`, { key })).body.performance).toEqual(withPerformance.performance);

    const without = await t.call('PUT', `agent/${created.body.id}`, { key, body: tippingAgent() });
    expect(without.body).not.toHaveProperty('performance');
    expect((await t.call('GET', `agent/${created.body.id}`, { key })).body).not.toHaveProperty('performance');
    expect((await t.call('GET', `version/${without.body.latestVersion}`, { key })).body).not.toHaveProperty('performance');
    // the first version keeps what it was created with
    expect((await t.call('GET', `version/${created.body.latestVersion}`, { key })).body.performance).toEqual(withPerformance.performance);
  });

  test('name is optional: absent means "" on POST and PUT, in GET and in the list', async () => {
    const { name: _name, ...nameless } = tippingAgent();
    const created = await t.call('POST', 'agent', { key, body: nameless });
    expect(created.status).toBe(200);
    expect(created.body.name).toBe('');
    expect((await t.call('GET', 'agent', { key })).body).toEqual([{ id: created.body.id, name: '' }]);
    await t.call('PUT', `agent/${created.body.id}`, { key, body: tippingAgent('named') });
    const renamed = await t.call('PUT', `agent/${created.body.id}`, { key, body: nameless });
    expect(renamed.body.name).toBe('');
    expect((await t.call('GET', `agent/${created.body.id}`, { key })).body.name).toBe('');
    expect((await t.call('GET', `version/${renamed.body.latestVersion}`, { key })).body.name).toBe('');
  });

  test('DELETE /agent/:id answers {"message":"OK"} and removes agent and versions', async () => {
    const created = await createAgent();
    await t.call('PUT', `agent/${created.body.id}`, { key, body: tippingAgent() });
    // a body on DELETE is never read, whatever it is
    const sent = { key, body: 'not json at all', headers: { 'Content-Type': 'text/plain' } };
    const { status, headers, body } = await t.call('DELETE', `agent/${created.body.id}`, sent);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe(JSON_TYPE);
    expect(body).toEqual({ message: 'OK' });
    expect((await t.call('GET', 'agent', { key })).body).toEqual([]);
    expect((await t.call('GET', `version/${created.body.latestVersion}`, { key })).status).toBe(404);
    expect(await t.storedCounts()).toEqual({ agents: 0, versions: 0 });
  });
});

describe('versions', () => {
  test('POST and every PUT (even unchanged) make an immutable snapshot with parsed_rules', async () => {
    const created = await createAgent();
    const put1 = await t.call('PUT', `agent/${created.body.id}`, { key, body: tippingAgent('v2') });
    const put2 = await t.call('PUT', `agent/${created.body.id}`, { key, body: tippingAgent('v2') });
    const list = await t.call('GET', `agent/${created.body.id}/version`, { key });
    expect(list.status).toBe(200);
    expect(list.body.map((v: { id: string }) => v.id)).toEqual([created.body.latestVersion, put1.body.latestVersion, put2.body.latestVersion]);
    expect(list.body[0]).toEqual({ id: created.body.latestVersion, createdAt: created.body.createdAt, origin: 'created' });
    expect(list.body[1].origin).toBe('updated');

    const first = await t.call('GET', `version/${created.body.latestVersion}`, { key });
    expect(first.status).toBe(200);
    expect(agentVersionSchema.parse(first.body)).toEqual(first.body);
    expect(first.body).toMatchObject({ ...tippingAgent(), versionOf: created.body.id, createdAt: created.body.createdAt });
    // the first rule, `IF service IS poor THEN tip IS low`, as the rule AST
    expect(first.body.parsed_rules).toHaveLength(3);
    expect(first.body.parsed_rules[0]).toEqual({
      type: 'if',
      condition: { type: 'is', variable: 'service', set: 'poor' },
      conclusions: [{ variable: 'tip', set: 'low' }],
      weight: 1,
    });
    const second = await t.call('GET', `version/${put1.body.latestVersion}`, { key });
    expect(second.body.name).toBe('v2');
  });
});

describe('inference', () => {
  // tipping agent: service 0..10; poor = falling shoulder [0,5] (its midpoint 2.5 lies below the
  // range's midpoint 5), good = triangle [0,5,10], excellent = rising shoulder [5,10].
  // At service = 2.5: poor 0.5, good 0.5, excellent 0 → low and medium clipped at 0.5. Both clipped
  // triangles are congruent trapezoids centred on 5 and 15, so the centroid is x = 10. Its y: each
  // trapezoid (bases 10 and 5, height 0.5) has ȳ = h/3·(B+2b)/(B+b) = 0.5/3·20/15 = 2/9.
  test('a single evaluation answers the crisp outputs and X-Evaluation-ID; the log is readable', async () => {
    const agent = (await createAgent()).body;
    const { status, headers, body } = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 2.5 } });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe(JSON_TYPE);
    expect(body).toEqual({ tip: 10 });
    const reqID = headers.get('X-Evaluation-ID')!;
    expect(reqID).toMatch(UUID_V4);
    // stored before the response: another connection to the database sees it at once
    expect(await t.snapshot()).toContain(reqID);

    const log = await t.call('GET', `evaluation/${reqID}`, { key });
    expect(log.status).toBe(200);
    expect(evaluationLogSchema.parse(log.body)).toEqual(log.body);
    expect(log.body).toMatchObject({
      reqID,
      agentID: agent.id,
      versionID: agent.latestVersion,
      input: { service: 2.5 },
      fuzzified: { service: { poor: 0.5, good: 0.5, excellent: 0 } },
      rules: ['IF service IS poor THEN tip IS low', 'IF service IS good THEN tip IS medium'],
      inferred: { tip: { low: 0.5, medium: 0.5 } },
      clipped: {
        tip: {
          low: [
            [0, 0],
            [2.5, 0.5],
            [7.5, 0.5],
            [10, 0],
          ],
          medium: [
            [10, 0],
            [12.5, 0.5],
            [17.5, 0.5],
            [20, 0],
          ],
        },
      },
      combined: {
        tip: [
          [0, 0],
          [2.5, 0.5],
          [7.5, 0.5],
          [10, 0],
          [12.5, 0.5],
          [17.5, 0.5],
          [20, 0],
        ],
      },
      crisp: { tip: 10 },
    });
    expect(log.body.centroid.tip[0]).toBe(10);
    expect(log.body.centroid.tip[1]).toBeCloseTo(2 / 9, 12);
  });

  test('?meta=true, 1 and yes add the log as "meta" without userID, agentID, versionID, input, crisp', async () => {
    const agent = (await createAgent()).body;
    for (const flag of ['true', '1', 'yes']) {
      const { body, headers } = await t.call('POST', `agent/${agent.id}?meta=${flag}`, { key, body: { service: 2.5 } });
      expect(body.tip).toBe(10);
      expect(evaluationMetaSchema.strict().parse(body.meta)).toEqual(body.meta);
      expect(body.meta.reqID).toBe(headers.get('X-Evaluation-ID'));
      const { userID, agentID, versionID, input, crisp, ...rest } = (await t.call('GET', `evaluation/${body.meta.reqID}`, { key })).body;
      expect([userID, agentID, versionID, input, crisp].every((field) => field !== undefined)).toBe(true);
      expect(body.meta).toEqual(rest);
    }
  });

  test('?meta=NAME puts the log under NAME; meta=false adds nothing', async () => {
    const agent = (await createAgent()).body;
    const named = await t.call('POST', `agent/${agent.id}?meta=audit`, { key, body: { service: 5 } });
    // service 5: only good (degree 1) fires → medium, the full triangle [10,15,20], centroid 15
    expect(named.body.tip).toBe(15);
    expect(named.body.audit.inferred).toEqual({ tip: { medium: 1 } });
    expect(named.body.meta).toBeUndefined();
    const none = await t.call('POST', `agent/${agent.id}?meta=false`, { key, body: { service: 5 } });
    expect(none.body).toEqual({ tip: 15 });
  });

  test('a batch answers one output object per item, in order, each with its own log', async () => {
    const agent = (await createAgent()).body;
    // service 0: poor 1 → low, the triangle [0,5,10], centroid 5; 10: excellent → high, 25
    const inputs = [{ service: 0 }, { service: 5 }, { service: 10 }, { service: 2.5 }];
    const { status, headers, body } = await t.call('POST', `agent/${agent.id}?meta=true`, { key, body: inputs });
    expect(status).toBe(200);
    expect(body.map((item: { tip: number }) => item.tip)).toEqual([5, 15, 25, 10]);
    const ids = headers.get('X-Evaluation-ID')!.split(',');
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    expect(body.map((item: { meta: { reqID: string } }) => item.meta.reqID)).toEqual(ids);
    for (const [i, id] of ids.entries()) {
      const log = await t.call('GET', `evaluation/${id}`, { key });
      expect(log.body.input).toEqual(inputs[i]);
      expect(log.body.crisp).toEqual({ tip: body[i].tip });
    }
  });

  test('a batch of exactly 4096 is accepted: 4096 outputs, 4096 ids in the header, 4096 logs', async () => {
    const agent = (await createAgent()).body;
    const inputs = Array.from({ length: 4096 }, (_, i) => ({ service: i % 2 === 0 ? 5 : 10 }));
    const { status, headers, body } = await t.call('POST', `agent/${agent.id}`, { key, body: inputs });
    expect(status).toBe(200);
    // service 5 → medium [10,15,20] → 15; service 10 → high [20,25,30] → 25
    expect(body).toEqual(inputs.map((input) => ({ tip: input.service === 5 ? 15 : 25 })));
    const ids = headers.get('X-Evaluation-ID')!.split(',');
    expect(new Set(ids).size).toBe(4096);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(await t.storedLogIDs()).toEqual(ids);
    if (t.backend === 'dexie') {
      // the batch's logs are 64 records of 64 (IndexedDB's cost is per record, and reading one log
      // costs its chunk), each indexed once, by the prefix its 64 ids share (IndexedDB's cost is per
      // index entry too)
      type Group = { keys: Array<[string, string]>; idPrefixes: Array<[string, string]> };
      const groups = (JSON.parse(await t.snapshot()) as Record<string, { records: Group[] }>).logGroups!.records;
      expect(groups.map((group) => group.keys.length)).toEqual(Array(64).fill(64));
      expect(groups.map((group) => group.idPrefixes.length)).toEqual(Array(64).fill(1));
      for (const group of groups) expect(group.keys.every(([, reqID]) => reqID.startsWith(group.idPrefixes[0]![1]))).toBe(true);
    }
  });

  test('an output no rule reached is left out; a missing input lets its rules not fire', async () => {
    const agent = (
      await createAgent({
        name: 'two outputs',
        inputs: { a: { low: [0, 4], high: [6, 10] }, b: { low: [0, 4], high: [6, 10] } },
        outputs: { x: { low: [0, 1, 2], high: [8, 9, 10] }, y: { low: [0, 1, 2], high: [8, 9, 10] } },
        rules: ['IF a IS high THEN x IS high', 'IF b IS high THEN y IS high'],
      })
    ).body;
    // a = 10: a's range is 0..10 (midpoint 5); low [0,4] falls (midpoint 2) → 0, high [6,10] rises
    // (midpoint 8) → 1; x high = triangle [8,9,10] → centroid 9.
    // b is missing, so the only rule reaching y does not fire and y is left out.
    const { status, headers, body } = await t.call('POST', `agent/${agent.id}`, { key, body: { a: 10 } });
    expect(status).toBe(200);
    expect(body).toEqual({ x: 9 });
    const log = await t.call('GET', `evaluation/${headers.get('X-Evaluation-ID')}`, { key });
    expect(log.body.crisp).toEqual({ x: 9 });
    expect(log.body.fuzzified).toEqual({ a: { low: 0, high: 1 } });
  });

  test('an evaluation uses the latest version and records its versionID', async () => {
    const agent = (await createAgent()).body;
    const swapped = tippingAgent();
    swapped.rules = ['IF service IS good THEN tip IS high'];
    const put = await t.call('PUT', `agent/${agent.id}`, { key, body: swapped });
    const { body, headers } = await t.call('POST', `agent/${agent.id}`, { key, body: { service: 5 } });
    // good = 1 now reaches high, the triangle [20,25,30]: centroid 25
    expect(body).toEqual({ tip: 25 });
    const log = await t.call('GET', `evaluation/${headers.get('X-Evaluation-ID')}`, { key });
    expect(log.body.versionID).toBe(put.body.latestVersion);
  });

  test('logs of every version and their feedback stay readable by their owner after the agent is deleted', async () => {
    const agent = (await createAgent()).body;
    const evaluation = await t.call('POST', `agent/${agent.id}?meta=1`, { key, body: { service: 2.5 } });
    const reqID = evaluation.headers.get('X-Evaluation-ID')!;
    await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { tip_given: 12 } });
    const swapped = tippingAgent();
    swapped.rules = ['IF service IS poor THEN tip IS high'];
    await t.call('PUT', `agent/${agent.id}`, { key, body: swapped });
    const second = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 2.5 } })).headers.get('X-Evaluation-ID')!;
    const before = (await t.call('GET', `evaluation/${reqID}`, { key })).body;
    const secondBefore = (await t.call('GET', `evaluation/${second}`, { key })).body;
    // the second version sends poor (0.5) to high: [20,25,30] cut at 0.5 is symmetric about 25
    expect(secondBefore.crisp).toEqual({ tip: 25 });
    expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
    const after = await t.call('GET', `evaluation/${reqID}`, { key });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before);
    expect((await t.call('GET', `evaluation/${second}`, { key })).body).toEqual(secondBefore);
    const feedback = await t.call('GET', `evaluation/${reqID}/feedback`, { key });
    expect(feedback.body.map((f: { data: unknown }) => f.data)).toEqual([{ tip_given: 12 }]);
  });
});

describe('feedback', () => {
  test('accepts {"data": {…}} and the bare map, and lists oldest first', async () => {
    const agent = (await createAgent()).body;
    const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 7 } })).headers.get('X-Evaluation-ID')!;
    const wrapped = await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { data: { profit: 12.5, clicks: 3 } } });
    expect(wrapped.status).toBe(200);
    expect(feedbackSchema.parse(wrapped.body)).toEqual(wrapped.body);
    expect(wrapped.body).toMatchObject({ evaluationLog: reqID, data: { profit: 12.5, clicks: 3 } });
    expect(wrapped.body.id).toMatch(UUID_V4);
    const bare = await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { profit: -1 } });
    expect(bare.body.data).toEqual({ profit: -1 });
    // a bare metric may itself be called "data" when its value is a number
    const named = await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { data: 4 } });
    expect(named.body.data).toEqual({ data: 4 });

    const list = await t.call('GET', `evaluation/${reqID}/feedback`, { key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([wrapped.body, bare.body, named.body]);
  });
});

describe('basePath', () => {
  test('the interface answers under basePath and nowhere else', async () => {
    const scoped = await createTestService({ basePath: '/api/fuzzy' });
    try {
      const apiKey = await scoped.signup();
      const created = await scoped.call('POST', 'agent', { key: apiKey, body: tippingAgent() });
      expect(created.status).toBe(200);
      expect(created.headers.get('location')).toBe(`${scoped.origin}/api/fuzzy/agent/${created.body.id}`);
      const outside = await fetch(`${scoped.origin}/agent`, { headers: { Authorization: `Bearer ${apiKey}` } });
      expect(outside.status).toBe(404);
    } finally {
      await scoped.close();
    }
  });

  test.each([
    ['', '/'],
    ['/', '/'],
    ['//', '/'],
    ['api', '/api/'],
    ['/api', '/api/'],
    ['api/', '/api/'],
    ['//api//v1//', '/api//v1/'],
  ])('basePath %j is %j for the service (test/browser/service.test.ts: the worker)', async (given, normalised) => {
    expect(normaliseBasePath(given)).toBe(normalised);
    const scoped = await createTestService({ basePath: given });
    try {
      const answered = await fetch(`${scoped.origin}${normalised}version`);
      expect(answered.status).toBe(200);
      const created = await fetch(`${scoped.origin}${normalised}account`, { method: 'POST' });
      expect(created.status).toBe(200);
      if (normalised !== '/') expect((await fetch(`${scoped.origin}/version`)).status).toBe(404);
    } finally {
      await scoped.close();
    }
  });
});
