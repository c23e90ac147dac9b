// Every row of SPEC section 6's error table, and that a refused request changes nothing.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { errorBodySchema } from '../../src/schema/index.js';
import { createTestService, tippingAgent, type CallResult, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let agent: { id: string; latestVersion: string };
let reqID: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup();
  agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 4 } })).headers.get('X-Evaluation-ID')!;
});
afterEach(() => t.close());

/** Asserts an error response of SPEC 6's shape, and returns its body. */
function expectError(result: CallResult, status: number, message?: RegExp) {
  expect(result.status).toBe(status);
  expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = errorBodySchema.parse(result.body);
  if (message) expect(body.message).toMatch(message);
  return body;
}

/** Runs `request`, asserts it answers `status` and that the database is byte-for-byte unchanged. */
async function expectRefused(status: number, request: () => Promise<CallResult>, message?: RegExp) {
  const before = await t.snapshot();
  const body = expectError(await request(), status, message);
  expect(await t.snapshot()).toBe(before);
  return body;
}

describe('400', () => {
  test('a body that is not JSON', async () => {
    await expectRefused(400, () => t.call('POST', 'agent', { key, body: '{"name": "x",' }), /not valid JSON/);
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: '' }), /body is empty/);
  });

  test('a wrong Content-Type on a body', async () => {
    const sent = JSON.stringify(tippingAgent());
    await expectRefused(400, () => t.call('POST', 'agent', { key, body: sent, headers: { 'Content-Type': 'text/plain' } }), /Content-Type: application\/json/);
    await expectRefused(400, () => t.call('POST', 'agent', { key, body: sent, headers: { 'Content-Type': 'application/json; charset=latin1' } }), /UTF-8/);
  });

  test('a schema violation lists every invalid field by path', async () => {
    const bad = { ...tippingAgent(), name: 7, inputs: { service: { poor: [0, 1, 2, 3, 4] } }, rules: 'IF x', performance: { profit: 'max' } };
    const body = await expectRefused(400, () => t.call('POST', 'agent', { key, body: bad }));
    expect(body.error).toBe('ValidationError');
    expect(body.issues?.map((issue) => issue.path).sort()).toEqual(['inputs.service.poor', 'name', 'performance.profit', 'rules']);
    expect(body.issues?.find((issue) => issue.path === 'performance.profit')?.message).toMatch(/"maximize" or "minimize"/);
    const badNames = { ...tippingAgent(), inputs: { '': { low: [0, 1] } }, performance: { '': 'maximize', ['m'.repeat(201)]: 'minimize' } };
    const names = await expectRefused(400, () => t.call('POST', 'agent', { key, body: badNames }));
    expect(names.issues?.map((issue) => issue.message).sort()).toEqual([
      'a metric name must be at most 200 characters',
      'a metric name must not be empty',
      'a variable name must not be empty',
    ]);
    const notAnObject = await expectRefused(400, () => t.call('POST', 'agent', { key, body: { ...tippingAgent(), performance: ['profit'] } }));
    expect(notAnObject.issues?.[0]?.message).toMatch(/metric name → "maximize" or "minimize"/);
    expect(body.issues?.find((issue) => issue.path === 'inputs.service.poor')?.message).toMatch(/2 \(slope\), 3 \(triangle\) or 4/);
  });

  test('what only the engine can check: order of points, names in rules', async () => {
    const bad = tippingAgent();
    bad.inputs.service.good = [8, 5, 2];
    bad.rules = [...bad.rules, 'IF service IS warm THEN tip IS low'];
    const body = await expectRefused(400, () => t.call('PUT', `agent/${agent.id}`, { key, body: bad }));
    expect(body.issues).toEqual([
      expect.objectContaining({ path: 'inputs.service.good', message: expect.stringMatching(/non-decreasing/) }),
      expect.objectContaining({ path: 'rules[3]', message: expect.stringMatching(/unknown set "warm"/) }),
    ]);
  });

  test('a rule parse error quotes the rule and the position of the fault', async () => {
    const bad = tippingAgent();
    bad.rules = ['IF service IS THEN tip IS low'];
    const body = await expectRefused(400, () => t.call('POST', 'agent', { key, body: bad }));
    // "IF service IS " is 14 characters, so the missing set name is expected at column 15
    expect(body.message).toContain('IF service IS THEN tip IS low');
    expect(body.message).toContain('column 15');
    expect(body.issues?.[0]?.path).toBe('rules[0]');
  });

  test('bad inputs: an unknown name, a non-number, an empty object, a wrong type', async () => {
    const unknown = await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: { service: 1, food: 2 } }), /unknown input "food"/);
    expect(unknown.issues).toEqual([{ path: 'food', message: 'unknown input "food" (known: service)' }]);
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: { service: '5' } }), /finite number/);
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: {} }), /at least one input/);
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: 5 }), /inputs must be a JSON object/);
    const inBatch = await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: [{ service: 1 }, { servce: 1 }] }));
    expect(inBatch.issues?.[0]?.path).toBe('[1].servce');
  });

  test('"__proto__" as a name is refused, not silently dropped', async () => {
    const proto = await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: '{"__proto__": 5, "service": 3}' }), /cannot be a name/);
    expect(proto.issues?.[0]?.path).toBe('__proto__');
    const inputs = '{"__proto__": {"a": [0, 1]}}';
    const agentBody = await expectRefused(
      400,
      () => t.call('POST', 'agent', { key, body: `{"name": "p", "inputs": ${inputs}, "outputs": {}, "rules": []}` }),
      /cannot be a name/,
    );
    expect(agentBody.issues?.[0]?.path).toBe('inputs.__proto__');
    // as a value it is just text
    const rule = tippingAgent();
    rule.name = '__proto__';
    expect((await t.call('PUT', `agent/${agent.id}`, { key, body: rule })).status).toBe(200);
    await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: '{"__proto__": 1}' }), /cannot be a name/);
  });

  // JSON lets any character of a key be written as an escape; JSON.parse makes them all the same key
  test.each(['\\u005f_proto__', '\\u005F\\u005Fproto\\u005f\\u005f', '__pr\\u006fto__', '\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f'])(
    '"%s" is "__proto__" too: refused in agents, inputs, batches, feedback and optimize',
    async (spelled) => {
      const quoted = `"${spelled}"`;
      expect(JSON.parse(`{${quoted}: 1}`)).toHaveProperty('__proto__'); // an own key, however spelled
      const onAgent = await expectRefused(
        400,
        () => t.call('POST', 'agent', { key, body: `{"inputs": {${quoted}: {"a": [0, 1]}}, "outputs": {}, "rules": []}` }),
        /cannot be a name/,
      );
      expect(onAgent.issues).toEqual([{ path: 'inputs.__proto__', message: expect.stringMatching(/cannot be a name/) }]);
      await expectRefused(
        400,
        () => t.call('PUT', `agent/${agent.id}`, { key, body: `{"inputs": {"service": {${quoted}: [0, 1]}}, "outputs": {}, "rules": []}` }),
        /^inputs\.service\.__proto__: .*cannot be a name/,
      );
      await expectRefused(
        400,
        () => t.call('POST', 'agent', { key, body: `{"inputs": {}, "outputs": {}, "rules": [], "performance": {${quoted}: "maximize"}}` }),
        /cannot be a name/,
      );
      await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: `{${quoted}: 5, "service": 3}` }), /^__proto__: .*cannot be a name/);
      await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: `[{"service": 3}, {${quoted}: 5}]` }), /^\[1\]\.__proto__: /);
      await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: `{${quoted}: 1}` }), /cannot be a name/);
      await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: `{"data": {"m": 1, ${quoted}: 1}}` }), /^data\.__proto__: /);
      await expectRefused(
        400,
        () => t.call('POST', `agent/${agent.id}/optimize`, { key, body: `{"metric": "m", "goal": "maximize", ${quoted}: 1}` }),
        /cannot be a name/,
      );
    },
  );

  test('an escaped key that is not "__proto__" is an ordinary name', async () => {
    const { status, body } = await t.call('POST', `agent/${agent.id}`, { key, body: '{"s\\u0065rvice": 3}' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['tip']);
  });

  test('deeply nested bodies are a 400 on every endpoint that reads a body, "__proto__" in them too', async () => {
    const depth = 100_000; // about 200 KB of brackets, well inside 1 MiB
    const nested = (inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth);
    // the path to the key: depth array indices [0], then the key itself, cut in the middle to
    // keep the error body small
    const keyPath = expect.stringMatching(/^\[0\][[\]0]{40,}…[[\]0]{40,}\.__proto__$/);
    const endpoints: Array<[string, string]> = [
      ['POST', 'agent'],
      ['PUT', `agent/${agent.id}`],
      ['POST', `agent/${agent.id}`],
      ['POST', `evaluation/${reqID}/feedback`],
      ['POST', `agent/${agent.id}/optimize`],
    ];
    for (const [method, path] of endpoints) {
      await expectRefused(400, () => t.call(method, path, { key, body: nested('"__proto__"') }));
      const named = await expectRefused(400, () => t.call(method, path, { key, body: nested('{"__proto__": 1}') }), /cannot be a name/);
      expect(named.issues).toEqual([{ path: keyPath, message: expect.stringMatching(/cannot be a name/) }]);
      // deep values where the schemas expect numbers, sets and maps
      await expectRefused(400, () =>
        t.call(method, path, { key, body: `{"name": "deep", "inputs": {"service": {"poor": ${nested('0')}}}, "outputs": {}, "rules": []}` }),
      );
      await expectRefused(400, () => t.call(method, path, { key, body: `[{"service": ${nested('1')}}]` }));
      await expectRefused(400, () => t.call(method, path, { key, body: `{"data": {"m": ${nested('1')}}, "metric": ${nested('"m"')}}` }));
    }
    const deepObject = '{"a":'.repeat(depth) + '{"__proto__": 1}' + '}'.repeat(depth);
    const named = await expectRefused(400, () => t.call('POST', 'agent', { key, body: deepObject }), /cannot be a name/);
    expect(named.issues?.[0]?.path).toMatch(/^(a\.){40}[a.]*…[a.]{80,}\.__proto__$/);
  });

  test('"__proto__" is reported where it first occurs in the body', async () => {
    const body = '{"inputs": {"x": [{"__proto__": 1}]}, "name": "n", "__proto__": 2}';
    const refused = await expectRefused(400, () => t.call('POST', 'agent', { key, body }), /^inputs\.x\[0\]\.__proto__: /);
    expect(refused.issues?.map((issue) => issue.path)).toEqual(['inputs.x[0].__proto__']);
  });

  test('a batch of more than 4096, or of none', async () => {
    const tooMany = Array.from({ length: 4097 }, (_, i) => ({ service: i % 10 }));
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: tooMany }), /at most 4096/);
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}`, { key, body: [] }), /at least one/);
  });

  test('a ?meta= name that would overwrite an output', async () => {
    await expectRefused(400, () => t.call('POST', `agent/${agent.id}?meta=tip`, { key, body: { service: 1 } }), /overwrite the output "tip"/);
  });

  test('bad feedback', async () => {
    await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { data: {} } }), /at least one metric/);
    await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: { profit: 'lots' } }), /finite number/);
    await expectRefused(400, () => t.call('POST', `evaluation/${reqID}/feedback`, { key, body: [1] }), /metric name/);
  });
});

describe('401', () => {
  const authenticated: Array<[string, () => string]> = [
    ['GET', () => 'agent'],
    ['POST', () => 'agent'],
    ['GET', () => `agent/${agent.id}`],
    ['PUT', () => `agent/${agent.id}`],
    ['DELETE', () => `agent/${agent.id}`],
    ['POST', () => `agent/${agent.id}`],
    ['GET', () => `agent/${agent.id}/version`],
    ['GET', () => `version/${agent.latestVersion}`],
    ['GET', () => `evaluation/${reqID}`],
    ['POST', () => `evaluation/${reqID}/feedback`],
    ['GET', () => `evaluation/${reqID}/feedback`],
  ];

  test.each(authenticated)('%s %s: missing, malformed and unknown keys answer 401 with WWW-Authenticate: Bearer', async (method, path) => {
    const body = { service: 1 };
    const variants: Array<Record<string, string>> = [
      {},
      { Authorization: `Basic ${btoa('a:b')}` },
      { Authorization: 'Bearer' },
      { Authorization: 'Bearer fzb_unknown' },
    ];
    for (const headers of variants) {
      const result = await expectRefused(401, async () => {
        const response = await t.call(method, path(), { body, headers });
        expect(response.headers.get('WWW-Authenticate')).toBe('Bearer');
        return response;
      });
      expect(result.error).toBe('Unauthorized');
    }
    await expectRefused(401, () => t.call(method, `${path()}?access_token=nope`, { body }));
  });
});

describe('404', () => {
  test('an unknown route', async () => {
    await expectRefused(404, () => t.call('GET', 'agents', { key }), /no endpoint/);
    await expectRefused(404, () => t.call('GET', `agent/${agent.id}/versions`, { key }));
    await expectRefused(404, () => t.call('GET', 'evaluation', { key }));
  });

  test('unknown ids of every kind', async () => {
    await expectRefused(404, () => t.call('GET', 'agent/nope', { key }), /no agent with id "nope"/);
    await expectRefused(404, () => t.call('PUT', 'agent/nope', { key, body: tippingAgent() }));
    await expectRefused(404, () => t.call('DELETE', 'agent/nope', { key }));
    await expectRefused(404, () => t.call('POST', 'agent/nope', { key, body: { service: 1 } }));
    await expectRefused(404, () => t.call('GET', 'agent/nope/version', { key }));
    await expectRefused(404, () => t.call('GET', 'version/nope', { key }), /no version/);
    await expectRefused(404, () => t.call('GET', `evaluation/${crypto.randomUUID()}`, { key }), /no evaluation/);
    await expectRefused(404, () => t.call('POST', `evaluation/${crypto.randomUUID()}/feedback`, { key, body: { a: 1 } }));
    await expectRefused(404, () => t.call('GET', `evaluation/${crypto.randomUUID()}/feedback`, { key }));
  });
});

describe('405', () => {
  test.each([
    ['PATCH', 'agent', 'GET, POST'],
    ['DELETE', 'agent', 'GET, POST'],
    ['PATCH', 'agent/x', 'GET, PUT, DELETE, POST'],
    ['POST', 'agent/x/version', 'GET'],
    ['DELETE', 'version', 'GET'],
    ['PUT', 'version/x', 'GET'],
    ['GET', 'account', 'POST'],
    ['PUT', 'evaluation/x', 'GET, DELETE'],
    ['POST', 'agent/x/evaluation', 'GET'],
    ['PUT', 'evaluation/x/feedback', 'POST, GET'],
  ])('%s /%s answers 405 with Allow: %s', async (method, path, allow) => {
    const result = await t.call(method, path, { key, body: { a: 1 } });
    expectError(result, 405, new RegExp(`use ${allow}`));
    expect(result.headers.get('Allow')).toBe(allow);
  });
});

describe('410', () => {
  test('every request on a deleted agent id answers 410 to its owner, 404 to anyone else', async () => {
    const versionID = agent.latestVersion;
    expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
    const other = await t.signup();
    const requests: Array<[string, string, unknown]> = [
      ['GET', `agent/${agent.id}`, undefined],
      ['PUT', `agent/${agent.id}`, tippingAgent()],
      ['DELETE', `agent/${agent.id}`, undefined],
      ['POST', `agent/${agent.id}`, { service: 1 }],
      ['GET', `agent/${agent.id}/version`, undefined],
    ];
    for (const [method, path, body] of requests) {
      await expectRefused(410, () => t.call(method, path, { key, body }), /was deleted/);
      await expectRefused(404, () => t.call(method, path, { key: other, body }));
    }
    // the versions went with the agent
    await expectRefused(404, () => t.call('GET', `version/${versionID}`, { key }));
  });

  test('a bad body or query on a deleted agent id answers 410 to its owner, 404 to anyone else', async () => {
    const other = await t.signup();
    const refusedAsBad: Array<[string, string, unknown]> = [
      ['PUT', `agent/${agent.id}`, {}],
      ['PUT', `agent/${agent.id}`, '{"name": '],
      ['POST', `agent/${agent.id}`, {}],
      ['POST', `agent/${agent.id}`, ''],
      ['POST', `agent/${agent.id}?explore=9`, { service: 1 }],
      ['POST', `agent/${agent.id}?meta=tip`, { service: 1 }],
      ['POST', `agent/${agent.id}/optimize`, {}],
    ];
    // while the agent lives, its owner is told what is wrong with the request; anyone else
    // learns nothing about it, exactly as for an id that never existed
    for (const [method, path, body] of refusedAsBad) {
      await expectRefused(400, () => t.call(method, path, { key, body }));
      await expectRefused(404, () => t.call(method, path, { key: other, body }), /no agent with id/);
      await expectRefused(404, () => t.call(method, path.replace(agent.id, 'never-existed'), { key, body }), /no agent with id "never-existed"/);
    }
    expect((await t.call('DELETE', `agent/${agent.id}`, { key })).status).toBe(200);
    for (const [method, path, body] of refusedAsBad) {
      const gone = await expectRefused(410, () => t.call(method, path, { key, body }), /was deleted/);
      expect(gone.error).toBe('Gone');
      await expectRefused(404, () => t.call(method, path, { key: other, body }), /no agent with id/);
    }
  });
});

describe('413', () => {
  test('a body over 1 MiB', async () => {
    const huge = { name: 'x'.repeat(1024 * 1024), inputs: {}, outputs: {}, rules: [] };
    await expectRefused(413, () => t.call('POST', 'agent', { key, body: huge }), /1 MiB/);
  });

  test('a streamed body over 1 MiB without Content-Length', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const request = new Request(`${t.baseURL}agent`, {
      method: 'POST',
      body: stream,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.get('content-length')).toBeNull();
    const before = await t.snapshot();
    const response = await t.service.handle(request);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(20); // reading stopped once the limit was passed
    expect(await t.snapshot()).toBe(before);
  });

  test('exactly 1 MiB is accepted as far as size goes', async () => {
    const text = JSON.stringify({ service: 5 });
    const padded = text + ' '.repeat(1024 * 1024 - text.length);
    const result = await t.call('POST', `agent/${agent.id}`, { key, body: padded });
    expect(result.status).toBe(200);
  });
});

describe('sign-up switched off', () => {
  test('POST /account answers 403 and the app can still create accounts itself', async () => {
    const closed = await createTestService({ signup: false });
    try {
      const result = await closed.call('POST', 'account', { body: { name: 'x' } });
      expectError(result, 403, /sign-up is switched off/);
      const account = await closed.service.createAccount('by the app');
      expect((await closed.call('GET', 'agent', { key: account.apiKey })).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});
