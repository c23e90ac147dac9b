// A small typed client over fetch(): one method per endpoint of the contract, errors thrown as
// FuzzyApiError. It knows nothing of the worker, so it works as well against Node or a server.
import type { Inputs, Outputs, ValidationIssue } from '../engine/types.js';
import type {
  Account,
  Agent,
  AutopilotState,
  ErrorName,
  AgentInput,
  AgentSummary,
  AgentVersion,
  EvaluationList,
  EvaluationLog,
  EvaluationMeta,
  Feedback,
  ImportResult,
  OptimizeInput,
  OptimizeResult,
  PerformanceReport,
  ServiceInfo,
  StorageStatus,
  VersionSummary,
} from '../schema/index.js';
import { errorStatus } from '../schema/error-names.js';

export interface FuzzyClientOptions {
  /** Where the REST interface lives; default the page's origin, e.g. `https://app.example/`. */
  baseURL?: string | URL;
  /** The account's key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
}

/** Which evaluations `listEvaluations` answers (docs/REST.md, "Listing and erasing evaluations"). */
export interface ListEvaluationsOptions {
  /** 1..1000; default 100 */
  limit?: number;
  /** the `next` of the previous page */
  cursor?: string;
  /** only this version's evaluations */
  version?: string;
  /** only those with (true) or without (false) feedback */
  feedback?: boolean;
}

export interface InferenceOptions {
  /** Also return the evaluation log's steps (docs/ENGINE.md, "The pipeline") as `meta`. */
  meta?: boolean;
  /**
   * `?explore=`: move each output by Gaussian noise of this share of its range (0 < explore ≤ 0.5),
   * so that feedback can teach the optimizer (docs/LEARNING.md); the log keeps the engine's answer too.
   */
  explore?: number;
}

/** One evaluation: the crisp outputs and the id its log is stored under. */
export interface Evaluation {
  /** output name → crisp value; an output no rule reached is absent */
  outputs: Outputs;
  evaluationID: string;
  meta?: EvaluationMeta;
}

/** What the service answered when a request failed: status, message, and invalid fields if any. */
export class FuzzyApiError extends Error {
  override readonly name = 'FuzzyApiError';
  /** For validation failures: each invalid field by path, e.g. `{path: "rules[2]", message}`. */
  readonly issues: ValidationIssue[];

  constructor(
    readonly status: number,
    message: string,
    issues: readonly ValidationIssue[] = [],
    /**
     * The answer's name in the error vocabulary (docs/REST.md, "Errors"), e.g. `ValidationError`
     * or `InvalidRequest` (both 400): what to switch on. Undefined when the answer did not come
     * from fuzzbox (not its JSON) or was refused here (an X-Evaluation-ID that does not match).
     */
    readonly error?: ErrorName,
  ) {
    super(message);
    this.issues = [...issues];
  }
}

export class FuzzyClient {
  readonly #baseURL: URL;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: FuzzyClientOptions = {}) {
    const base = options.baseURL ?? globalThis.location?.origin;
    if (base === undefined) throw new TypeError('FuzzyClient: give a baseURL (there is no page origin to default to)');
    const url = new URL(base, globalThis.location?.href);
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    this.#baseURL = url;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The same client, acting for the account with this key. */
  withKey(apiKey: string): FuzzyClient {
    return new FuzzyClient({ baseURL: this.#baseURL, apiKey, fetch: this.#fetch });
  }

  /** POST /account. The key is shown only here: keep it. */
  createAccount(name?: string): Promise<Account> {
    return this.#json('POST', 'account', name === undefined ? {} : { name });
  }

  /** GET /version: the service's name and version (needs no key). */
  serviceInfo(): Promise<ServiceInfo> {
    return this.#json('GET', 'version');
  }

  listAgents(): Promise<AgentSummary[]> {
    return this.#json('GET', 'agent');
  }

  createAgent(agent: AgentInput): Promise<Agent> {
    return this.#json('POST', 'agent', agent);
  }

  getAgent(agentID: string): Promise<Agent> {
    return this.#json('GET', `agent/${encodeURIComponent(agentID)}`);
  }

  /** PUT /agent/:id: a new version becomes the latest. */
  updateAgent(agentID: string, agent: AgentInput): Promise<Agent> {
    return this.#json('PUT', `agent/${encodeURIComponent(agentID)}`, agent);
  }

  async deleteAgent(agentID: string): Promise<void> {
    await this.#json('DELETE', `agent/${encodeURIComponent(agentID)}`);
  }

  listVersions(agentID: string): Promise<VersionSummary[]> {
    return this.#json('GET', `agent/${encodeURIComponent(agentID)}/version`);
  }

  getVersion(versionID: string): Promise<AgentVersion> {
    return this.#json('GET', `version/${encodeURIComponent(versionID)}`);
  }

  /** POST /agent/:id with one inputs object; the log is stored before this resolves. */
  async evaluate(agentID: string, inputs: Inputs, options: InferenceOptions = {}): Promise<Evaluation> {
    const { body, response } = await this.#request('POST', this.#evaluationPath(agentID, options), inputs);
    return toEvaluation(body as Outputs & { meta?: EvaluationMeta }, response.headers.get('X-Evaluation-ID') ?? '', options);
  }

  /** POST /agent/:id with an array (1..4096): one evaluation, with its own log, per item. */
  async evaluateBatch(agentID: string, batch: readonly Inputs[], options: InferenceOptions = {}): Promise<Evaluation[]> {
    const { body, response } = await this.#request('POST', this.#evaluationPath(agentID, options), batch);
    const items = body as Array<Outputs & { meta?: EvaluationMeta }>;
    const header = response.headers.get('X-Evaluation-ID') ?? '';
    const ids = header === '' ? [] : header.split(',').map((id) => id.trim());
    if (ids.length !== items.length) {
      throw new FuzzyApiError(
        response.status,
        `evaluating agent ${agentID}: the X-Evaluation-ID header lists ${ids.length} id(s) for ` +
          `${items.length} evaluations, so they cannot be matched up; is something between the page and fuzzbox rewriting headers?`,
      );
    }
    return items.map((item, index) => toEvaluation(item, ids[index]!, options));
  }

  getEvaluation(evaluationID: string): Promise<EvaluationLog> {
    return this.#json('GET', `evaluation/${encodeURIComponent(evaluationID)}`);
  }

  /** GET /agent/:id/evaluation: a page of the agent's evaluations, newest first, each with its feedback. */
  listEvaluations(agentID: string, options: ListEvaluationsOptions = {}): Promise<EvaluationList> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options)) if (value !== undefined) query.set(name, String(value));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#json('GET', `agent/${encodeURIComponent(agentID)}/evaluation${search}`);
  }

  /** DELETE /evaluation/:id: erases the log and its feedback. */
  async deleteEvaluation(evaluationID: string): Promise<void> {
    await this.#json('DELETE', `evaluation/${encodeURIComponent(evaluationID)}`);
  }

  /** POST /evaluation/:id/feedback: metric name → number, on the caller's own scale. */
  postFeedback(evaluationID: string, data: Readonly<Record<string, number>>): Promise<Feedback> {
    return this.#json('POST', `evaluation/${encodeURIComponent(evaluationID)}/feedback`, { data });
  }

  listFeedback(evaluationID: string): Promise<Feedback[]> {
    return this.#json('GET', `evaluation/${encodeURIComponent(evaluationID)}/feedback`);
  }

  /** POST /agent/:id/optimize: tunes the agent on the feedback for one metric; saves a new version unless dryRun. */
  optimize(agentID: string, request: OptimizeInput): Promise<OptimizeResult> {
    return this.#json('POST', `agent/${encodeURIComponent(agentID)}/optimize`, request);
  }

  getAutopilot(agentID: string): Promise<AutopilotState> {
    return this.#json('GET', `agent/${encodeURIComponent(agentID)}/autopilot`);
  }

  /** PUT /agent/:id/autopilot: on or off (it learns only for an agent with `performance`). */
  setAutopilot(agentID: string, enabled: boolean): Promise<AutopilotState> {
    return this.#json('PUT', `agent/${encodeURIComponent(agentID)}/autopilot`, { enabled });
  }

  /** POST /agent/:id/rollback: a new latest version with that earlier version's definition. */
  rollback(agentID: string, versionID: string): Promise<Agent> {
    return this.#json('POST', `agent/${encodeURIComponent(agentID)}/rollback`, { version: versionID });
  }

  getPerformance(agentID: string): Promise<PerformanceReport> {
    return this.#json('GET', `agent/${encodeURIComponent(agentID)}/performance`);
  }

  /** GET /storage: the origin's usage, quota and persistence, and the account's record counts. */
  getStorage(): Promise<StorageStatus> {
    return this.#json('GET', 'storage');
  }

  /**
   * GET /export: the account as a backup file, NDJSON (docs/REST.md, "Backup and restore"). A
   * Blob, which a browser keeps on disk when large; save it with a download link or keep it.
   */
  async downloadBackup(): Promise<Blob> {
    const response = await this.#send('GET', 'export', {});
    return response.blob();
  }

  /**
   * POST /import: restores a backup made by `downloadBackup()` (or GET /export) into this
   * account: a File from `<input type="file">`, a Blob, a stream or the text. Streamed, so any
   * size works; importing the same backup twice changes nothing.
   */
  async restoreBackup(backup: Blob | ReadableStream<Uint8Array> | string): Promise<ImportResult> {
    let streamed = typeof backup !== 'string' && !(backup instanceof Blob);
    if (streamed && !sendsStreams()) {
      // Firefox and Safari cannot send a stream as a request body: a Blob, which the browser may keep on disk
      backup = await new Response(backup).blob();
      streamed = false;
    }
    const response = await this.#send('POST', 'import', {
      body: backup,
      contentType: 'application/x-ndjson',
      // a stream as a request body must say it will not read the answer while sending
      ...(streamed ? { duplex: 'half' } : {}),
    });
    return readJSON(response, 'POST', new URL('import', this.#baseURL)) as Promise<ImportResult>;
  }

  #evaluationPath(agentID: string, options: InferenceOptions): string {
    const query = new URLSearchParams();
    if (options.meta) query.set('meta', 'true');
    if (options.explore !== undefined) query.set('explore', String(options.explore));
    const search = query.toString();
    return `agent/${encodeURIComponent(agentID)}${search ? `?${search}` : ''}`;
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.#request(method, path, body)).body as T;
  }

  async #request(method: string, path: string, body?: unknown): Promise<{ body: unknown; response: Response }> {
    const response = await this.#send(method, path, body === undefined ? {} : { body: JSON.stringify(body), contentType: 'application/json' });
    return { body: await readJSON(response, method, new URL(path, this.#baseURL)), response };
  }

  /** Sends a request; an answer other than 2xx is thrown as the FuzzyApiError it carries. */
  async #send(method: string, path: string, { body, contentType, duplex }: { body?: BodyInit; contentType?: string; duplex?: 'half' }): Promise<Response> {
    const url = new URL(path, this.#baseURL);
    const headers: Record<string, string> = {};
    if (this.#apiKey !== undefined) headers.Authorization = `Bearer ${this.#apiKey}`;
    if (contentType !== undefined) headers['Content-Type'] = contentType;
    const init: RequestInit & { duplex?: 'half' } = { method, headers, ...(body === undefined ? {} : { body }), ...(duplex ? { duplex } : {}) };
    const response = await this.#fetch(url, init);
    if (response.ok) return response;
    const error = (await readJSON(response, method, url)) as { error?: unknown; message?: unknown; issues?: unknown };
    throw new FuzzyApiError(
      response.status,
      typeof error.message === 'string' ? error.message : `${method} ${url.pathname} answered ${response.status}`,
      Array.isArray(error.issues) ? (error.issues as ValidationIssue[]) : [],
      typeof error.error === 'string' && Object.hasOwn(errorStatus, error.error) ? (error.error as ErrorName) : undefined,
    );
  }
}

function toEvaluation(item: Outputs & { meta?: EvaluationMeta }, evaluationID: string, options: InferenceOptions): Evaluation {
  if (!options.meta) return { outputs: item, evaluationID };
  const { meta, ...outputs } = item;
  return meta === undefined ? { outputs, evaluationID } : { outputs, evaluationID, meta };
}

/** Anything but JSON means the request never reached fuzzbox: say so instead of a parse error. */
async function readJSON(response: Response, method: string, url: URL): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new FuzzyApiError(
      response.status,
      `${method} ${url.href} answered ${response.status} with ${response.headers.get('Content-Type') ?? 'no content type'}, ` +
        'not fuzzbox JSON: is the fuzzbox worker registered and controlling this page (await registerFuzzyWorker first)?',
    );
  }
}

/**
 * Whether this fetch() can send a ReadableStream as a request body (Chromium can; Firefox and
 * Safari cannot): such a browser reads the `duplex` option, and does not turn the stream into
 * the text "[object ReadableStream]" with a text/plain Content-Type.
 */
function sendsStreams(): boolean {
  let duplexRead = false;
  const request = new Request('data:,', {
    method: 'POST',
    body: new ReadableStream(),
    get duplex() {
      duplexRead = true;
      return 'half';
    },
  } as RequestInit);
  return duplexRead && !request.headers.has('Content-Type');
}
