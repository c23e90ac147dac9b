// What an app's page writes with fuzzbox. test/package/consumer.test.ts type-checks this file
// against the packed package in every moduleResolution mode with strict and skipLibCheck off.
// Each `@ts-expect-error` is itself a test: if the types it relies on resolved to `any`, the
// directive would be unused and the check fails with TS2578.
import { ApiError, createFuzzyService, type ErrorBody, type FuzzyService } from 'fuzzbox';
import {
  AgentValidationError,
  compileAgent,
  evaluate,
  evaluateBatch,
  parseRule,
  printRule,
  RuleSyntaxError,
  type AgentDefinition,
  type CompiledAgent,
  type Outputs,
  type RuleAst,
  type Trace,
} from 'fuzzbox/engine';
import {
  FuzzyApiError,
  FuzzyClient,
  registerFuzzyWorker,
  type Agent,
  type AgentInput,
  type Evaluation,
  type FuzzyWorker,
  type OptimizeResult,
} from 'fuzzbox/client';

// Agents written as constants: readonly all the way down.
const fan = {
  name: 'fan',
  inputs: { temperature: { cold: [0, 10, 20], hot: [10, 20, 30] } },
  outputs: { speed: { slow: [0, 25, 50], fast: [50, 75, 100] } },
  rules: ['IF temperature IS cold THEN speed IS slow', 'IF temperature IS hot THEN speed IS fast'],
} as const;
const definition: AgentDefinition = fan;

// The engine
export const compiled: CompiledAgent = compileAgent(fan);
export const crisp: Outputs = evaluate(compiled, { temperature: 12 }).crisp;
// @ts-expect-error crisp values are numbers
export const notAString: string = evaluate(compiled, { temperature: 12 }).crisp['speed'];
export const trace: Trace = evaluate(compiled, { temperature: 12 }, { trace: true });
// @ts-expect-error the fast path carries no trace
export const noTrace = evaluate(compiled, { temperature: 12 }).fuzzified;
export const batch: Outputs[] = evaluateBatch(compiled, [{ temperature: 1 }, { temperature: 25 }] as const);
// @ts-expect-error an agent needs rules
compileAgent({ inputs: {}, outputs: {} });
export const ast: RuleAst = parseRule(fan.rules[0]);
export const text: string = printRule(ast);
// @ts-expect-error printRule prints text
export const notANumber: number = printRule(ast);

export function describeFailure(error: unknown): string {
  if (error instanceof RuleSyntaxError) return `${error.rule} at column ${error.column.toFixed(0)}`;
  if (error instanceof AgentValidationError) return error.issues.map((issue) => issue.path).join(', ');
  if (error instanceof FuzzyApiError) return `${error.status.toFixed(0)}: ${error.issues.length}`;
  if (error instanceof ApiError) return error.message;
  return String(error);
}

// The service, as one function of Request
export const service: FuzzyService = createFuzzyService({ dbName: 'consumer', basePath: '/api/' });
export const answer: Promise<Response> = service.handle(new Request('http://local/api/version'));
// @ts-expect-error handle takes a Request
service.handle('/version');
export async function errorName(response: Response): Promise<ErrorBody['error']> {
  return ((await response.json()) as ErrorBody).error;
}

// The worker's registration and the typed client
export async function app(): Promise<void> {
  const worker: FuzzyWorker = await registerFuzzyWorker('/fuzzbox-sw.js', { timeout: 5000 });
  await worker.update();
  const client = new FuzzyClient({ apiKey: 'key' });
  const agent: Agent = await client.createAgent(fan);
  await client.updateAgent(agent.id, { ...definition, name: 'fan, renamed' });
  const frozen: AgentInput = Object.freeze({ ...fan, rules: Object.freeze([...fan.rules]) });
  await client.createAgent(frozen);
  // @ts-expect-error an agent needs rules
  await client.createAgent({ name: 'no rules', inputs: {}, outputs: {} });
  const evaluation: Evaluation = await client.evaluate(agent.id, { temperature: 12 }, { explore: 0.1 });
  // @ts-expect-error evaluation ids are strings
  const wrongID: number = evaluation.evaluationID;
  await client.postFeedback(evaluation.evaluationID, { comfort: 4 } as const);
  const result: OptimizeResult = await client.optimize(agent.id, { metric: 'comfort', goal: 'maximize' });
  // @ts-expect-error the goal is "maximize" or "minimize"
  await client.optimize(agent.id, { metric: 'comfort', goal: 'more' });
  console.log(wrongID, result.before, result.after, result.changes.length);
}
