// Bad input never breaks the service: fast-check sends arbitrary methods, paths, headers and
// bodies (JSON and not) at every endpoint. Never a 500, never an unhandled rejection, every
// answer is JSON with the error shape on 4xx, and after every 4xx the database is unchanged.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { errorBodySchema } from '../../src/schema/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let otherKey: string;
let ids: string[];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  t = await createTestService();
  key = await t.signup('fuzz');
  otherKey = await t.signup('other');
  const agent = (await t.call('POST', 'agent', { key, body: tippingAgent() })).body;
  const doomed = (await t.call('POST', 'agent', { key, body: tippingAgent('doomed') })).body;
  await t.call('DELETE', `agent/${doomed.id}`, { key });
  const reqID = (await t.call('POST', `agent/${agent.id}`, { key, body: { service: 3 } })).headers.get('X-Evaluation-ID')!;
  ids = [agent.id, agent.latestVersion, doomed.id, reqID];
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await t.close();
});

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 30 });
const anyText = fc.string({ unit: 'grapheme', maxLength: 20 });

const method = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), weight: 6 },
  fc.constantFrom('PATCH', 'OPTIONS', 'HEAD', 'get', 'post'),
  fc.stringMatching(/^[A-Z]{1,10}$/).filter((m) => !['CONNECT', 'TRACE', 'TRACK'].includes(m)),
);

const segment = fc.oneof(
  fc.constantFrom('agent', 'version', 'evaluation', 'feedback', 'account', '', '..', '%', '%00', '%E0%A4%A', '%2F'),
  fc.constant(null).map(() => 'id'),
  anyText.map(encodeURIComponent),
);
const anyPath = fc
  .tuple(fc.array(segment, { minLength: 0, maxLength: 4 }), fc.nat({ max: 3 }))
  .map(([segments, idIndex]) => segments.map((s) => (s === 'id' ? ids[idIndex]! : s)).join('/'));
// the endpoints' own shapes, with a real id (live, deleted, of another kind) or a random one
const routePath = fc
  .tuple(
    fc.constantFrom('agent', 'agent/:id', 'agent/:id/version', 'version', 'version/:id', 'evaluation/:id', 'evaluation/:id/feedback', 'account'),
    fc.oneof({ arbitrary: fc.constantFrom(0, 1, 2, 3).map((i) => ids[i]!), weight: 3 }, anyText.map(encodeURIComponent)),
  )
  .map(([shape, id]) => shape.replace(':id', id));
const path = fc.oneof({ arbitrary: routePath, weight: 3 }, { arbitrary: anyPath, weight: 1 });

const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?meta=1', '?meta=audit', '?meta=service', '?meta=tip', '?meta=', '?access_token=x'),
  printable.map((text) => `?${encodeURIComponent(text)}=${encodeURIComponent(text)}`),
);

const authorization = fc.oneof(
  fc.constant<string | undefined>(undefined),
  { arbitrary: fc.constant(null).map(() => `Bearer ${key}`), weight: 4 },
  fc.constant(null).map(() => `Bearer ${otherKey}`),
  printable,
);

const contentType = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json'),
  printable,
);

// Mostly near-valid bodies, because those reach deepest: agents with a field broken, inputs
// objects with odd names and values, feedback maps, plus anything JSON and anything at all.
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0, -0, 1e308, -1e-308));
const nearAgent = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 210 }), number),
    inputs: fc.oneof(fc.constant(tippingAgent().inputs), fc.dictionary(anyText, fc.dictionary(anyText, fc.array(number, { maxLength: 5 }))), fc.jsonValue()),
    outputs: fc.oneof(fc.constant(tippingAgent().outputs), fc.dictionary(anyText, fc.dictionary(anyText, fc.array(number, { maxLength: 5 })))),
    rules: fc.oneof(
      fc.constant(tippingAgent().rules),
      fc.array(fc.oneof(anyText, fc.constantFrom('IF service IS poor THEN tip IS', 'service INCREASES tip WITH 2', 'IF (service IS good THEN tip IS low')), {
        maxLength: 3,
      }),
    ),
  },
  { requiredKeys: [] },
);
const inputsLike = fc.dictionary(fc.oneof(fc.constant('service'), anyText), fc.oneof(number, fc.jsonValue()), { maxKeys: 3 });
const body = fc.oneof(
  fc.constant<unknown>(undefined),
  nearAgent,
  inputsLike,
  fc.array(inputsLike, { maxLength: 3 }),
  fc.record({ data: fc.oneof(inputsLike, fc.jsonValue()) }),
  fc.jsonValue(),
  fc.string().map((text) => ({ raw: text })),
);

test('arbitrary requests: never a 500, always JSON, and a 4xx changes nothing', async () => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(method, path, query, authorization, contentType, body, async (m, p, q, auth, type, payload) => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers.Authorization = auth;
      if (type !== undefined) headers['Content-Type'] = type;
      const init: RequestInit = { method: m, headers };
      const canHaveBody = !['GET', 'HEAD'].includes(m.toUpperCase());
      if (payload !== undefined && canHaveBody) {
        init.body = typeof payload === 'object' && payload !== null && 'raw' in payload ? String((payload as { raw: unknown }).raw) : JSON.stringify(payload);
      }
      const before = await t.snapshot();
      const response = await fetch(`${t.baseURL}${p}${q}`, init);
      seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      if (m.toUpperCase() === 'HEAD') return;
      const answer = JSON.parse(await response.text()) as unknown;
      if (response.status >= 400) {
        expect(errorBodySchema.safeParse(answer).success).toBe(true);
        expect(await t.snapshot()).toBe(before);
      }
    }),
    { numRuns: 600 },
  );
  expect(unhandled).toEqual([]);
  // the generators reach past routing and authentication into every kind of answer
  expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([200, 400, 401, 404, 405]));
  console.log('fuzz: answers by status', Object.fromEntries([...seen].sort(([a], [b]) => a - b)));
}, 120_000);

// Nesting of any shape, arrays and objects mixed, tens of thousands of levels deep, with
// "__proto__" as a key or a value at the bottom, at every endpoint that reads a body: nothing
// that walks a body may recurse once per level.
const level = fc.constantFrom(['[', ']'], ['[1,', ']'], ['{"a":', '}'], ['{"data":', '}'], ['{"service":', '}'], ['{"inputs":', '}']);
const deeplyNested = fc
  .tuple(
    fc.array(level, { minLength: 1, maxLength: 4 }),
    fc.integer({ min: 5_000, max: 20_000 }),
    fc.constantFrom('1', '"__proto__"', '{"__proto__": 1}', '{"service": 1}', '[]'),
  )
  .map(([levels, times, inner]) => {
    const open = levels.map(([opening]) => opening).join('');
    const close = levels
      .map(([, closing]) => closing)
      .reverse()
      .join('');
    return open.repeat(times) + inner + close.repeat(times);
  });
const bodyEndpoint = fc.constantFrom(
  () => ['POST', 'agent'],
  () => ['PUT', `agent/${ids[0]}`],
  () => ['POST', `agent/${ids[0]}`],
  () => ['POST', `agent/${ids[2]}`],
  () => ['POST', `agent/${ids[0]}/optimize`],
  () => ['POST', `evaluation/${ids[3]}/feedback`],
  () => ['POST', 'account'],
);

test('deeply nested bodies: never a 500, and a 4xx changes nothing', async () => {
  await fc.assert(
    fc.asyncProperty(bodyEndpoint, deeplyNested, async (endpoint, text) => {
      const [method, path] = endpoint();
      const before = await t.snapshot();
      const response = await fetch(`${t.baseURL}${path}`, {
        method,
        body: text,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      });
      expect(response.status).toBeLessThan(500);
      const answer = JSON.parse(await response.text()) as unknown;
      if (response.status >= 400) {
        expect(errorBodySchema.safeParse(answer).success).toBe(true);
        expect(await t.snapshot()).toBe(before);
      }
    }),
    { numRuns: 100 },
  );
  expect(unhandled).toEqual([]);
}, 120_000);
