import { z } from 'zod';
import type { AgentDefinition } from '../engine/types.js';
import { MAX_FORMULA_LENGTH } from '../engine/limits.js';
import { TERM_KINDS, TERM_PARAMETERS } from '../engine/terms.js';
import type { TermDefinition, TermKind } from '../engine/types.js';
import { OPERATOR_CHOICES } from '../engine/validate.js';
import { recordError } from './errors.js';

const nameText = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, { error: `${what} must not be empty` })
    .max(200, { error: `${what} must be at most 200 characters` });

/** 2 points = shoulder (slope), 3 = triangle, 4 = trapezoid. Ordering is checked by the engine. */
export const pointsSchema = z
  .array(z.number({ error: 'every point of a set must be a finite number' }), {
    error: 'a set must be an array of 2, 3 or 4 numbers',
  })
  .min(2, { error: 'a set needs 2 (slope), 3 (triangle) or 4 (trapezoid) points' })
  .max(4, { error: 'a set needs 2 (slope), 3 (triangle) or 4 (trapezoid) points' });

const parameter = (kind: string, name: string) => z.number({ error: `${kind}'s ${name} must be a finite number` });

/** The parameters of one kind beside `type`: its numbers (TERM_PARAMETERS), or a discrete's points, a linear term's coefficients, a function term's formula. */
function termShape(kind: TermKind): z.ZodRawShape {
  const height = { height: z.number({ error: `${kind}'s height must be a number above 0 and at most 1` }).optional() };
  if (kind === 'discrete') {
    const point = z.tuple([parameter(kind, 'x'), parameter(kind, 'y')], { error: 'each point of a discrete term is [x, y]' });
    return { points: z.array(point, { error: "a discrete term's points are [[x, y], …]" }), ...height };
  }
  if (kind === 'linear') {
    return {
      coefficients: z.record(nameText('an input name'), parameter(kind, 'coefficient'), {
        error: recordError('a linear term\'s coefficients map input name → number, e.g. {"x": 2}'),
      }),
      constant: parameter(kind, 'constant').optional(),
    };
  }
  if (kind === 'function') {
    return {
      formula: z
        .string({ error: 'a function term\'s formula is a string such as "2 * x + sin(angle)"' })
        .max(MAX_FORMULA_LENGTH, { error: `a function term's formula has at most ${MAX_FORMULA_LENGTH} characters` }),
    };
  }
  const numbers = Object.fromEntries(TERM_PARAMETERS[kind].map((name) => [name, parameter(kind, name)]));
  return kind === 'constant' ? numbers : { ...numbers, ...height };
}

/** A term named by its kind, e.g. `{"type": "gaussian", "mean": 5, "standardDeviation": 1.5}`; values are checked by the engine. */
export const termSchema = z.discriminatedUnion(
  'type',
  TERM_KINDS.map((kind) =>
    z.strictObject(
      { type: z.literal(kind), ...termShape(kind) },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `a ${kind} term has ${['type', ...Object.keys(termShape(kind))].join(', ')}, not ${issue.keys.join(', ')}`
            : undefined,
      },
    ),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  { error: `a set is an array of 2 (slope), 3 (triangle) or 4 (trapezoid) numbers, or a term {"type": kind, …} with kind one of ${TERM_KINDS.join(', ')}` },
) as unknown as z.ZodType<TermDefinition, TermDefinition>;

/** A set: fuzzy.ai's points, or a term named by its kind (docs/ENGINE.md, "Term kinds, universes, operators"). */
export const setDefinitionSchema = z.union([pointsSchema, termSchema], {
  error: `a set is an array of 2 (slope), 3 (triangle) or 4 (trapezoid) numbers, or a term {"type": kind, …} with kind one of ${TERM_KINDS.join(', ')}`,
});

export const variableSchema = z.record(nameText('a set name'), setDefinitionSchema, {
  error: recordError('a variable must be an object mapping set name → set definition'),
});

const variablesSchema = (what: 'inputs' | 'outputs') =>
  z.record(nameText('a variable name'), variableSchema, {
    error: recordError(`${what} must be an object mapping variable name → { set name → set definition }`),
  });

/** metric name → the direction feedback on it should drive the agent, e.g. `{"profit": "maximize"}` */
export const performanceSchema = z.record(
  nameText('a metric name'),
  z.enum(['maximize', 'minimize'], { error: 'a metric\'s goal must be "maximize" or "minimize"' }),
  { error: recordError('performance must be an object mapping metric name → "maximize" or "minimize", e.g. {"profit": "maximize"}') },
);
export type Performance = z.infer<typeof performanceSchema>;

const operatorChoice = <const Values extends readonly [string, ...string[]]>(key: string, values: Values) =>
  z.enum(values, { error: `${key} is ${values.map((value) => `"${value}"`).join(' or ')}` }).optional();

const outputOperatorsSchema = z.strictObject(
  {
    implication: operatorChoice('implication', OPERATOR_CHOICES.implication),
    aggregation: operatorChoice('aggregation', OPERATOR_CHOICES.aggregation),
    defuzzification: operatorChoice('defuzzification', OPERATOR_CHOICES.defuzzification),
    default: z.number({ error: 'default is a number, or null to leave the output out' }).nullable().optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown setting ${issue.keys.map((key) => `"${key}"`).join(', ')}: an output chooses "implication", "aggregation", "defuzzification" and "default"`
        : 'an output\'s operators are an object such as {"defuzzification": "weightedAverage"}',
  },
);

const rangeSchema = z.tuple(
  [z.number({ error: 'a range is [min, max], two finite numbers' }), z.number({ error: 'a range is [min, max], two finite numbers' })],
  {
    error: 'a range is [min, max], two finite numbers',
  },
);

/** The agent's operators and inference settings, each optional (docs/ENGINE.md, "Operators" and "Term kinds, universes, operators"). */
export const operatorsSchema = z.strictObject(
  {
    and: operatorChoice('and', OPERATOR_CHOICES.and),
    or: operatorChoice('or', OPERATOR_CHOICES.or),
    implication: operatorChoice('implication', OPERATOR_CHOICES.implication),
    aggregation: operatorChoice('aggregation', OPERATOR_CHOICES.aggregation),
    defuzzification: operatorChoice('defuzzification', OPERATOR_CHOICES.defuzzification),
    activationThreshold: z
      .number({ error: 'activationThreshold is a number from 0 to 1' })
      .min(0, { error: 'activationThreshold is a number from 0 to 1' })
      .max(1, { error: 'activationThreshold is a number from 0 to 1' })
      .optional(),
    ranges: z.record(nameText('a variable name'), rangeSchema, { error: recordError('ranges map variable name → [min, max]') }).optional(),
    outputs: z
      .record(nameText('an output name'), outputOperatorsSchema, { error: recordError('operators.outputs maps output name → its own operators') })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown operator ${issue.keys.map((key) => `"${key}"`).join(', ')}: an agent chooses "and", "or", "implication", "aggregation", "defuzzification", "activationThreshold", "ranges" and "outputs"`
        : 'operators must be an object such as {"and": "product", "or": "probabilisticSum", "implication": "product"}',
  },
);

/**
 * The body of POST /agent and PUT /agent/:id: only these six fields are read. `name` may be
 * absent (fuzzy.ai's own apps post agents without one) and then is `""`; `performance` may be
 * absent and then stays absent.
 */
export const agentBodySchema = z.object(
  {
    name: z.string({ error: 'name must be a string' }).max(200, { error: 'name must be at most 200 characters' }).default(''),
    inputs: variablesSchema('inputs'),
    outputs: variablesSchema('outputs'),
    rules: z.array(z.string({ error: 'every rule must be a string' }), {
      error: 'rules must be an array of strings, one rule per string',
    }),
    performance: performanceSchema.optional(),
    operators: operatorsSchema.optional(),
  },
  { error: 'the body must be a JSON object with inputs, outputs and rules (and optionally name and performance)' },
);
export type AgentBody = z.infer<typeof agentBodySchema>;

/**
 * An agent as a caller writes it for POST /agent and PUT /agent/:id: read-only all the way down,
 * so an `as const` object, a frozen one, or the engine's `AgentDefinition` all fit.
 * agentBodySchema is what reads it; test/package/types.test.ts keeps the two in step.
 */
export interface AgentInput extends AgentDefinition {
  /** default `""` */
  readonly name?: string;
  readonly performance?: Readonly<Performance>;
}

const isoDate = z.iso.datetime({ precision: 3 });

export const agentSchema = agentBodySchema.extend({
  id: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
  latestVersion: z.string(),
});
/** An agent as every endpoint returns it. */
export type Agent = z.infer<typeof agentSchema>;

export const agentSummarySchema = agentSchema.pick({ id: true, name: true });
/** One row of GET /agent. */
export type AgentSummary = z.infer<typeof agentSummarySchema>;

export const agentVersionSchema = agentBodySchema.extend({
  id: z.string(),
  versionOf: z.string(),
  userID: z.string(),
  /** One rule AST per rule string, as the engine's `parseRule` returns it. */
  parsed_rules: z.array(z.unknown()),
  createdAt: isoDate,
});
/** The immutable snapshot taken at POST and at every successful PUT. */
export type AgentVersion = z.infer<typeof agentVersionSchema>;

/**
 * Why a version exists: a POST, a PUT, `POST /optimize`, autopilot's proposal, or `POST /rollback`.
 * `optimised` keeps its British spelling deliberately: it is stored data (databases, backups,
 * replicas of any version), so changing it would give one origin two values (docs/REST.md).
 */
export const versionOriginSchema = z.enum(['created', 'updated', 'optimised', 'autopilot', 'rolled back']);
export type VersionOrigin = z.infer<typeof versionOriginSchema>;

export const versionSummarySchema = agentVersionSchema.pick({ id: true, createdAt: true }).extend({
  /** why the version exists (docs/LEARNING.md); absent on versions written before it was recorded */
  origin: versionOriginSchema.optional(),
});
/** One row of GET /agent/:id/version. */
export type VersionSummary = z.infer<typeof versionSummarySchema>;
