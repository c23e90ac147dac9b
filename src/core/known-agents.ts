import type { AgentRecord } from '../store/records.js';
import type { FuzzboxStore } from '../store/store.js';

const CAPACITY = 256;

/**
 * Agents' records as last read, by id, so that answering an evaluation reads no agent from the
 * store. An entry may be out of date: the agent may have changed since in another service on the
 * same store (another tab's page, a sync, another server process). So one is used only where the
 * store checks the agent again in the transaction that stores the answer's logs (its owner and
 * latest version: `FuzzboxStore.addEvaluations`), and a request it refuses or an agent found moved
 * on is answered again from the agent as stored (core/answering.ts).
 */
export class KnownAgents {
  readonly #store: FuzzboxStore;
  readonly #byID = new Map<string, AgentRecord>();

  constructor(store: FuzzboxStore) {
    this.#store = store;
  }

  /** The caller's agent, as last read (`known`) or read now; the store's refusal when it is not the caller's or is gone. */
  async read(userID: string, id: string): Promise<{ agent: AgentRecord; known: boolean }> {
    const known = this.#byID.get(id);
    if (known?.userID === userID) {
      this.#keep(known);
      return { agent: known, known: true };
    }
    const agent = await this.#store.readAgent(userID, id);
    this.#keep(agent);
    return { agent, known: false };
  }

  forget(id: string): void {
    this.#byID.delete(id);
  }

  /** Keeps `agent` as the most recently used; the least recently used goes past CAPACITY. */
  #keep(agent: AgentRecord): void {
    this.#byID.delete(agent.id);
    this.#byID.set(agent.id, agent);
    if (this.#byID.size > CAPACITY) this.#byID.delete(this.#byID.keys().next().value!);
  }
}
