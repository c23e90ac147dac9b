import { Moments } from '../../learn/statistics.js';
import { ApiError, validationError } from '../../schema/errors.js';
import { autopilotSwitchSchema, rollbackBodySchema } from '../../schema/autopilot.js';
import { WIDEST_SPREAD } from '../../learn/index.js';
import { CANDIDATE_SHARE, initialState, isOn, PROPOSE_EVERY, WINDOW } from '../../core/autopilot.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';
import { versionBody } from '../../core/versions.js';
import type { VersionRecord } from '../../store/records.js';
import type { AutopilotState, PerformanceReport } from '../../schema/autopilot.js';
import { agentView } from './agents.js';

async function autopilotView(context: Context): Promise<AutopilotState> {
  const { service, userID } = context;
  const agentID = param(context, 'id');
  const agent = await service.store.readAgent(userID, agentID);
  // as stored: a switch or trial of another process (or tab) sharing the store shows at once
  const state = (await service.autopilot.read(userID, agentID)) ?? initialState(agent);
  return {
    enabled: state.enabled,
    active: isOn(agent, state),
    performance: agent.performance ?? null,
    exploration: WIDEST_SPREAD,
    // each output's spread now: WIDEST_SPREAD, or narrower where exploring it costs (docs/LEARNING.md)
    spread: Object.fromEntries(Object.keys(agent.outputs).map((name) => [name, state.spread?.[name] ?? WIDEST_SPREAD])),
    candidateShare: CANDIDATE_SHARE,
    proposeEvery: PROPOSE_EVERY,
    window: WINDOW,
    usedFeedback: state.usedFeedback,
    candidate: state.candidate ? { versionID: state.candidate.versionID, basedOn: state.candidate.basedOn, since: state.candidate.since } : null,
    trials: state.trials,
    // an estimate up to the latest version only: a person's edit or rollback since makes it history
    gain: state.gain?.versionID === agent.latestVersion ? state.gain : null,
  };
}

/** GET /agent/:id/autopilot: whether it is on, the candidate on trial, every decided trial. */
export async function readAutopilot(context: Context): Promise<Response> {
  return json(await autopilotView(context));
}

/** PUT /agent/:id/autopilot `{"enabled": bool}` */
export async function switchAutopilot(context: Context): Promise<Response> {
  const parsed = autopilotSwitchSchema.safeParse(context.body);
  if (!parsed.success) throw validationError(parsed.error, 'autopilot switch');
  const { service, userID } = context;
  const agentID = param(context, 'id');
  await service.autopilot.update(userID, agentID, (state) => ({ ...state, enabled: parsed.data.enabled }));
  return json(await autopilotView(context));
}

/** POST /agent/:id/rollback `{"version": id}`: a new latest version with that version's definition, origin "rolled back". */
export async function rollbackAgent(context: Context): Promise<Response> {
  const parsed = rollbackBodySchema.safeParse(context.body);
  if (!parsed.success) throw validationError(parsed.error, 'rollback');
  const { service, userID } = context;
  const agentID = param(context, 'id');
  const agent = await service.store.readAgent(userID, agentID);
  let version: VersionRecord;
  try {
    version = await service.store.readVersion(userID, parsed.data.version);
  } catch (error) {
    if (error instanceof ApiError && error.name === 'NotFound')
      throw new ApiError('InvalidRequest', `agent "${agentID}" has no version "${parsed.data.version}" (GET /agent/${agentID}/version lists them)`);
    throw error;
  }
  if (version.versionOf !== agentID) throw new ApiError('InvalidRequest', `version "${parsed.data.version}" belongs to another agent, not "${agentID}"`);
  const { body, parsedRules } = versionBody(version.name, version, version.performance);
  const updated = await service.store.updateAgentFrom(userID, agentID, agent.latestVersion, body, parsedRules, {
    origin: 'rolled back',
    evidence: { to: version.id, from: agent.latestVersion },
  });
  service.autopilot.nudge(userID, agentID, true);
  return json(agentView(updated));
}

/**
 * GET /agent/:id/performance: per version, how many evaluations it answered and, for each metric of
 * `performance`, how many feedback values and their mean with a 95% confidence interval.
 */
export async function readPerformance(context: Context): Promise<Response> {
  const { service, userID } = context;
  const agentID = param(context, 'id');
  const agent = await service.store.readAgent(userID, agentID);
  const [versions, counts] = await Promise.all([service.store.listVersions(userID, agentID), service.store.countEvaluationsByVersion(userID, agentID)]);
  const metrics = Object.keys(agent.performance ?? {});
  // only the summaries over the whole log: no rows
  const read = metrics.length > 0 ? await service.store.readLearningLog(userID, agentID, { metrics, most: 0, whole: true }) : undefined;
  const report: PerformanceReport = {
    latestVersion: agent.latestVersion,
    performance: agent.performance ?? null,
    versions: versions.map((version) => {
      const feedback = read?.versions.get(version.id);
      return {
        id: version.id,
        createdAt: version.createdAt,
        origin: version.origin ?? null,
        evidence: version.evidence ?? null,
        evaluations: counts.get(version.id) ?? 0,
        feedback: feedback?.complete ?? 0,
        metrics: Object.fromEntries(metrics.map((metric, m) => [metric, (feedback?.metrics[m] ?? new Moments()).interval()])),
      };
    }),
  };
  return json(report);
}
