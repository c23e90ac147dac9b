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
  { version: z.string({ error: "version must be the id of one of the agent's versions" }).min(1, { error: 'version must not be empty' }) },
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
export const gainIntervalSchema = z.object({ value: z.number(), low: z.number(), high: z.number() });
export type GainInterval = z.infer<typeof gainIntervalSchema>;

/** One decided trial of a candidate version (docs/LEARNING.md, "Trying a proposal"). */
export const trialSchema = z.object({
  versionID: z.string(),
  basedOn: z.string(),
  outcome: z.enum(['adopted', 'dropped', 'abandoned']),
  /** one-sided p-value of "the candidate is better"; null when abandoned undecided */
  pValue: z.number().nullable(),
  current: meanIntervalSchema,
  candidate: meanIntervalSchema,
  /** adopted and dropped trials: the candidate's gain over `basedOn` as the trial measured it, relative to the situation; trials decided before fuzzbox recorded it have none */
  gain: gainIntervalSchema.optional(),
  decidedAt: isoDate,
});
export type Trial = z.infer<typeof trialSchema>;

/** The latest version against the version autopilot's run of adoptions started from, per metric of `performance`. */
export const autopilotGainSchema = z.object({
  /**
   * the version autopilot started from: the newest one no trial adopted, or, when it served too
   * few of the evaluations read, the oldest adopted after it that served enough
   */
  since: z.string(),
  /** the latest version, when it was estimated */
  versionID: z.string(),
  /** evaluations with feedback the estimate used */
  evaluationsUsed: z.number().int().nonnegative(),
  /** per metric: latest minus `since`, in the metric's units, with a 95% interval */
  metrics: z.record(z.string(), gainIntervalSchema),
  estimatedAt: isoDate,
});
export type AutopilotGain = z.infer<typeof autopilotGainSchema>;

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
  trials: z.array(trialSchema),
  /**
   * What autopilot's adopted versions gained together: the latest version against the version
   * they started from, per metric (latest minus `since`, in the metric's units, 95% interval);
   * null before the first adoption or once the latest version is not autopilot's.
   */
  gain: autopilotGainSchema.nullable(),
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
      /** why the version exists: `{to, from}` for a rollback, the estimates of an optimization or a proposal */
      evidence: z.record(z.string(), z.unknown()).nullable(),
      evaluations: z.number().int().nonnegative(),
      /** evaluations with feedback on every metric of `performance` */
      feedback: z.number().int().nonnegative(),
      metrics: z.record(z.string(), meanIntervalSchema),
    }),
  ),
});
export type PerformanceReport = z.infer<typeof performanceReportSchema>;
