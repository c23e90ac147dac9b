import { z } from 'zod';
import { TERM_KINDS } from '../engine/terms.js';
import type { TermKind } from '../engine/types.js';
import { agentBodySchema } from './agent.js';

/** The body of POST /agent/:id/optimize. */
export const optimizeBodySchema = z.object(
  {
    metric: z
      .string({ error: 'metric must be the name of a metric posted as feedback, e.g. "profit"' })
      .min(1, { error: 'metric must not be empty' })
      .max(200, { error: 'metric must be at most 200 characters' }),
    goal: z.enum(['maximize', 'minimize'], { error: 'goal must be "maximize" or "minimize"' }),
    dryRun: z.boolean({ error: 'dryRun must be true or false' }).default(false),
    /** move the input sets too, not only the output sets and rule weights (docs/LEARNING.md) */
    tuneInputs: z.boolean({ error: 'tuneInputs must be true or false' }).default(false),
  },
  { error: 'the body must be a JSON object {"metric": "…", "goal": "maximize" | "minimize", "dryRun": false}' },
);
export type OptimizeBody = z.infer<typeof optimizeBodySchema>;
/** POST /agent/:id/optimize as a caller writes it: `dryRun` and `tuneInputs` default to false. */
export type OptimizeInput = z.input<typeof optimizeBodySchema>;

const change = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('set'),
    side: z.enum(['inputs', 'outputs']),
    variable: z.string(),
    set: z.string(),
    /** index of the point within the set definition */
    point: z.number().int(),
    from: z.number(),
    to: z.number(),
  }),
  z.object({
    kind: z.literal('term'),
    side: z.enum(['inputs', 'outputs']),
    variable: z.string(),
    set: z.string(),
    /** the set's kind, e.g. "gaussian" or "linear" */
    type: z.enum(TERM_KINDS as [TermKind, ...TermKind[]]),
    /** the member of the term that moved, e.g. "mean", "standardDeviation", "coefficients", "constant", "points" */
    parameter: z.string(),
    /** for a linear term's "coefficients": the input whose coefficient moved */
    input: z.string().optional(),
    /** for a discrete term's "points": the index of the [x, y] whose x moved */
    point: z.number().int().optional(),
    from: z.number(),
    to: z.number(),
  }),
  z.object({ kind: z.literal('weight'), rule: z.number().int(), from: z.number(), to: z.number() }),
]);

export const optimizeResultSchema = z.object({
  /** the new version, or null for a dry run (nothing saved) */
  versionID: z.string().nullable(),
  /** the version the proposal was tuned from */
  basedOn: z.string(),
  evaluationsUsed: z.number().int(),
  metric: z.string(),
  goal: z.enum(['maximize', 'minimize']),
  /** estimated mean metric of the agent as it was, at the logged inputs (docs/LEARNING.md) */
  before: z.number(),
  /** the same estimate for the proposed agent */
  after: z.number(),
  changes: z.array(change),
  /** the proposed inputs, outputs, rules and operators (saved as the new version unless dryRun) */
  definition: agentBodySchema.pick({ inputs: true, outputs: true, rules: true, operators: true }),
});
/** The answer of POST /agent/:id/optimize. */
export type OptimizeResult = z.infer<typeof optimizeResultSchema>;
