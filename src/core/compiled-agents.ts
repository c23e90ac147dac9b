import { AgentValidationError, compileAgent, evaluate, type CompiledAgent } from '../engine/index.js';
import type { AgentDefinition, Inputs } from '../engine/types.js';
import { ApiError } from '../schema/errors.js';
import type { StoredTrace } from '../store/records.js';

const CAPACITY = 256;

/** Compiles a definition, turning the engine's validation error into a 400 that lists every issue. */
export function compileOrReject(definition: AgentDefinition): CompiledAgent {
  try {
    return compileAgent(definition);
  } catch (error) {
    if (error instanceof AgentValidationError) {
      throw new ApiError('ValidationError', error.message, { issues: error.issues });
    }
    throw error;
  }
}

/**
 * Compiled agents by version id. Versions are immutable, so an entry never goes stale; the
 * least recently used ones are dropped past a fixed capacity.
 */
export class CompiledAgents {
  readonly #byVersion = new Map<string, CompiledAgent>();

  get(versionID: string, definition: AgentDefinition): CompiledAgent {
    let compiled = this.#byVersion.get(versionID);
    if (compiled) {
      this.#byVersion.delete(versionID);
    } else {
      compiled = compileOrReject(definition);
    }
    this.#byVersion.set(versionID, compiled);
    if (this.#byVersion.size > CAPACITY) {
      this.#byVersion.delete(this.#byVersion.keys().next().value!);
    }
    return compiled;
  }
}

/** The trace an evaluation log shows, recomputed; `crisp` comes from the log itself. */
export function recomputeTrace(compiled: CompiledAgent, input: Inputs): StoredTrace {
  const { fuzzified, rules, inferred, clipped, combined, centroid } = evaluate(compiled, input, { trace: true });
  return { fuzzified, rules, inferred, clipped, combined, centroid };
}
