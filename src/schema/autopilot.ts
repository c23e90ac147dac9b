import { z } from 'zod';
import { performanceSchema, versionOriginSchema } from './agent.js';

const isoDate = z.iso.datetime({ precision: 3 });

/** The body of PUT /agent/:id/autopilot. */
export const autopilotSwitchSchema = z.strictObject(
  { enabled: z.boolean({ error: 'enabled must be true or false' }) },
  { error: 'the body must be {"enabled": true} or {"enabled": false}' },
);

/** The body of POST /agent/:id/rollback. */
export const rollbackBodySchema = z.strictObject(
  { version: z.string({ error: 'version must be the id of one of the agent\'s versions' }).min(1, { error: 'version must not be empty' }) },
  { error: 'the body must be {"version": "<id of an earlier version>"}' },
);

/** A mean with its 95% confidence interval; `mean` is null without values, `low`/`high` below 2 values (JSON has no infinity). */
export const meanIntervalSchema = z.object({
  n: z.number().int().nonnegative(),
  mean: z.number().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
});
export type MeanInterval = z.infer<typeof meanIntervalSchema>;

/** A difference with its 95% interval, in the metric's units. */
const gainSchema = z.object({ value: z.number(), low: z.number(), high: z.number() });

/** GET and PUT /agent/:id/autopilot (docs/REST.md, "Learning on autopilot"). */
export const autopilotStateSchema = z.object({
  enabled: z.boolean(),
  /** `enabled` and the agent has `performance` */
  active: z.boolean(),
  performance: performanceSchema.nullable(),
  /** the widest spread of autopilot's draws, and every output's at first, in shares of its range */
  exploration: z.number(),
  /** each output's spread now, in shares of its range: `exploration`, or narrower where exploring it costs */
  spread: z.record(z.string(), z.number()),
  candidateShare: z.number(),
  proposeEvery: z.number().int(),
  window: z.number().int(),
  usedFeedback: z.number().int().nonnegative(),
  candidate: z.object({ versionID: z.string(), basedOn: z.string(), since: isoDate }).nullable(),
  trials: z.array(
    z.object({
      versionID: z.string(),
      basedOn: z.string(),
      outcome: z.enum(['adopted', 'dropped', 'abandoned']),
      pValue: z.number().nullable(),
      current: meanIntervalSchema,
      candidate: meanIntervalSchema,
      /** what the trial measured the candidate to gain; trials decided before fuzzbox recorded it have none */
      gain: gainSchema.optional(),
      decidedAt: isoDate,
    }),
  ),
  /**
   * What autopilot's adopted versions gained together: the latest version against the version
   * they started from, per metric (latest minus `since`, in the metric's units, 95% interval);
   * null before the first adoption or once the latest version is not autopilot's.
   */
  gain: z
    .object({
      since: z.string(),
      versionID: z.string(),
      evaluationsUsed: z.number().int().nonnegative(),
      metrics: z.record(z.string(), gainSchema),
      estimatedAt: isoDate,
    })
    .nullable(),
});
export type AutopilotState = z.infer<typeof autopilotStateSchema>;

/** GET /agent/:id/performance: per version, oldest first. */
export const performanceReportSchema = z.object({
  latestVersion: z.string(),
  /** the agent's metrics: the report summarises feedback on these only, so an agent without `performance` has none */
  performance: performanceSchema.nullable(),
  versions: z.array(
    z.object({
      id: z.string(),
      createdAt: isoDate,
      origin: versionOriginSchema.nullable(),
      /** why the version exists: `{to, from}` for a rollback, the estimates of an optimisation or a proposal */
      evidence: z.record(z.string(), z.unknown()).nullable(),
      evaluations: z.number().int().nonnegative(),
      /** evaluations with feedback on every metric of `performance` */
      feedback: z.number().int().nonnegative(),
      metrics: z.record(z.string(), meanIntervalSchema),
    }),
  ),
});
export type PerformanceReport = z.infer<typeof performanceReportSchema>;
