// FuzzyClient against the real handler (in Node, over fake-indexeddb): every method reaches its
// endpoint and returns what the service answered; every failure becomes a FuzzyApiError.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FuzzyApiError, FuzzyClient } from '../../src/client/index.js';
import { createFuzzyService, type FuzzyService } from '../../src/index.js';
import { fanAgent, fanAt12, fanAt15 } from './fan-agent.js';

let service: FuzzyService;
let anonymous: FuzzyClient;
let client: FuzzyClient;
const sent: Request[] = [];

beforeAll(async () => {
  service = createFuzzyService({ indexedDB: new IDBFactory(), IDBKeyRange, dbName: 'client-test', basePath: '/api/' });
  anonymous = new FuzzyClient({
    baseURL: 'http://app.test/api',
    fetch: (input, init) => {
      const request = new Request(input, init);
      sent.push(request.clone());
      return service.handle(request);
    },
  });
  client = anonymous.withKey((await anonymous.createAccount('client test')).apiKey);
});
afterAll(() => service.close());

/** The FuzzyApiError the call must fail with. */
async function failure(call: Promise<unknown>): Promise<FuzzyApiError> {
  const error = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(FuzzyApiError);
  return error as FuzzyApiError;
}

describe('FuzzyClient', () => {
  it('covers the agent, version, evaluation and feedback endpoints', async () => {
    expect(await client.listAgents()).toEqual([]);
    const created = await client.createAgent(fanAgent);
    expect(created).toMatchObject({ ...fanAgent, createdAt: created.updatedAt });
    expect(await client.getAgent(created.id)).toEqual(created);
    expect(await client.listAgents()).toEqual([{ id: created.id, name: 'fan' }]);

    const updated = await client.updateAgent(created.id, { ...fanAgent, name: 'fan v2' });
    expect(updated.name).toBe('fan v2');
    const versions = await client.listVersions(created.id);
    expect(versions.map((version) => version.id)).toEqual([created.latestVersion, updated.latestVersion]);
    const first = await client.getVersion(created.latestVersion);
    expect(first).toMatchObject({ versionOf: created.id, name: 'fan', rules: fanAgent.rules });

    const single = await client.evaluate(created.id, { temperature: 12 });
    expect(Object.keys(single.outputs)).toEqual(['fan']);
    expect(single.outputs.fan).toBeCloseTo(fanAt12, 9);
    expect(single.meta).toBeUndefined();

    const withMeta = await client.evaluate(created.id, { temperature: 12 }, { meta: true });
    expect(Object.keys(withMeta.outputs)).toEqual(['fan']);
    expect(withMeta.meta?.fuzzified).toEqual({ temperature: { cold: expect.closeTo(0.8, 12), hot: expect.closeTo(0.2, 12) } });

    const batch = await client.evaluateBatch(created.id, [{ temperature: 12 }, { temperature: 15 }]);
    expect(batch.map((item) => item.outputs.fan)).toEqual([expect.closeTo(fanAt12, 9), expect.closeTo(fanAt15, 9)]);
    expect(new Set([single, withMeta, ...batch].map((item) => item.evaluationID)).size).toBe(4);

    const log = await client.getEvaluation(batch[1]!.evaluationID);
    expect(log).toMatchObject({ reqID: batch[1]!.evaluationID, agentID: created.id, versionID: updated.latestVersion, input: { temperature: 15 } });

    const feedback = await client.postFeedback(single.evaluationID, { stars: 4, 'tip ok': 1 });
    expect(feedback).toMatchObject({ evaluationLog: single.evaluationID, data: { stars: 4, 'tip ok': 1 } });
    expect(await client.listFeedback(single.evaluationID)).toEqual([feedback]);

    await client.deleteAgent(created.id);
    expect(await client.listAgents()).toEqual([]);
    expect((await failure(client.getAgent(created.id))).status).toBe(410);
    // Logs outlive their agent (SPEC: readable by their owner after DELETE).
    expect((await client.getEvaluation(single.evaluationID)).crisp.fan).toBeCloseTo(fanAt12, 9);
  });

  it('sends JSON with the key under the base path, and reads the service info without one', async () => {
    sent.length = 0;
    const info = await anonymous.serviceInfo();
    expect(info.name).toEqual(expect.any(String));
    await client.createAgent(fanAgent);
    const [about, create] = sent;
    expect(about!.url).toBe('http://app.test/api/version');
    expect(about!.headers.get('Authorization')).toBeNull();
    expect(create!.url).toBe('http://app.test/api/agent');
    expect(create!.method).toBe('POST');
    expect(create!.headers.get('Authorization')).toMatch(/^Bearer \S+$/);
    expect(create!.headers.get('Content-Type')).toBe('application/json');
    expect(await create!.json()).toEqual(fanAgent);
  });

  it('downloads a backup and restores it, from a Blob, a stream or text', async () => {
    const client = anonymous.withKey((await anonymous.createAccount('backup')).apiKey);
    const agent = await client.createAgent(fanAgent);
    const evaluated = await client.evaluateBatch(agent.id, [{ temperature: 12 }, { temperature: 15 }]);
    await client.postFeedback(evaluated[1]!.evaluationID, { stars: 5 });
    const backup = await client.downloadBackup();
    expect(backup.type).toBe('application/x-ndjson');
    const text = await backup.text();
    expect(text.split('\n')[0]).toMatch(/^\{"format":"fuzzbox-backup","version":2,/);
    const lines = text.trimEnd().split('\n').length;
    // into its own account (every line but the header and the trailer is a record): all of it is there already
    expect(await client.restoreBackup(backup)).toEqual({ lines, imported: 0, unchanged: lines - 2 });
    expect(await client.restoreBackup(backup.stream())).toEqual({ lines, imported: 0, unchanged: lines - 2 });
    expect(await client.restoreBackup(text)).toEqual({ lines, imported: 0, unchanged: lines - 2 });
    const refused = await failure(client.restoreBackup(text.replace('"version":2', '"version":99')));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^line 1: .*newer fuzzbox/);
    expect((await client.getStorage()).counts).toMatchObject({ evaluations: 2, feedback: 1 });
  });

  it('throws FuzzyApiError with the status, the error name, the message and every invalid field', async () => {
    const unauthorised = await failure(anonymous.listAgents());
    expect(unauthorised).toMatchObject({ name: 'FuzzyApiError', status: 401, error: 'Unauthorized' });
    expect(unauthorised.message).not.toBe('');

    const invalid = await failure(client.createAgent({ ...fanAgent, rules: ['IF temperature IS warm THEN fan IS slow', 'IF fan IS'] }));
    expect(invalid).toMatchObject({ status: 400, error: 'ValidationError' });
    expect(invalid.issues.map((issue) => issue.path)).toEqual(['rules[0]', 'rules[1]']);
    expect(invalid.issues[0]!.message).toContain('warm');

    const missing = await failure(client.getEvaluation('00000000-0000-4000-8000-000000000000'));
    expect(missing).toMatchObject({ status: 404, error: 'NotFound', issues: [] });

    // the status of a ValidationError, another name: a request the service could not read at all
    const empty = await failure(client.restoreBackup(''));
    expect(empty).toMatchObject({ status: 400, error: 'InvalidRequest' });
    expect(empty.message).toMatch(/the body is empty/);
  });

  it('says the worker is not answering when the reply is not fuzzbox JSON', async () => {
    const offline = new FuzzyClient({
      baseURL: 'http://app.test/',
      fetch: async () => new Response('<!doctype html><title>Not found</title>', { status: 404, headers: { 'Content-Type': 'text/html' } }),
    });
    const error = await failure(offline.listAgents());
    expect(error).toMatchObject({ status: 404, error: undefined });
    expect(error.message).toMatch(/not fuzzbox JSON: is the fuzzbox worker registered and controlling this page/);
  });
});

describe('FuzzyClient.evaluateBatch and the X-Evaluation-ID header', () => {
  /** A client whose every answer is a batch of two outputs with the given header. */
  const answering = (header: string) =>
    new FuzzyClient({
      baseURL: 'http://app.test/',
      fetch: async () =>
        new Response(JSON.stringify([{ fan: 1 }, { fan: 2 }]), {
          headers: { 'Content-Type': 'application/json', 'X-Evaluation-ID': header },
        }),
    });

  it('reads ids listed with spaces after the commas', async () => {
    const evaluations = await answering('first, second').evaluateBatch('agent', [{ temperature: 1 }, { temperature: 2 }]);
    expect(evaluations.map(({ evaluationID }) => evaluationID)).toEqual(['first', 'second']);
  });

  it('says so when the header does not hold one id per item', async () => {
    for (const header of ['only-one', '']) {
      const error = await failure(answering(header).evaluateBatch('agent', [{ temperature: 1 }, { temperature: 2 }]));
      expect(error.status).toBe(200);
      expect(error.message).toMatch(/X-Evaluation-ID .* \d id.* for 2 evaluations/);
    }
  });
});
