// Names that are members of Object.prototype (toString, constructor, valueOf, hasOwnProperty,
// __defineGetter__, …) are ordinary names: as inputs, outputs, sets, metrics and ?meta= names,
// through create, evaluate, feedback and optimize. A lookup that is not an own-property check
// finds the inherited function instead (optimize once answered 500: `input "toString" must be a
// finite number, got function toString()…`).
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestService, type TestService } from '../support/service.js';

/** `__proto__` is refused as a name on purpose (test/api/errors.test.ts); every other member is a name. */
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).filter((name) => name !== '__proto__');

let t: TestService;
let key: string;
beforeAll(async () => {
  t = await createTestService();
  key = await t.signup();
});
afterAll(() => t.close());

const quoted = (name: string) => JSON.stringify(name);

test('the list of names is the one the issue names', () => {
  expect(prototypeNames).toEqual(expect.arrayContaining(['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__defineGetter__']));
});

test('Object.prototype member names through create, evaluate, feedback and optimize', async () => {
  await fc.assert(
    fc.asyncProperty(
      // variables and metrics distinct (a ?meta= name equal to an output is refused); sets drawn apart
      fc.uniqueArray(fc.constantFrom(...prototypeNames), { minLength: 5, maxLength: 5 }),
      fc.uniqueArray(fc.constantFrom(...prototypeNames), { minLength: 3, maxLength: 3 }),
      fc.boolean(),
      async ([first, second, output, metric, other], [low, middle, high], wrapped) => {
        const sets = (from: number, to: number) => ({
          [low!]: [from, (from + to) / 2],
          [middle!]: [from, (from + to) / 2, to],
          [high!]: [(from + to) / 2, to],
        });
        const agent = {
          name: first,
          inputs: { [first!]: sets(0, 10), [second!]: sets(0, 10) },
          outputs: { [output!]: sets(0, 30) },
          rules: [
            `IF ${quoted(first!)} IS ${quoted(low!)} THEN ${quoted(output!)} IS ${quoted(low!)}`,
            `IF ${quoted(first!)} IS ${quoted(middle!)} THEN ${quoted(output!)} IS ${quoted(middle!)}`,
            `IF ${quoted(first!)} IS ${quoted(high!)} AND ${quoted(second!)} IS NOT ${quoted(low!)} THEN ${quoted(output!)} IS ${quoted(high!)}`,
            `${quoted(second!)} INCREASES ${quoted(output!)} WITH 0.5`,
          ],
          performance: { [metric!]: 'maximize', [other!]: 'minimize' },
        };
        const created = await t.call('POST', 'agent', { key, body: agent });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const id: string = created.body.id;
        expect(created.body.inputs).toEqual(agent.inputs);
        expect(created.body.performance).toEqual(agent.performance);
        expect((await t.call('GET', `agent/${id}`, { key })).body).toEqual(created.body);

        // one evaluation, with the log under a ?meta= name from the same list
        const single = await t.call('POST', `agent/${id}?meta=${metric}`, { key, body: { [first!]: 7, [second!]: 2 } });
        expect(single.status, JSON.stringify(single.body)).toBe(200);
        expect(Object.keys(single.body).sort()).toEqual([output!, metric!].sort());
        expect(typeof single.body[output!]).toBe('number');
        expect(Object.keys(single.body[metric!].fuzzified).sort()).toEqual([first!, second!].sort());
        // a missing input is allowed: only the name given counts, never an inherited one
        const partial = await t.call('POST', `agent/${id}`, { key, body: { [second!]: 9 } });
        expect(partial.status, JSON.stringify(partial.body)).toBe(200);
        const unknown = await t.call('POST', `agent/${id}`, { key, body: { [output!]: 1 } });
        expect(unknown.status).toBe(400);

        // explored evaluations answered with feedback: the more output, the more `metric`
        // (every fourth without the second input: a missing input must not be read as the inherited member)
        const situations = Array.from({ length: 160 }, (_, i) =>
          i % 4 === 3 ? { [first!]: (i * 7) % 11 } : { [first!]: (i * 7) % 11, [second!]: (i * 3) % 11 },
        );
        const batch = await t.call('POST', `agent/${id}?explore=0.2`, { key, body: situations });
        expect(batch.status, JSON.stringify(batch.body)).toBe(200);
        const ids = batch.headers.get('X-Evaluation-ID')!.split(',');
        for (const [i, reqID] of ids.entries()) {
          // an output no rule reached is absent (own-property check: `constructor` is always "there")
          const returned: number = Object.hasOwn(batch.body[i], output!) ? batch.body[i][output!] : 0;
          const metrics = { [metric!]: returned - Math.abs(returned - 20), [other!]: i % 5 };
          const posted = await t.call('POST', `evaluation/${reqID}/feedback`, { key, body: wrapped ? { data: metrics } : metrics });
          expect(posted.status, JSON.stringify(posted.body)).toBe(200);
          expect(posted.body.data).toEqual(metrics);
        }
        const log = await t.call('GET', `evaluation/${ids[0]}`, { key });
        expect(log.body.input).toEqual(situations[0]);
        expect((await t.call('GET', `evaluation/${ids[0]}/feedback`, { key })).body).toHaveLength(1);

        for (const tuneInputs of [false, true]) {
          const optimized = await t.call('POST', `agent/${id}/optimize`, { key, body: { metric, goal: 'maximize', tuneInputs } });
          expect(optimized.status, JSON.stringify(optimized.body)).toBe(200);
          expect(optimized.body.evaluationsUsed).toBe(160);
          expect(Object.keys(optimized.body.definition.inputs).sort()).toEqual([first!, second!].sort());
        }
        const latest = (await t.call('GET', `agent/${id}`, { key })).body;
        expect(latest.performance).toEqual(agent.performance);
        const after = await t.call('POST', `agent/${id}`, { key, body: { [first!]: 7, [second!]: 2 } });
        expect(after.status).toBe(200);
      },
    ),
    { numRuns: 6 },
  );
}, 120_000);
