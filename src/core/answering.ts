// Answering evaluations: which version answers (the latest, or autopilot's candidate for its
// share), the exploration noise, the log records, and evaluating again when a PUT lands meanwhile.
import { evaluate, type CompiledAgent } from '../engine/index.js';
import type { Inputs, Trace } from '../engine/types.js';
import { explore, exploreTruncated, type Spread, WIDEST_SPREAD } from '../learn/index.js';
import { ApiError, clip, invalid, IssueList } from '../schema/errors.js';
import type { EvaluationMeta } from '../schema/evaluation.js';
import { newEvaluationIDs, timestamp } from '../store/ids.js';
import type { AgentRecord, EvaluationRecord } from '../store/records.js';
import type { FuzzboxStore } from '../store/store.js';
import { CANDIDATE_SHARE, isOn, type Autopilot } from './autopilot.js';
import type { CompiledAgents } from './compiled-agents.js';
import type { KnownAgents } from './known-agents.js';
import { checkAnswerSize, checkRequestCost } from './request-cost.js';

/** What answering needs of the service it runs in. */
export interface Answering {
  store: FuzzboxStore;
  compiledAgents: CompiledAgents;
  knownAgents: KnownAgents;
  autopilot: Autopilot;
  /** uniform numbers in [0, 1) for exploration noise */
  random: () => number;
}

/** One request's evaluations: its inputs and how the answer is to be given. */
export interface EvaluationRequest {
  userID: string;
  items: Inputs[];
  /** whether the body was a batch (answered with an array) */
  batch: boolean;
  /** the property each answer's trace goes in (`?meta=`), none without it */
  metaName: string | undefined;
  /** the app's own exploration noise (`?explore=`), none without it */
  exploration: number | undefined;
}

/** Every input name the agent does not have, as issues (bounded: see IssueList); the engine would stop at the first. */
function checkInputNames(compiled: CompiledAgent, items: readonly Inputs[], batch: boolean, metaName?: string): void {
  const issues = new IssueList();
  let known: string | undefined;
  items.forEach((inputs, index) => {
    for (const name in inputs) {
      if (!Object.hasOwn(inputs, name) || Object.hasOwn(compiled.inputs, name)) continue;
      issues.add(() => {
        known ??= clip(Object.keys(compiled.inputs).join(', '), 500);
        return { path: batch ? `[${index}].${name}` : name, message: `unknown input "${name}" (known: ${known})` };
      });
    }
  });
  if (issues.count > 0) throw invalid('inputs', issues);
  if (metaName !== undefined && Object.hasOwn(compiled.outputs, metaName)) {
    throw new ApiError('ValidationError', `?meta=${metaName} would overwrite the output "${metaName}"; choose another name`);
  }
}

export function metaOf(reqID: string, trace: Trace, createdAt: string): EvaluationMeta {
  const { fuzzified, rules, inferred, clipped, combined, centroid } = trace;
  return { reqID, fuzzified, rules, inferred, clipped, combined, centroid, createdAt };
}

/** How long a request computes before it lets others run: it holds nothing meanwhile. */
const SLICE_MS = 20;
/** Evaluations redone because a PUT landed meanwhile, before a request gives up (Conflict). */
const MAX_ATTEMPTS = 3;

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * What answers this request: the latest version, or (on autopilot, for CANDIDATE_SHARE of the
 * requests) the candidate on trial; and whether autopilot varies the answers (docs/LEARNING.md).
 */
interface Answerer {
  versionID: string;
  compiled: CompiledAgent;
  piloted: boolean;
  /** each output's spread when piloted */
  spread: Spread;
}

/**
 * Evaluates every item on the agent's latest version and builds the whole answer, in slices that
 * let other requests run, before anything is written: what is stored afterwards is then answered
 * by a string that is already made, so nothing can fail between the commit and the response.
 */
async function evaluateItems(service: Answering, agent: AgentRecord, answerer: Answerer, request: EvaluationRequest) {
  const { userID, items, metaName, exploration } = request;
  const { compiled, versionID, piloted } = answerer;
  // not before the version's own time: a log never predates the version it ran on
  const now = timestamp();
  const createdAt = now < agent.updatedAt ? agent.updatedAt : now;
  const logs: EvaluationRecord[] = [];
  const parts: string[] = [];
  const reqIDs = newEvaluationIDs(items.length);
  let chars = 2;
  let sliceStart = performance.now();
  for (const [index, input] of items.entries()) {
    // The trace path even without ?meta=: a log read later recomputes its trace on this same
    // path, so the answer and the log's centroid agree to the last bit by construction, whatever
    // summation order the engine's fast path uses (it differed in the last digit at one point).
    const trace = evaluate(compiled, input, { trace: true });
    const log: EvaluationRecord = {
      reqID: reqIDs[index]!,
      userID,
      agentID: agent.id,
      versionID,
      input: { ...input },
      crisp: trace.crisp,
      ...(exploration === undefined ? {} : { returned: explore(trace.crisp, compiled.outputs, exploration, service.random) }),
      ...(piloted ? exploreTruncated(trace.crisp, compiled.outputs, answerer.spread, service.random) : {}),
      createdAt,
    };
    const outputs = log.returned ?? log.crisp;
    const part = JSON.stringify(metaName === undefined ? outputs : { ...outputs, [metaName]: metaOf(log.reqID, trace, createdAt) });
    chars += part.length + 1;
    checkAnswerSize(chars, items.length, metaName !== undefined);
    logs.push(log);
    parts.push(part);
    if (performance.now() - sliceStart > SLICE_MS) {
      await pause();
      sliceStart = performance.now();
    }
  }
  return { logs, text: request.batch ? `[${parts.join(',')}]` : parts[0]! };
}

/** Autopilot, unless the app explores itself: vary every answer by a known density, and try the candidate on a share of requests. */
async function answererOf(service: Answering, agent: AgentRecord, latest: CompiledAgent, request: EvaluationRequest): Promise<Answerer> {
  const state = await service.autopilot.state(request.userID, agent.id);
  const piloted = request.exploration === undefined && isOn(agent, state);
  const candidate = piloted && state?.candidate?.basedOn === agent.latestVersion ? state.candidate : undefined;
  const spread = state?.spread ?? WIDEST_SPREAD;
  if (candidate && service.random() < CANDIDATE_SHARE) {
    return { versionID: candidate.versionID, compiled: service.compiledAgents.get(candidate.versionID, candidate.definition), piloted, spread };
  }
  return { versionID: agent.latestVersion, compiled: latest, piloted, spread };
}

/**
 * The agent to answer `request` with, compiled, and the request checked against it: the agent as
 * last read when known, unless it refuses the request, which then is checked again against the
 * agent as stored (a PUT elsewhere may have added the input it names, a DELETE made it a 410).
 */
async function checkedAgent(service: Answering, agentID: string, request: EvaluationRequest) {
  const { agent, known } = await service.knownAgents.read(request.userID, agentID);
  try {
    const compiled = service.compiledAgents.get(agent.latestVersion, agent);
    checkInputNames(compiled, request.items, request.batch, request.metaName);
    checkRequestCost(compiled, request.items.length);
    return { agent, compiled, known };
  } catch (error) {
    if (!known) throw error;
    service.knownAgents.forget(agentID);
    return checkedAgent(service, agentID, request);
  }
}

/**
 * Evaluates one inputs object or a batch on the agent's latest version (or autopilot's candidate)
 * and stores one log per item; resolves to the answer's JSON text and the logs' ids. The request's
 * cost is checked first; the evaluation runs outside any transaction, then the logs are stored in
 * a short one that checks the agent is still at that version (else the items are evaluated again
 * on the new one, read from the store: an agent as last read that moved on does not count as one
 * of the request's attempts).
 */
export async function answerEvaluations(service: Answering, agentID: string, request: EvaluationRequest): Promise<{ text: string; reqIDs: string[] }> {
  const { userID } = request;
  for (let attempt = 1; ; ) {
    const { agent, compiled, known } = await checkedAgent(service, agentID, request);
    const { logs, text } = await evaluateItems(service, agent, await answererOf(service, agent, compiled, request), request);
    if (await service.store.addEvaluations(userID, agentID, agent.latestVersion, logs)) return { text, reqIDs: logs.map((log) => log.reqID) };
    service.knownAgents.forget(agentID);
    if (known) continue;
    if (attempt++ === MAX_ATTEMPTS) {
      throw new ApiError('Conflict', `agent "${agentID}" got ${MAX_ATTEMPTS} new versions while this request was being evaluated; send it again`);
    }
  }
}
