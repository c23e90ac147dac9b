// The REST interface as an OpenAPI 3.1 document, generated from the same zod schemas that read
// the requests, so the reference cannot drift from what the service checks. GET /openapi.json
// serves it (worker, page and server alike); docs/REST.md's "Endpoints" is rendered from it
// (renderReference), and test/api/openapi.test.ts validates it and the real answers against it.
import { z } from 'zod';
import { accountBodySchema, accountSchema, serviceInfoSchema } from '../schema/account.js';
import { agentBodySchema, agentSchema, agentSummarySchema, agentVersionSchema, setDefinitionSchema, versionSummarySchema } from '../schema/agent.js';
import { autopilotStateSchema, autopilotSwitchSchema, meanIntervalSchema, performanceReportSchema, rollbackBodySchema } from '../schema/autopilot.js';
import { docsURL, errorBodySchema } from '../schema/errors.js';
import { evaluationListSchema } from '../schema/evaluation-list.js';
import { evaluationLogSchema, evaluationMetaSchema, inputsSchema, MAX_BATCH } from '../schema/evaluation.js';
import { feedbackSchema } from '../schema/feedback.js';
import { optimizeBodySchema, optimizeResultSchema } from '../schema/optimize.js';
import { healthSchema } from '../schema/health.js';
import { storageStatusSchema } from '../schema/storage.js';
import { importResultSchema } from '../schema/backup.js';
import { DEFAULT_PULL_LIMIT, MAX_PULL_LIMIT, syncStatusSchema } from '../schema/sync.js';
import { CONTROLLER_VERSION, PACKAGE_VERSION } from './resources/about.js';
import { readReference, SHAPE_NOTATION } from './reference.js';

/** Named schemas: a request body is read as zod's input (defaults optional), an answer as its output. */
const answers = {
  ServiceInfo: serviceInfoSchema,
  Account: accountSchema,
  Agent: agentSchema,
  AgentSummary: agentSummarySchema,
  AgentVersion: agentVersionSchema,
  VersionSummary: versionSummarySchema,
  EvaluationAnswer: z
    .record(z.string(), z.union([z.number(), evaluationMetaSchema]))
    .describe('output name → crisp value (an output no rule reached is absent); with `?meta`, the steps under that name'),
  EvaluationMeta: evaluationMetaSchema,
  EvaluationLog: evaluationLogSchema,
  EvaluationList: evaluationListSchema,
  Feedback: feedbackSchema,
  OptimizeResult: optimizeResultSchema,
  AutopilotState: autopilotStateSchema,
  PerformanceReport: performanceReportSchema,
  MeanInterval: meanIntervalSchema,
  StorageStatus: storageStatusSchema,
  Health: healthSchema,
  ImportResult: importResultSchema,
  SyncStatus: syncStatusSchema,
  Message: z.object({ message: z.literal('OK') }),
  Error: errorBodySchema,
  Set: setDefinitionSchema,
};
const metrics = z.record(z.string().min(1).max(200), z.number()).describe('metric name → number');
const requests = {
  AccountBody: accountBodySchema.unwrap(),
  AgentBody: agentBodySchema,
  Inputs: inputsSchema,
  Batch: z.array(inputsSchema).min(1).max(MAX_BATCH),
  FeedbackBody: z.union([z.object({ data: metrics }), metrics]).describe('{"data": {metric: number}} or the bare map'),
  OptimizeBody: optimizeBodySchema,
  AutopilotSwitch: autopilotSwitchSchema,
  RollbackBody: rollbackBodySchema,
};
type AnswerName = keyof typeof answers;
type RequestName = keyof typeof requests;

type JsonSchema = Record<string, unknown>;
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

interface Operation {
  summary: string;
  /** needs no API key (the route's `access: 'public'`) */
  open?: true;
  description?: string;
  /** the JSON body; `modelFiles` also takes an FCL, FLL or FIS file */
  body?: { schema: JsonSchema; optional?: true; modelFiles?: true };
  /** an NDJSON body (a backup, a sync push) */
  ndjsonBody?: string;
  query?: Array<{ name: string; description: string; schema: JsonSchema }>;
  /** the 200 answer: a JSON schema, or NDJSON described in words */
  answer: JsonSchema | { ndjson: string };
  /** a model file may be asked for instead, through `Accept` */
  modelFileAnswer?: true;
  headers?: Record<string, string>;
}

const MODEL_TYPES = ['text/x-fcl', 'text/x-fll', 'text/x-fis'];
const one = (name: AnswerName | RequestName) => ref(name);
const list = (name: AnswerName) => ({ type: 'array', items: ref(name) });
const text = (description: string) => ({ type: 'string', description });

/** Every route of src/api/routes.ts, keyed `METHOD /path` with the path as OpenAPI writes it (openApiPath). */
export const operations: Record<string, Operation> = {
  'GET /version': { summary: "The service's name, package version and REST contract version (no key needed)", open: true, answer: one('ServiceInfo') },
  'GET /health': { summary: 'Whether the process answers (no key needed)', open: true, answer: one('Health') },
  'GET /ready': { summary: 'Whether the service takes requests now; 503 ServiceUnavailable otherwise (no key needed)', open: true, answer: one('Health') },
  'GET /openapi.json': {
    summary: 'This document: every endpoint with its request and answer (no key needed)',
    open: true,
    answer: { type: 'object', description: 'an OpenAPI 3.1 document' },
  },
  'POST /account': {
    open: true,
    summary: 'Create an account; the answer holds its API key, shown only once (no key needed; 403 when sign-up is off)',
    body: { schema: one('AccountBody'), optional: true },
    answer: one('Account'),
  },
  'GET /agent': { summary: "The account's agents, oldest first", answer: list('AgentSummary') },
  'POST /agent': {
    summary: 'Create an agent (and its first version)',
    body: { schema: one('AgentBody'), modelFiles: true },
    answer: one('Agent'),
    headers: { Location: "the agent's URL" },
  },
  'GET /agent/{id}': { summary: 'An agent as it is now', answer: one('Agent'), modelFileAnswer: true },
  'PUT /agent/{id}': { summary: "Replace the agent's definition: a new version", body: { schema: one('AgentBody'), modelFiles: true }, answer: one('Agent') },
  'DELETE /agent/{id}': { summary: 'Delete the agent; its evaluation logs stay readable, its id answers 410', answer: one('Message') },
  'POST /agent/{id}': {
    summary: 'Evaluate: one inputs object, or a batch (an array) of them; each evaluation is logged',
    description: 'The answer is the outputs (an array of them for a batch); `?meta` adds the steps of the evaluation under that name.',
    body: { schema: { oneOf: [one('Inputs'), one('Batch')] } },
    query: [
      {
        name: 'meta',
        description: '`true`, `1`, `yes` or empty: add the steps as `meta`; any other name than `false`, `0`, `no` adds them under that name',
        schema: { type: 'string' },
      },
      {
        name: 'explore',
        description: 'move each output by Gaussian noise of this share of its range, 0 < explore ≤ 0.5',
        schema: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
      },
    ],
    answer: { oneOf: [one('EvaluationAnswer'), list('EvaluationAnswer')] },
    headers: { 'X-Evaluation-ID': "the id of each evaluation's log, comma-separated for a batch" },
  },
  'GET /agent/{id}/version': { summary: "The agent's versions in the order they were made", answer: list('VersionSummary') },
  'GET /version/{id}': { summary: 'One version: the definition as it was, with its parsed rules', answer: one('AgentVersion'), modelFileAnswer: true },
  'GET /agent/{id}/evaluation': {
    summary: "The agent's evaluations, newest first, each with its feedback (also of a deleted agent)",
    query: [
      { name: 'limit', description: 'how many, 1 to 1000 (default 100)', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
      { name: 'cursor', description: "the previous page's `next`", schema: { type: 'string' } },
      { name: 'version', description: "only this version's evaluations", schema: { type: 'string' } },
      { name: 'feedback', description: '`true`: only those with feedback; `false`: only those without', schema: { type: 'string', enum: ['true', 'false'] } },
    ],
    answer: one('EvaluationList'),
  },
  'GET /evaluation/{id}': { summary: "One evaluation's log: inputs, outputs and every step between", answer: one('EvaluationLog') },
  'DELETE /evaluation/{id}': { summary: "Erase an evaluation's log and its feedback", answer: one('Message') },
  'POST /evaluation/{id}/feedback': {
    summary: 'Say how an answer worked out: metric name → number',
    body: { schema: one('FeedbackBody') },
    answer: one('Feedback'),
  },
  'GET /evaluation/{id}/feedback': { summary: 'The feedback given on an evaluation, oldest first', answer: list('Feedback') },
  'POST /agent/{id}/optimize': {
    summary: 'Tune the agent from its logged feedback: a new version, or with `dryRun` only the proposal',
    body: { schema: one('OptimizeBody') },
    answer: one('OptimizeResult'),
  },
  'GET /agent/{id}/autopilot': {
    summary: 'Whether autopilot learns on this agent, its candidate on trial and every decided trial',
    answer: one('AutopilotState'),
  },
  'PUT /agent/{id}/autopilot': { summary: 'Switch autopilot on or off', body: { schema: one('AutopilotSwitch') }, answer: one('AutopilotState') },
  'POST /agent/{id}/rollback': {
    summary: "Make an earlier version's definition the agent's again, as a new version",
    body: { schema: one('RollbackBody') },
    answer: one('Agent'),
  },
  'GET /agent/{id}/performance': {
    summary: 'Per version: evaluations answered, feedback, and each metric of `performance` with its mean and 95% interval',
    description:
      "Only the metrics the agent's `performance` names now are summarised: an agent without `performance` (after a rollback to a version without it, say) reports no metrics and `feedback: 0`, whatever feedback is stored.",
    answer: one('PerformanceReport'),
  },
  'GET /storage': { summary: "The account's record counts, and the storage the browser grants (null where unknown)", answer: one('StorageStatus') },
  'GET /export': {
    summary: 'The whole account as a backup file',
    answer: { ndjson: 'a header line {"format": "fuzzbox-backup", "version", "exportedAt"}, then one record a line' },
  },
  'POST /import': {
    summary: 'Restore a backup into the account, keeping every id; importing twice changes nothing',
    ndjsonBody: 'a backup as GET /export writes it',
    answer: one('ImportResult'),
  },
  'GET /sync/pull': {
    summary: "A server's records changed after a checkpoint (docs/SYNC.md)",
    query: [
      { name: 'checkpoint', description: 'what the previous pull answered in `checkpoint`; none to start from the beginning', schema: { type: 'string' } },
      {
        name: 'limit',
        description: `records per page, 1 to ${MAX_PULL_LIMIT} (default ${DEFAULT_PULL_LIMIT})`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_PULL_LIMIT },
      },
      { name: 'replica', description: "the replica's own id: its own pushes are left out", schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
    ],
    answer: { ndjson: 'a header line {"format", "version", "exportedAt", "checkpoint", "more"}, then the records as in a backup' },
  },
  'POST /sync/push': {
    summary: "Records a replica wrote, merged into the server's (docs/SYNC.md)",
    query: [{ name: 'replica', description: "the replica's own id", schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } }],
    ndjsonBody: 'backup records, one a line',
    answer: one('ImportResult'),
  },
  'GET /sync/status': { summary: "A syncing browser's last round, records waiting and last error (404 when sync is off)", answer: one('SyncStatus') },
};

/** `/agent/:id` → `/agent/{id}`: the route table's path as OpenAPI writes it. */
export const openApiPath = (routePath: string) => routePath.replace(/:([A-Za-z]+)/g, '{$1}');

function components(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const convert = (named: Record<string, z.ZodType>, io: 'input' | 'output') => {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
    const { schemas: converted } = z.toJSONSchema(registry, { io, uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' });
    for (const [id, schema] of Object.entries(converted)) {
      const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
      schemas[id] = rest;
    }
  };
  convert(answers, 'output');
  convert(requests, 'input');
  return schemas;
}

const errorAnswer = {
  description: `An error: \`error\` names it (${docsURL('REST.md#errors')}), \`message\` says what to fix, \`issues\` lists invalid fields`,
  content: { 'application/json': { schema: ref('Error') } },
};

function operationObject(key: string, operation: Operation): JsonSchema {
  const [method, path] = key.split(' ') as [string, string];
  const parameters = [
    ...[...path.matchAll(/\{([A-Za-z]+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(operation.query ?? []).map(({ name, description, schema }) => ({ name, in: 'query', required: false, description, schema })),
  ];
  const content: Record<string, JsonSchema> = {};
  if (operation.body) {
    content['application/json'] = { schema: operation.body.schema };
    if (operation.body.modelFiles) for (const type of MODEL_TYPES) content[type] = { schema: text(`an FCL, FLL or FIS model file (${docsURL('FORMATS.md')})`) };
  }
  if (operation.ndjsonBody) content['application/x-ndjson'] = { schema: text(operation.ndjsonBody) };
  const answerContent: Record<string, JsonSchema> =
    'ndjson' in operation.answer
      ? { 'application/x-ndjson': { schema: text(operation.answer.ndjson as string) } }
      : { 'application/json': { schema: operation.answer } };
  if (operation.modelFileAnswer) for (const type of MODEL_TYPES) answerContent[type] = { schema: text('the agent as a model file, when `Accept` prefers one') };
  return {
    // `GET /agent/{id}/version` → getAgentIdVersion
    operationId: key
      .toLowerCase()
      .replace(/[^a-z]+([a-z])/g, (_, letter: string) => letter.toUpperCase())
      .replace(/[^A-Za-z]/g, ''),
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.open ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(Object.keys(content).length > 0 ? { requestBody: { required: !operation.body?.optional, content } } : {}),
    responses: {
      '200': {
        description: 'OK',
        content: answerContent,
        ...(operation.headers
          ? { headers: Object.fromEntries(Object.entries(operation.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
          : {}),
      },
      default: errorAnswer,
    },
  };
}

/** The OpenAPI 3.1 document of the interface; `serverURL` is where it answers (its base path). */
export function openApiDocument(serverURL = '/'): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [key, operation] of Object.entries(operations)) {
    const [method, path] = key.split(' ') as [string, string];
    (paths[path] ??= {})[method.toLowerCase()] = operationObject(key, operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'fuzzbox',
      version: PACKAGE_VERSION,
      summary: `Fuzzy-logic agents over REST, contract version ${CONTROLLER_VERSION}`,
      description:
        'Every answer is JSON (backups and sync NDJSON). Send the API key of POST /account as `Authorization: Bearer <key>` ' +
        '(or `?access_token=`). Every error is `{"status": "error", "error": NAME, "message": …, "issues"?: [{path, message}]}`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverURL }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: components(),
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'the `apiKey` POST /account answered' } },
    },
  };
}

/** The document as Markdown: a table of the endpoints, then every named shape (docs/REST.md, "Endpoints"). */
export function renderReference(): string {
  const { endpoints, shapes } = readReference(openApiDocument());
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const lines = ['| endpoint | request | answer | what it does |', '|---|---|---|---|'];
  for (const { endpoint, open, request, answer, summary } of endpoints) {
    lines.push(`| \`${endpoint}\`${open ? ' (no key)' : ''} | ${cell(request)} | ${cell(answer)} | ${cell(summary)} |`);
  }
  lines.push('', `Shapes (${SHAPE_NOTATION}):`, '');
  for (const { name, shape } of shapes) lines.push(`- **${name}**: \`${shape}\``);
  return lines.join('\n');
}
