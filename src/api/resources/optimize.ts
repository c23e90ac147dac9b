import type { AgentDefinition } from '../../engine/types.js';
import * as learn from '../../learn/index.js';
import type { AgentBody } from '../../schema/agent.js';
import { ApiError, validationError } from '../../schema/errors.js';
import { optimizeBodySchema, type OptimizeResult } from '../../schema/optimize.js';
import { compileOrReject } from '../compiled-agents.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';
import { LEARNING_MOST } from '../autopilot.js';

/** One seed for every optimisation: the same log always gives the same proposal. */
const SEED = 1;

/** The proposal in the REST interface's (mutable) shape. */
function bodyOf(definition: AgentDefinition): Pick<AgentBody, 'inputs' | 'outputs' | 'rules' | 'operators'> {
  const { inputs, outputs, rules, operators } = structuredClone(definition) as Pick<AgentBody, 'inputs' | 'outputs' | 'rules' | 'operators'>;
  return { inputs, outputs, rules, ...(operators && { operators }) };
}

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
    throw new ApiError('Conflict', `not enough feedback to optimise on "${metric}" yet: ${result.message}`);
  }
  const definition = bodyOf(result.definition);
  let versionID: string | null = null;
  if (!dryRun) {
    const parsedRules = [...compileOrReject(definition).parsedRules];
    const body = { name: agent.name, ...definition, ...(agent.performance ? { performance: agent.performance } : {}) };
    versionID = (
      await service.store.updateAgentFrom(userID, agentID, agent.latestVersion, body, parsedRules, {
        origin: 'optimised',
        evidence: { metric, goal, evaluationsUsed: result.evaluationsUsed, before: result.before, after: result.after },
      })
    ).latestVersion;
  }
  const { evaluationsUsed, before, after, changes } = result;
  const answer: OptimizeResult = { versionID, basedOn: agent.latestVersion, evaluationsUsed, metric, goal, before, after, changes, definition };
  return json(answer);
}
