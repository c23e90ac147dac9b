import { evaluate, type CompiledAgent } from '../../engine/index.js';
import { explore, MAX_EXPLORATION } from '../../learn/index.js';
import type { Inputs, Trace } from '../../engine/types.js';
import { ApiError, clip, invalid, IssueList, validationError } from '../../schema/errors.js';
import { batchSchema, inputsSchema, type EvaluationMeta } from '../../schema/evaluation.js';
import { timestamp } from '../../store/ids.js';
import type { EvaluationRecord } from '../../store/records.js';
import { param, type Context } from '../context.js';
import { json } from '../http.js';

/** `?meta=true|1|yes|` → "meta"; `false|0|no` → none; anything else names the property. */
export function metaProperty(url: URL): string | undefined {
  const value = url.searchParams.get('meta');
  if (value === null) return undefined;
  const lower = value.toLowerCase();
  if (['false', '0', 'no'].includes(lower)) return undefined;
  return ['true', '1', 'yes', ''].includes(lower) ? 'meta' : value;
}

function readInputs(body: unknown): { items: Inputs[]; batch: boolean } {
  const batch = Array.isArray(body);
  const parsed = batch ? batchSchema.safeParse(body) : inputsSchema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, 'inputs');
  return { items: batch ? (parsed.data as Inputs[]) : [parsed.data as Inputs], batch };
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

/** `?explore=S`: exploration noise of standard deviation S × each output's range; none without it. */
export function explorationScale(url: URL): number | undefined {
  const value = url.searchParams.get('explore');
  if (value === null) return undefined;
  const scale = value.trim() === '' ? NaN : Number(value);
  if (!(scale > 0 && scale <= MAX_EXPLORATION)) {
    throw new ApiError(
      'InvalidRequest',
      `?explore= must be a number in (0, ${MAX_EXPLORATION}]: the noise's standard deviation as a share of each output's range, e.g. ?explore=0.1 (got "${value}")`,
    );
  }
  return scale;
}

export function metaOf(reqID: string, trace: Trace, createdAt: string): EvaluationMeta {
  const { fuzzified, rules, inferred, clipped, combined, centroid } = trace;
  return { reqID, fuzzified, rules, inferred, clipped, combined, centroid, createdAt };
}

/**
 * POST /agent/:id: evaluates one inputs object or a batch on the agent's latest version and
 * stores one log per item before answering.
 */
export async function evaluateAgent(context: Context): Promise<Response> {
  const { service, userID } = context;
  const { items, batch } = readInputs(context.body);
  const metaName = metaProperty(context.url);
  const exploration = explorationScale(context.url);
  const createdAt = timestamp();

  const results = await service.store.recordEvaluations(userID, param(context, 'id'), (agent) => {
    const compiled = service.compiledAgents.get(agent.latestVersion, agent);
    checkInputNames(compiled, items, batch, metaName);
    // The trace path even without ?meta=: a log read later recomputes its trace on this same
    // path, so the answer and the log's centroid agree to the last bit by construction, whatever
    // summation order the engine's fast path uses (it differed in the last digit at one point).
    const traces = items.map((inputs) => evaluate(compiled, inputs, { trace: true }));
    const logs = items.map(
      (input, index): EvaluationRecord => ({
        reqID: globalThis.crypto.randomUUID(),
        userID,
        agentID: agent.id,
        versionID: agent.latestVersion,
        input: { ...input },
        crisp: traces[index]!.crisp,
        ...(exploration === undefined ? {} : { returned: explore(traces[index]!.crisp, compiled.outputs, exploration, service.random) }),
        createdAt,
      }),
    );
    const result = logs.map((log, index) => {
      const outputs = log.returned ?? log.crisp;
      return metaName === undefined ? outputs : { ...outputs, [metaName]: metaOf(log.reqID, traces[index]!, createdAt) };
    });
    return { logs, result: { ids: logs.map((log) => log.reqID), outputs: result } };
  });

  return json(batch ? results.outputs : results.outputs[0], { 'X-Evaluation-ID': results.ids.join(',') });
}
