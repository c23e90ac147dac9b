// Model files over REST (SPEC 7) and the operators setting, through fetch() → msw → handle().
import { sharedText } from '../support/shared.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readModel } from '../../src/formats/index.js';
import { createTestService, tippingAgent, type TestService } from '../support/service.js';

const shared = sharedText;

let t: TestService;
let key: string;
beforeEach(async () => {
  t = await createTestService();
  key = await t.signup('models');
});
afterEach(() => t.close());

/** fetch() with the key, for answers that are not JSON */
function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  return fetch(new URL(path, t.baseURL), { method, headers: { Authorization: `Bearer ${key}`, ...headers }, ...(body === undefined ? {} : { body }) });
}

describe('model files in', () => {
  test("POST /agent takes an FCL file: the agent with its operators, evaluating to fuzzylite's published outputs", async () => {
    const text = shared('fuzzylite-examples/near-compatible/mamdani/matlab/tank2.fcl');
    const created = await t.call('POST', 'agent', { key, body: text, headers: { 'Content-Type': 'text/x-fcl' } });
    expect(created.status).toBe(200);
    expect(created.body.name).toBe('tank2');
    expect(created.body.operators).toEqual({ and: 'product', or: 'probabilisticSum', implication: 'product', ranges: { level: [-1, 1], change: [-0.1, 0.1] } });
    expect(created.body.rules).toEqual(readModel('fcl', text).definition.rules);
    // fuzzylite's tank2.fld: level 0.225806452, change 0.080645161 → valve −0.5 (Centroid 200)
    const [header, ...rows] = shared('fuzzylite-examples/near-compatible/mamdani/matlab/tank2.fld').trim().split('\n');
    expect(header).toBe('level change valve');
    for (const row of rows.filter((_, i) => i % 97 === 0)) {
      const [level, change, valve] = row.split(' ').map(Number) as [number, number, number];
      const evaluated = await t.call('POST', `agent/${created.body.id}`, { key, body: { level, change } });
      expect(evaluated.status).toBe(200);
      if (Number.isNaN(valve)) expect(evaluated.body.valve).toBeUndefined();
      else expect(Math.abs(evaluated.body.valve - valve)).toBeLessThanOrEqual(2e-4);
    }
  });

  test("function terms and chained rules over REST: fuzzylite's approximation and SimpleDimmerChained evaluate to their published outputs", async () => {
    // weighted outputs to the 9 printed decimals; a Centroid 200 (or 500) over 0..1 within its sampling step
    for (const [model, type, tolerance] of [
      ['takagi-sugeno/approximation', 'text/x-fll', 1e-8],
      ['mamdani/SimpleDimmerChained', 'text/x-fcl', 1 / 200],
    ] as const) {
      const text = shared(`fuzzylite-examples/${model}.${type.slice(-3)}`);
      const created = await t.call('POST', 'agent', { key, body: text, headers: { 'Content-Type': type } });
      expect(created.status).toBe(200);
      expect(created.body.rules).toEqual(readModel(type.slice(-3) as 'fll' | 'fcl', text).definition.rules);
      const [header, ...rows] = shared(`fuzzylite-examples/${model}.fld`).trim().split('\n');
      const names = header!.split(' ');
      // rows inside the range, where every output is reached (fuzzylite's lock-previous row at the end aside)
      for (const row of rows.filter((_, i) => i % 101 === 50)) {
        const values = row.split(' ').map(Number);
        const evaluated = await t.call('POST', `agent/${created.body.id}`, { key, body: { [names[0]!]: values[0]! } });
        expect(evaluated.status).toBe(200);
        names
          .slice(1)
          .forEach((name, k) => expect(Math.abs(evaluated.body[name] - values[k + 1]!), `${model} ${name} at ${values[0]}`).toBeLessThanOrEqual(tolerance));
      }
    }
  });

  test('PUT /agent/:id takes FLL and FIS files; a charset other than UTF-8 is refused', async () => {
    const created = await t.call('POST', 'agent', { key, body: tippingAgent() });
    const fll = shared('fuzzylite-examples/mamdani/SimpleDimmer.fll');
    const updated = await t.call('PUT', `agent/${created.body.id}`, { key, body: fll, headers: { 'Content-Type': 'text/x-fll; charset=utf-8' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'SimpleDimmer', ...readModel('fll', fll).definition });
    expect('operators' in updated.body).toBe(false);
    const fis = shared('fuzzylite-examples/near-compatible/mamdani/ObstacleAvoidance.fis');
    const again = await t.call('PUT', `agent/${created.body.id}`, { key, body: fis, headers: { 'Content-Type': 'text/x-fis' } });
    expect(again.body.operators).toEqual({ implication: 'product' });
    const latin = await t.call('PUT', `agent/${created.body.id}`, { key, body: fis, headers: { 'Content-Type': 'text/x-fis; charset=latin1' } });
    expect(latin.status).toBe(400);
    expect(latin.body.message).toMatch(/the body must be UTF-8 text/);
  });

  test('a file fuzzbox cannot express is a 400 naming the line and construct, and changes nothing', async () => {
    const before = await t.snapshot();
    // FIS rows cannot name an output in a condition: fuzzylite wrote the chained rules with none
    const text = shared('fuzzylite-examples/mamdani/SimpleDimmerInverse.fis');
    const refused = await t.call('POST', 'agent', { key, body: text, headers: { 'Content-Type': 'text/x-fis' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 'error', error: 'ValidationError' });
    expect(refused.body.message).toMatch(/^the FIS file cannot be read: line 44: a rule needs a condition and a conclusion \(a FIS row cannot name an output/);
    expect(refused.body.issues).toEqual([{ path: 'line 44', message: expect.stringMatching(/^rule: line 44: /) }]);
    expect(await t.snapshot()).toBe(before);
    // evaluation takes JSON only
    const created = await t.call('POST', 'agent', { key, body: tippingAgent() });
    const evaluated = await t.call('POST', `agent/${created.body.id}`, { key, body: 'FUNCTION_BLOCK x', headers: { 'Content-Type': 'text/x-fcl' } });
    expect(evaluated.status).toBe(400);
    expect(evaluated.body.message).toMatch(/send the body as JSON with "Content-Type: application\/json" \(got "text\/x-fcl"\)/);
  });
});

describe('a model file sent with the wrong Content-Type, or one a reader once crashed on', () => {
  test('an FCL file sent as JSON, or FLL sent as text/x-fcl, is a 400 naming the right Content-Type, and changes nothing', async () => {
    const before = await t.snapshot();
    const fcl = shared('fuzzylite-examples/mamdani/SimpleDimmer.fcl');
    const asJson = await t.call('POST', 'agent', { key, body: fcl, headers: { 'Content-Type': 'application/json' } });
    expect(asJson.status).toBe(400);
    expect(asJson.body.message).toMatch(/^the body is not valid JSON \(.*\); this is an? FCL file: send it with "Content-Type: text\/x-fcl"$/);
    const fll = shared('fuzzylite-examples/mamdani/SimpleDimmer.fll');
    const asFcl = await t.call('POST', 'agent', { key, body: fll, headers: { 'Content-Type': 'text/x-fcl' } });
    expect(asFcl.status).toBe(400);
    expect(asFcl.body.message).toBe('this is an FLL file, not FCL: send it with "Content-Type: text/x-fll"');
    const fis = shared('fuzzylite-examples/mamdani/SimpleDimmer.fis');
    const fisAsFll = await t.call('POST', 'agent', { key, body: fis, headers: { 'Content-Type': 'text/x-fll' } });
    expect(fisAsFll.body.message).toBe('this is a FIS file, not FLL: send it with "Content-Type: text/x-fis"');
    expect(await t.snapshot()).toEqual(before);
  });

  test('END_RULEBLOCK without RULEBLOCK, and CR-only line ends, are answered as FCL, not as "not valid JSON"', async () => {
    const stray = await t.call('POST', 'agent', { key, body: 'FUNCTION_BLOCK b\nEND_RULEBLOCK\n', headers: { 'Content-Type': 'text/x-fcl' } });
    expect(stray.status).toBe(400);
    expect(stray.body.message).toBe('the FCL file cannot be read: line 2: END_RULEBLOCK without RULEBLOCK before it');
    const fcl = shared('fuzzylite-examples/mamdani/SimpleDimmer.fcl').replace(/\r?\n/g, '\r');
    const created = await t.call('POST', 'agent', { key, body: fcl, headers: { 'Content-Type': 'text/x-fcl' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject(readModel('fcl', fcl.replace(/\r/g, '\n')).definition);
  });
});

describe('model files out', () => {
  test('GET /agent/:id and GET /version/:id answer in the format Accept prefers, JSON otherwise', async () => {
    const text = shared('fuzzylite-examples/mamdani/matlab/shower.fis');
    const created = await t.call('POST', 'agent', { key, body: text, headers: { 'Content-Type': 'text/x-fis' } });
    const model = readModel('fis', text);
    for (const [format, mediaType] of [
      ['fll', 'text/x-fll'],
      ['fcl', 'text/x-fcl'],
      ['fis', 'text/x-fis'],
    ] as const) {
      const agent = await raw('GET', `agent/${created.body.id}`, { Accept: `application/json;q=0.5, ${mediaType}` });
      expect(agent.status).toBe(200);
      expect(agent.headers.get('content-type')).toBe(`${mediaType}; charset=utf-8`);
      expect(agent.headers.get('vary')).toBe('Accept');
      expect(readModel(format, await agent.text())).toEqual(model);
      const version = await raw('GET', `version/${created.body.latestVersion}`, { Accept: mediaType });
      expect(readModel(format, await version.text())).toEqual(model);
    }
    for (const accept of ['*/*', 'application/json, text/x-fcl;q=0.9', 'text/html', 'text/x-fcl;q=0, application/*']) {
      const answer = await t.call('GET', `agent/${created.body.id}`, { key, headers: { Accept: accept } });
      expect(answer.headers.get('content-type'), accept).toBe('application/json; charset=utf-8');
      expect(answer.body.name).toBe('shower');
    }
  });

  test('an agent a format cannot hold is a 406 saying why', async () => {
    const spaced = { ...tippingAgent(), inputs: { 'service quality': tippingAgent().inputs.service }, rules: ['IF "service quality" IS poor THEN tip IS low'] };
    const created = await t.call('POST', 'agent', { key, body: spaced });
    const refused = await t.call('GET', `agent/${created.body.id}`, { key, headers: { Accept: 'text/x-fcl' } });
    expect(refused.status).toBe(406);
    expect(refused.body).toMatchObject({ status: 'error', error: 'NotAcceptable' });
    expect(refused.body.message).toMatch(/^this agent cannot be written as FCL: the name "service quality" cannot be written in FCL/);
    const fis = await raw('GET', `agent/${created.body.id}`, { Accept: 'text/x-fis' });
    expect(readModel('fis', await fis.text()).definition.inputs).toEqual(spaced.inputs);
  });
});

describe('the operators setting', () => {
  test('is kept on the agent and each version, used by evaluation, and absent when not sent', async () => {
    const plain = await t.call('POST', 'agent', { key, body: tippingAgent() });
    expect('operators' in plain.body).toBe(false);
    const version = await t.call('GET', `version/${plain.body.latestVersion}`, { key });
    expect('operators' in version.body).toBe(false);
    const operators = { and: 'product', implication: 'product' };
    const updated = await t.call('PUT', `agent/${plain.body.id}`, { key, body: { ...tippingAgent(), operators } });
    expect(updated.body.operators).toEqual(operators);
    expect((await t.call('GET', `version/${updated.body.latestVersion}`, { key })).body.operators).toEqual(operators);
    // service 7.5: poor 0, good 0.5, excellent 0.5; scaled medium [10, 15, 20] and high [20, 25, 30] at 0.5 are symmetric about 20
    const evaluated = await t.call('POST', `agent/${plain.body.id}`, { key, body: { service: 7.5 } });
    expect(evaluated.body.tip).toBeCloseTo(20, 12);
    const log = await t.call('GET', `evaluation/${evaluated.headers.get('x-evaluation-id')}`, { key });
    expect(log.body.clipped.tip.medium).toEqual([
      [10, 0],
      [15, 0.5],
      [20, 0],
    ]);
    const removed = await t.call('PUT', `agent/${plain.body.id}`, { key, body: tippingAgent() });
    expect('operators' in removed.body).toBe(false);
  });

  test('anything else is a 400 by path', async () => {
    const refused = await t.call('POST', 'agent', { key, body: { ...tippingAgent(), operators: { and: 'mean', xor: 'max' } } });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual(
      expect.arrayContaining([
        {
          path: 'operators.and',
          message: 'and is "min" or "product" or "boundedDifference" or "drasticProduct" or "einsteinProduct" or "hamacherProduct" or "nilpotentMinimum"',
        },
        {
          path: 'operators',
          message:
            'unknown operator "xor": an agent chooses "and", "or", "implication", "aggregation", "defuzzification", "activationThreshold", "ranges" and "outputs"',
        },
      ]),
    );
  });
});
