import * as learn from '../../learn/index.js';
import { ApiError, validationError } from '../../schema/errors.js';
import { optimizeBodySchema, type OptimizeResult } from '../../schema/optimize.js';
import { versionBody } from '../../core/versions.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';
import { LEARNING_MOST } from '../../core/autopilot.js';

/** One seed for every optimization: the same log always gives the same proposal. */
const SEED = 1;

/**
 * POST /agent/:id/optimize `{metric, goal, dryRun, tuneInputs}`: tunes the agent's numbers on every evaluation
 * of it (any version) whose feedback carries `metric`, and unless `dryRun` saves the proposal as a
 * new version, as a PUT would. The method and its estimates: docs/LEARNING.md.
 */
export async function optimizeAgent(context: Context): Promise<Response> {
  const parsed = optimizeBodySchema.safeParse(context.body);
  if (!parsed.success) throw validationError(parsed.error, 'optimize request');
  const { metric, goal, dryRun, tuneInputs } = parsed.data;
  const { service, userID } = context;
  const agentID = param(context, 'id');
  const read = await service.store.readLearningLog(userID, agentID, { metrics: [metric], most: LEARNING_MOST });
  const { agent } = read;
  if (!read.metricNames.has(metric)) {
    const known = read.metricNames.size > 0 ? `metrics posted so far: ${[...read.metricNames].join(', ')}` : 'no feedback was posted on its evaluations yet';
    throw new ApiError('InvalidRequest', `no feedback on agent "${agentID}" carries the metric "${metric}" (${known})`);
  }
  // the metric as posted (one metric: `values` is its column); densities left out, as ever: the
  // off-policy estimate is autopilot's evidence, not part of this answer
  const log = { ...read, metric: read.values, density: new Float64Array(read.size).fill(NaN) };
  const result = await learn.optimizeAgent(agent, log, {
    goal,
    tuneInputs,
    seed: SEED,
    onProgress: (progress) => service.onOptimizeProgress?.({ agentID, ...progress }),
  });
  if (result.status === 'insufficient') {
    throw new ApiError('Conflict', `not enough feedback to optimize on "${metric}" yet: ${result.message}`);
  }
  const { body, parsedRules } = versionBody(agent.name, result.definition, agent.performance);
  const { inputs, outputs, rules, operators } = body;
  const definition = { inputs, outputs, rules, ...(operators ? { operators } : {}) };
  let versionID: string | null = null;
  if (!dryRun) {
    versionID = (
      await service.store.updateAgentFrom(userID, agentID, agent.latestVersion, body, parsedRules, {
        origin: 'optimised',
        evidence: {
          metric,
          goal,
          evaluationsUsed: result.evaluationsUsed,
          before: result.before,
          after: result.after,
          changes: learn.changesInWords(result.changes),
        },
      })
    ).latestVersion;
  }
  const { evaluationsUsed, before, after, changes } = result;
  const answer: OptimizeResult = { versionID, basedOn: agent.latestVersion, evaluationsUsed, metric, goal, before, after, changes, definition };
  return json(answer);
}
