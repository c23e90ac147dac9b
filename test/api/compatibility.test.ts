// Plays the earlier hosted service's clients byte for byte over real HTTP (a Node `http` server in
// front of handle()), as fuzzy.ai's own programs drove it: `Content-Type: application/json;
// charset=utf8` (the 2015 Node client), a `[]` body on GET and DELETE, the key as
// `?access_token=`, `?meta=audit`, feedback as a bare metric map, and the evaluation id read from
// the raw header named exactly `X-Evaluation-ID`. Anything but 200 is a failure, as it was for them.
import { request } from 'node:http';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFuzzyService, type FuzzyService } from '../../src/index.js';
import { serveOverHttp, type HttpServer } from '../support/http-server.js';

interface WireResponse {
  status: number;
  /** header name → value, exactly as spelled on the wire */
  rawHeaders: Map<string, string>;
  body: any;
}

/** One HTTP exchange with node:http, nothing normalised: the raw header lines come back as sent. */
function exchange(method: string, url: string, headers: Record<string, string>, body?: string): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const rawHeaders = new Map<string, string>();
        for (let i = 0; i < incoming.rawHeaders.length; i += 2) rawHeaders.set(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        resolve({ status: incoming.statusCode!, rawHeaders, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** What the 2015 Node client did for every call. */
class LegacyNodeClient {
  constructor(
    private readonly baseURL: string,
    private readonly apiKey: string,
    private readonly keyIn: 'header' | 'query' = 'header',
  ) {}

  async send(method: string, path: string, payload?: unknown): Promise<WireResponse> {
    const url = new URL(path, this.baseURL);
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf8', Accept: 'application/json' };
    if (this.keyIn === 'query') url.searchParams.set('access_token', this.apiKey);
    else headers.Authorization = `Bearer ${this.apiKey}`;
    // GET and DELETE went out with an empty JSON array as their body
    const body = JSON.stringify(payload ?? []);
    const response = await exchange(method, url.href, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, body);
    if (response.status !== 200) throw new Error(`${method} ${path} failed with ${response.status}: ${JSON.stringify(response.body)}`);
    if (response.rawHeaders.get('Content-Type') !== 'application/json; charset=utf-8') throw new Error('not JSON');
    return response;
  }

  listAgents = async () => (await this.send('GET', 'agent')).body as Array<{ id: string; name: string }>;
  createAgent = async (agent: unknown) => (await this.send('POST', 'agent', agent)).body;
  getAgent = async (id: string) => (await this.send('GET', `agent/${id}`)).body;
  updateAgent = async (id: string, agent: unknown) => (await this.send('PUT', `agent/${id}`, agent)).body;
  deleteAgent = async (id: string) => (await this.send('DELETE', `agent/${id}`)).body;
  versions = async (id: string) => (await this.send('GET', `agent/${id}/version`)).body;
  version = async (id: string) => (await this.send('GET', `version/${id}`)).body;
  evaluation = async (id: string) => (await this.send('GET', `evaluation/${id}`)).body;
  feedback = async (id: string, metrics: Record<string, number>) => (await this.send('POST', `evaluation/${id}/feedback`, metrics)).body;
  feedbackOn = async (id: string) => (await this.send('GET', `evaluation/${id}/feedback`)).body;

  async evaluate(id: string, inputs: unknown, audit = false) {
    const { body, rawHeaders } = await this.send('POST', `agent/${id}${audit ? '?meta=audit' : ''}`, inputs);
    // looked up by its exact spelling, as the old clients did
    const evaluationID = rawHeaders.get('X-Evaluation-ID');
    if (!evaluationID) throw new Error(`no header spelled X-Evaluation-ID among ${[...rawHeaders.keys()].join(', ')}`);
    return { data: body, evaluationID };
  }
}

let service: FuzzyService;
let server: HttpServer;
let apiKey: string;
let client: LegacyNodeClient;
beforeAll(async () => {
  service = createFuzzyService({ indexedDB: new IDBFactory(), IDBKeyRange });
  server = await serveOverHttp((request) => service.handle(request));
  apiKey = (await service.createAccount('legacy')).apiKey;
  client = new LegacyNodeClient(server.url, apiKey);
});
afterAll(async () => {
  await server.close();
  await service.close();
});

// A two-input agent in the old service's style: names with spaces, quoted in rules, and a trend rule.
const fan = {
  name: 'fan speed',
  inputs: {
    'room temperature': { cold: [10, 20], warm: [15, 22, 29], hot: [25, 35] },
    humidity: { dry: [20, 60], humid: [40, 90] },
  },
  outputs: { 'fan speed': { slow: [0, 500], medium: [300, 800, 1300], fast: [1000, 1500] } },
  rules: [
    'IF "room temperature" IS cold THEN "fan speed" IS slow',
    'IF "room temperature" IS warm AND humidity IS humid THEN "fan speed" IS medium',
    '"room temperature" INCREASES "fan speed" WITH 0.8',
  ],
};

// The shape of the published lemonade-stand simulation's agent: no name, prices and weather in,
// a price out, and `performance` saying which metric its feedback should drive.
const lemonadeStand = {
  inputs: {
    temperature: { cold: [40, 60], mild: [50, 70, 90], hot: [80, 100] },
    'cost per cup': { cheap: [0.05, 0.2], dear: [0.1, 0.4] },
  },
  outputs: { price: { low: [0.1, 0.3, 0.5], medium: [0.4, 0.75, 1.1], high: [1, 1.5, 2] } },
  rules: [
    'IF temperature IS hot THEN price IS high',
    'IF temperature IS mild AND "cost per cup" IS cheap THEN price IS medium',
    'IF temperature IS cold OR "cost per cup" IS dear THEN price IS low',
  ],
  performance: { profit: 'maximize' },
};

// A product-hunt-style ranking app's agent: no name, several inputs, a score out, two metrics.
const productRanking = {
  inputs: {
    votes: { few: [0, 50], some: [25, 100, 175], many: [150, 300] },
    comments: { quiet: [0, 20], lively: [10, 60] },
    'hours since posted': { fresh: [0, 6], stale: [3, 48] },
  },
  outputs: { score: { low: [0, 25, 50], high: [50, 75, 100] } },
  rules: ['votes INCREASES score', 'IF comments IS lively THEN score IS high WITH 0.5', 'IF "hours since posted" IS stale THEN score IS low'],
  performance: { clicks: 'maximize', bounces: 'minimize' },
};

// The agent the official Node client's own test posted: no name, no performance, one in, one out.
const clientTestAgent = {
  inputs: { input1: { veryLow: [0, 20], low: [0, 20, 40], medium: [20, 40, 60], high: [40, 60, 80], veryHigh: [60, 80] } },
  outputs: { output1: { veryLow: [0, 20], low: [0, 20, 40], medium: [20, 40, 60], high: [40, 60, 80], veryHigh: [60, 80] } },
  rules: [
    'IF input1 IS veryLow THEN output1 IS veryHigh',
    'IF input1 IS low THEN output1 IS high',
    'IF input1 IS medium THEN output1 IS medium',
    'IF input1 IS high THEN output1 IS low',
    'IF input1 IS veryHigh THEN output1 IS veryLow',
  ],
};

test('the whole life of an agent, as the earlier clients drove it', async () => {
  const created = await client.createAgent(fan);
  expect(created.name).toBe('fan speed');
  expect((await client.listAgents()).map((agent) => agent.id)).toContain(created.id);
  expect(await client.getAgent(created.id)).toEqual(created);

  const { data, evaluationID } = await client.evaluate(created.id, { 'room temperature': 30, humidity: 70 }, true);
  expect(Object.keys(data).sort()).toEqual(['audit', 'fan speed']);
  expect(data['fan speed']).toBeGreaterThanOrEqual(0);
  expect(data['fan speed']).toBeLessThanOrEqual(1500);
  expect(data.audit.reqID).toBe(evaluationID);
  expect(data.audit.rules.length).toBeGreaterThan(0);

  const log = await client.evaluation(evaluationID);
  expect(log.crisp['fan speed']).toBe(data['fan speed']);

  const feedback = await client.feedback(evaluationID, { comfort: 4, 'energy used': 1.25 });
  expect(feedback.data).toEqual({ comfort: 4, 'energy used': 1.25 });
  expect(await client.feedbackOn(evaluationID)).toEqual([feedback]);

  const batch = await client.evaluate(created.id, [{ 'room temperature': 12 }, { humidity: 30, 'room temperature': 33 }]);
  const ids = batch.evaluationID.split(',');
  expect(ids).toHaveLength(2);
  expect(batch.data).toHaveLength(2);
  // 12 °C, humidity missing: cold [10,20] at 12 is 0.8, so slow is inferred at 0.8 (the trend rule
  // gives it 0.64, rule 2 needs humidity). Slow [0,0,0,500] cut at 0.8 is a rectangle of area 80
  // centred at 50 and a triangle of area 160 centred at 700/3: x = (80·50 + 160·700/3)/240 = 1550/9.
  expect(batch.data[0]['fan speed']).toBeCloseTo(1550 / 9, 9);
  for (const [index, id] of ids.entries()) {
    expect((await client.evaluation(id)).crisp).toEqual(batch.data[index]);
  }

  const updated = await client.updateAgent(created.id, { ...fan, name: 'fan speed v2' });
  expect(updated.latestVersion).not.toBe(created.latestVersion);
  expect(await client.versions(created.id)).toHaveLength(2);

  expect(await client.deleteAgent(created.id)).toEqual({ message: 'OK' });
  expect((await client.listAgents()).map((agent) => agent.id)).not.toContain(created.id);
  await expect(client.getAgent(created.id)).rejects.toThrow(/failed with 410/);
  await expect(client.evaluate(created.id, { humidity: 50 })).rejects.toThrow(/failed with 410/);
});

describe.each([
  ['a lemonade-stand simulation', lemonadeStand, { temperature: 85, 'cost per cup': 0.12 }, { profit: 3.5 }],
  ['a product-ranking app', productRanking, { votes: 120, comments: 30, 'hours since posted': 2 }, { clicks: 17, bounces: 2 }],
  ["the Node client's test", clientTestAgent, { input1: 35 }, { 'test-metric': 1 }],
])('an agent with no name, from %s', (_, agent, inputs, metrics) => {
  test('is created, read, listed, evaluated, given feedback, updated and deleted', async () => {
    const performance = 'performance' in agent ? agent.performance : undefined;
    const created = await client.createAgent(agent);
    expect(created.name).toBe('');
    expect(created.performance).toEqual(performance);
    expect('performance' in created).toBe(performance !== undefined);
    expect(await client.getAgent(created.id)).toEqual(created);
    expect(await client.listAgents()).toContainEqual({ id: created.id, name: '' });
    expect((await client.version(created.latestVersion)).performance).toEqual(performance);

    const { data, evaluationID } = await client.evaluate(created.id, inputs);
    expect(Object.keys(data)).toEqual(Object.keys(agent.outputs));
    expect((await client.feedback(evaluationID, metrics)).data).toEqual(metrics);

    // PUT without a name keeps it "", and the new version carries performance as sent
    const updated = await client.updateAgent(created.id, { ...agent, rules: agent.rules.slice(0, 2) });
    expect(updated.name).toBe('');
    expect(updated.performance).toEqual(performance);
    expect((await client.version(updated.latestVersion)).performance).toEqual(performance);

    expect(await client.deleteAgent(created.id)).toEqual({ message: 'OK' });
    await expect(client.getAgent(created.id)).rejects.toThrow(/failed with 410/);
  });
});

test('the key as ?access_token=, as the clients without header support sent it', async () => {
  const queryClient = new LegacyNodeClient(server.url, apiKey, 'query');
  const created = await queryClient.createAgent(clientTestAgent);
  const { data, evaluationID } = await queryClient.evaluate(created.id, { input1: 10 });
  expect((await queryClient.evaluation(evaluationID)).crisp).toEqual(data);
});

describe('Content-Type charset labels', () => {
  const post = (contentType: string) => {
    const body = JSON.stringify(clientTestAgent);
    return exchange('POST', new URL('agent', server.url).href, { Authorization: `Bearer ${apiKey}`, 'Content-Type': contentType }, body);
  };

  // every label the WHATWG Encoding Standard maps to UTF-8, in any case, quoted or not
  test.each(['utf8', 'UTF8', 'utf-8', 'Utf-8', '"utf8"', 'unicode-1-1-utf-8', 'unicode11utf8', 'UNICODE20UTF8', 'x-unicode20utf8'])(
    'charset=%s is UTF-8',
    async (label) => {
      const { status, body } = await post(`application/json; charset=${label}`);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.name).toBe('');
    },
  );

  test.each(['latin1', 'utf-16', 'us-ascii', 'utf-7', 'utf'])('charset=%s is a clear 400', async (label) => {
    const { status, body } = await post(`application/json; charset=${label}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ status: 'error', error: 'InvalidRequest' });
    expect(body.message).toContain(`"${label}"`);
    expect(body.message).toMatch(/UTF-8/);
  });
});
