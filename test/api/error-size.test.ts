// No error body exceeds 64 KiB (SPEC 7), at the limits of what a request can hold: the issues are
// cut with an "and N more" entry, and handle() resolves instead of building tens of megabytes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_VARIABLES } from '../../src/engine/limits.js';
import { MAX_BATCH } from '../../src/schema/evaluation.js';
import { errorBodySchema, MAX_ERROR_BODY_BYTES } from '../../src/schema/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

let t: TestService;
let key: string;
let wide: { id: string };
beforeAll(async () => {
  t = await createTestService();
  key = await t.signup();
  // 100 inputs with 200-character names: every "unknown input" message once listed all of them
  const inputs = Object.fromEntries(
    Array.from({ length: MAX_VARIABLES }, (_, i) => [`${String(i).padStart(3, '0')}${'n'.repeat(197)}`, { low: [0, 1], high: [0, 1] }]),
  );
  const names = Object.keys(inputs);
  const rules = names.map((name) => `IF "${name}" IS high THEN out IS high`);
  const created = await t.call('POST', 'agent', { key, body: { inputs, outputs: { out: { high: [0, 1] } }, rules } });
  expect(created.status).toBe(200);
  wide = created.body;
});
afterAll(() => t.close());

/** Sends `body` raw and returns the status, the body's size in bytes and the parsed error. */
async function refusal(path: string, body: string) {
  const response = await t.service.handle(
    new Request(new URL(path, t.baseURL), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body,
    }),
  );
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, bytes: bytes.byteLength, body: errorBodySchema.parse(JSON.parse(new TextDecoder().decode(bytes))) };
}

describe('error bodies stay under 64 KiB', () => {
  test('a batch of 4096 items, each naming an unknown long input, on an agent with 100 long input names', async () => {
    const unknown = (i: number) => `${'u'.repeat(190)}${i}`;
    const batch = JSON.stringify(Array.from({ length: MAX_BATCH }, (_, i) => ({ [unknown(i)]: 1 })));
    expect(batch.length).toBeLessThan(1024 * 1024);
    const { status, bytes, body } = await refusal(`agent/${wide.id}`, batch);
    expect(status).toBe(400);
    expect(bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    const issues = body.issues!;
    expect(issues[0]!.path).toBe(`[0].${unknown(0)}`);
    expect(issues[0]!.message).toMatch(/^unknown input "u+0" \(known: 000n+, 001n+/);
    const listed = issues.length - 1;
    expect(listed).toBeGreaterThan(10);
    expect(issues.at(-1)).toEqual({ path: '', message: expect.stringMatching(new RegExp(`^and ${MAX_BATCH - listed} more issues`)) });
    expect(body.message).toContain(`(and ${MAX_BATCH - 1} more issues)`);
  });

  test('1 MiB of one-letter unknown inputs: some 150,000 issues, counted, not listed', async () => {
    const names: string[] = [];
    for (let i = 0, length = 0; length < 900_000; i++) {
      names.push(i.toString(36));
      length += names.at(-1)!.length + 4;
    }
    const inputs = `{${names.map((name) => `"${name}":1`).join(',')}}`;
    const { status, bytes, body } = await refusal(`agent/${wide.id}`, inputs);
    expect(status).toBe(400);
    expect(bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(body.message).toContain(`(and ${names.length - 1} more issues)`);
  });

  test('1 MiB of schema violations: every value of a batch a string', async () => {
    const batch = JSON.stringify(Array.from({ length: MAX_BATCH }, () => Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`i${i}`, 'x']))));
    const { status, bytes, body } = await refusal(`agent/${wide.id}`, batch);
    expect(status).toBe(400);
    expect(bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(body.message).toContain(`(and ${MAX_BATCH * 20 - 1} more issues)`);
    expect(body.issues!.at(-1)!.message).toMatch(/^and \d+ more issues/);
  });

  test('names of control characters, which JSON writes six bytes each, and very long ones', async () => {
    const control = '\u0001'.repeat(15_000);
    const batch = JSON.stringify(Array.from({ length: 8 }, (_, i) => ({ [`${control}${i}`]: 1 })));
    const { status, bytes, body } = await refusal(`agent/${wide.id}`, batch);
    expect(status).toBe(400);
    expect(bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(body.issues!.length).toBeGreaterThan(1);

    const longRule = {
      ...tippingAgent(),
      rules: Array.from({ length: 400 }, () => `IF ${'service IS nowhere AND '.repeat(79)}service IS poor THEN tip IS low`),
    };
    const agent = await refusal('agent', JSON.stringify(longRule));
    expect(agent.status).toBe(400);
    expect(agent.bytes).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(agent.body.issues!.at(-1)!.message).toMatch(/^and \d+ more issues/);
  });
});
