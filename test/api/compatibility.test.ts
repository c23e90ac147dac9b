// Behaves as the earlier hosted service's clients did: anything but 200 is a failure, the
// evaluation id is read from `X-Evaluation-ID` by its exact name, DELETE carries a `[]` body
// (a GET cannot carry one in any fetch implementation, so that quirk only reaches DELETE),
// `?meta=audit` is asked for, and feedback is posted as a bare metric map.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestService, type TestService } from '../support/service.js';

class LegacyClient {
  constructor(
    private readonly baseURL: string,
    private readonly apiKey: string,
  ) {}

  private async send(method: string, path: string, body?: unknown) {
    const sendsBody = body !== undefined || method === 'DELETE';
    const response = await fetch(`${this.baseURL}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.apiKey}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      ...(sendsBody ? { body: JSON.stringify(body ?? []) } : {}),
    });
    // the old clients treated every other status, 201 and 204 included, as an error
    if (response.status !== 200) throw new Error(`${method} ${path} failed with ${response.status}: ${await response.text()}`);
    if (!response.headers.get('Content-Type')?.startsWith('application/json')) throw new Error('not JSON');
    return { data: await response.json(), headers: response.headers };
  }

  listAgents = async () => (await this.send('GET', 'agent')).data as Array<{ id: string; name: string }>;
  createAgent = async (agent: unknown) => (await this.send('POST', 'agent', agent)).data;
  getAgent = async (id: string) => (await this.send('GET', `agent/${id}`)).data;
  updateAgent = async (id: string, agent: unknown) => (await this.send('PUT', `agent/${id}`, agent)).data;
  deleteAgent = async (id: string) => (await this.send('DELETE', `agent/${id}`)).data;
  versions = async (id: string) => (await this.send('GET', `agent/${id}/version`)).data;
  evaluation = async (id: string) => (await this.send('GET', `evaluation/${id}`)).data;
  feedback = async (id: string, metrics: Record<string, number>) => (await this.send('POST', `evaluation/${id}/feedback`, metrics)).data;

  async evaluate(id: string, inputs: unknown, audit = false) {
    const { data, headers } = await this.send('POST', `agent/${id}${audit ? '?meta=audit' : ''}`, inputs);
    const evaluationID = headers.get('X-Evaluation-ID');
    if (!evaluationID) throw new Error('missing X-Evaluation-ID');
    return { data, evaluationID };
  }
}

let t: TestService;
let client: LegacyClient;
beforeAll(async () => {
  t = await createTestService();
  client = new LegacyClient(t.baseURL, await t.signup('legacy'));
});
afterAll(() => t.close());

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

test('the whole life of an agent, as the earlier clients drove it', async () => {
  const created = await client.createAgent(fan);
  expect(created.name).toBe('fan speed');
  expect((await client.listAgents()).map((agent) => agent.id)).toEqual([created.id]);
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

  const batch = await client.evaluate(created.id, [{ 'room temperature': 12 }, { humidity: 30, 'room temperature': 33 }]);
  expect(batch.evaluationID.split(',')).toHaveLength(2);
  expect(batch.data).toHaveLength(2);
  // 12 °C, humidity missing: the temperature range is 10..35 (midpoint 22.5); cold [10,20] falls
  // (midpoint 15) → (20−12)/10 = 0.8; warm and hot are 0. Rule 1 gives slow 0.8; the trend rule
  // pairs cold with slow at 0.8 × 0.8 = 0.64; rule 2 needs humidity and does not fire. So slow is
  // inferred at 0.8. Fan speed range 0..1500 (midpoint 750): slow [0,500] falls, the trapezoid
  // [0,0,0,500] cut at 0.8 is (0,0) (0,0.8) (100,0.8) (500,0): a rectangle of area 80 centred at 50
  // and a triangle of area 160 centred at (100+100+500)/3, so x = (80·50 + 160·700/3)/240 = 1550/9.
  expect(batch.data[0]['fan speed']).toBeCloseTo(1550 / 9, 9);

  const updated = await client.updateAgent(created.id, { ...fan, name: 'fan speed v2' });
  expect(updated.latestVersion).not.toBe(created.latestVersion);
  expect(await client.versions(created.id)).toHaveLength(2);

  expect(await client.deleteAgent(created.id)).toEqual({ message: 'OK' });
  expect(await client.listAgents()).toEqual([]);
  await expect(client.getAgent(created.id)).rejects.toThrow(/failed with 410/);
});
