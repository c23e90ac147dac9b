import { z } from 'zod';

const inputValue = z.number({ error: 'an input value must be a finite number' });

/** One set of inputs: input name → crisp value. Unknown names are checked against the agent later. */
export const inputsSchema = z
  .record(z.string(), inputValue, { error: 'inputs must be a JSON object mapping input name → number' })
  .refine((inputs) => Object.keys(inputs).length > 0, {
    error: 'inputs must name at least one input',
  });

export const MAX_BATCH = 4096;

/** A batch body of POST /agent/:id: 1..4096 inputs objects, each its own evaluation. */
export const batchSchema = z
  .array(inputsSchema)
  .min(1, { error: 'a batch must hold at least one inputs object' })
  .max(MAX_BATCH, { error: `a batch holds at most ${MAX_BATCH} inputs objects; split it into several requests` });

const point = z.tuple([z.number(), z.number()]);
const polygon = z.array(point);

/** The steps of an evaluation (docs/ENGINE.md, "The pipeline"), as the evaluation log and `?meta=` carry them. */
export const traceSchema = z.object({
  fuzzified: z.record(z.string(), z.record(z.string(), z.number())),
  rules: z.array(z.string()),
  inferred: z.record(z.string(), z.record(z.string(), z.number())),
  clipped: z.record(z.string(), z.record(z.string(), polygon)),
  combined: z.record(z.string(), polygon),
  centroid: z.record(z.string(), point),
});

/** The id of an evaluation or feedback: a UUID v4 when fuzzbox made it; an import keeps a backup's own (1..200 characters). */
export const recordID = z.string().min(1).max(200);

export const evaluationLogSchema = traceSchema.extend({
  reqID: recordID,
  userID: z.string(),
  agentID: z.string(),
  versionID: z.string(),
  input: z.record(z.string(), z.number()),
  crisp: z.record(z.string(), z.number()),
  /** present when the evaluation explored (`?explore=`): the outputs the app actually received */
  returned: z.record(z.string(), z.number()).optional(),
  /** autopilot's answers: the density `returned` was drawn with, in shares of each output's range */
  density: z.number().optional(),
  createdAt: z.iso.datetime({ precision: 3 }),
});
/** GET /evaluation/:id */
export type EvaluationLog = z.infer<typeof evaluationLogSchema>;

export const evaluationMetaSchema = evaluationLogSchema.omit({
  userID: true,
  agentID: true,
  versionID: true,
  input: true,
  crisp: true,
  returned: true,
  density: true,
});
/** What `?meta=` adds to an inference result. */
export type EvaluationMeta = z.infer<typeof evaluationMetaSchema>;
