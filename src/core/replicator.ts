// A browser's side of sync (docs/SYNC.md): rounds of pull then push between the local store and
// a fuzzbox server, in the background, never in a request's way.
import { BACKUP_FORMAT, CHANGES_VERSION, type BackupHeader } from '../schema/backup.js';
import { autopilotLineSchema, UNKNOWN_CHECKPOINT, type AutopilotLine, type SyncStatus } from '../schema/sync.js';
import type { ImportRecord } from '../store/backup-records.js';
import { newId, timestamp } from '../store/ids.js';
import { pushFromStart, type SyncReplica } from '../store/sync-replica.js';
import type { FuzzboxStore } from '../store/store.js';
import { sha256Hex } from './keys.js';
import { NDJSON, readRecord } from './backup-stream.js';

/** What `fetch` the replicator is given must do: the platform's fits. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface SyncOptions {
  /** The server's interface, base path included: `https://fuzzbox.example/` or `https://example.com/api/`. */
  url: string;
  /**
   * A key of the account on the server. This replica keeps the account's records in the local
   * account with the same key (created if there is none), so the app uses one key online and offline.
   */
  apiKey: string;
  /** How to reach the server; default the platform's `fetch`. */
  fetch?: FetchLike;
  /** Milliseconds between rounds when nothing else starts one; default 30,000. */
  interval?: number;
  /** Records per pull page and per push; default 1,000. */
  batchSize?: number;
  /** Milliseconds a request to the server may take before the round gives up (and retries later); default 60,000. */
  timeout?: number;
}

/** What the replicator reports after each round (`onSync`, and the worker's BroadcastChannel `fuzzbox-sync`). */
export interface SyncEvent {
  status: SyncStatus;
  /** the versions that arrived from the server in this round, in the order they were stored here */
  newVersions: Array<{ id: string; agentID: string }>;
}

/** Records merged per local transaction: a local request waits at most for one of these. */
const MERGE_CHUNK = 200;
/** A round after local writes waits this long, so a burst of writes goes out in one round. */
const AFTER_WRITES_MS = 250;
/** A failed round is tried again after this, doubling up to the interval. */
const FIRST_RETRY_MS = 1000;

/** The replica's own error, with the server's answer when there was one. */
class SyncError extends Error {
  override name = 'SyncError';
  /** the server's error body, when it answered one */
  readonly answer: { error?: string; message?: string } | undefined;

  constructor(message: string, answer?: { error?: string; message?: string }) {
    super(message);
    this.answer = answer;
  }
}

/**
 * The largest pull answer read: a server pages about 4 MiB of records (one record of at most
 * 2 MiB past that), so anything larger is not a fuzzbox server's page and is not held in memory.
 */
export const MAX_PULL_ANSWER = 16 * 1024 * 1024;

/** The answer's text, refused as soon as it passes MAX_PULL_ANSWER bytes (the rest is not read). */
async function boundedText(response: Response): Promise<string> {
  const refused = () => new SyncError(`GET /sync/pull answered with more than ${MAX_PULL_ANSWER} bytes: a fuzzbox server pages a few MiB at a time`);
  if (Number(response.headers.get('content-length') ?? 0) > MAX_PULL_ANSWER) {
    await response.body?.cancel();
    throw refused();
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_PULL_ANSWER) {
      await reader.cancel();
      throw refused();
    }
    text += decoder.decode(value, { stream: true });
  }
}

async function refusal(response: Response, what: string): Promise<SyncError> {
  const text = await response.text().catch(() => '');
  let detail = text.slice(0, 500);
  let answer: { error?: string; message?: string } | undefined;
  try {
    answer = JSON.parse(text) as { error?: string; message?: string };
    if (answer.message) detail = `${answer.error ?? 'error'}: ${answer.message}`;
  } catch {
    // not JSON: the text says what it says
  }
  return new SyncError(`${what} answered ${response.status}${detail ? ` (${detail})` : ''}`, answer);
}

/** A pull refused because its checkpoint is past every change of the server (docs/SYNC.md, "A restored server"). */
const isUnknownCheckpoint = (error: SyncError) =>
  error.answer?.error === 'InvalidRequest' && typeof error.answer.message === 'string' && error.answer.message.startsWith(UNKNOWN_CHECKPOINT);

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A timer that does not keep a Node process alive by itself (browsers' timers never do). */
function later(ms: number, run: () => void): ReturnType<typeof setTimeout> {
  const timer = setTimeout(run, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

export class Replicator {
  readonly #store: FuzzboxStore & SyncReplica;
  readonly #url: string;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #interval: number;
  readonly #batchSize: number;
  readonly #timeout: number;
  readonly #onSync: ((event: SyncEvent) => void) | undefined;
  #userID: Promise<string> | undefined;
  #round: Promise<void> | undefined;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #failures = 0;
  #lastRoundAt = 0;
  #closed = false;
  #status: SyncStatus;

  readonly #onAutopilot: ((agentIDs: string[]) => void) | undefined;

  /** `onAutopilot`: the server's autopilot state of these agents was stored here (the service's cache of it is stale). */
  constructor(
    store: FuzzboxStore & SyncReplica,
    options: SyncOptions & { fetch: FetchLike },
    onSync?: (event: SyncEvent) => void,
    onAutopilot?: (agentIDs: string[]) => void,
  ) {
    this.#store = store;
    this.#onAutopilot = onAutopilot;
    this.#url = options.url.endsWith('/') ? options.url : `${options.url}/`;
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch;
    this.#interval = options.interval ?? 30_000;
    this.#batchSize = options.batchSize ?? 1000;
    this.#timeout = options.timeout ?? 60_000;
    this.#onSync = onSync;
    this.#status = { url: this.#url, lastSync: null, pending: 0, lastError: null, syncing: false };
  }

  /** The local account this replica fills: the one with the sync key, created on first use. */
  userID(): Promise<string> {
    return (this.#userID ??= (async () => {
      const keyHash = await sha256Hex(this.#apiKey);
      const found = await this.#store.findAccountByKeyHash(keyHash);
      const userID = found?.userID ?? newId();
      if (!found) await this.#store.addAccount({ userID, name: null, keyHash, createdAt: timestamp() });
      // the replica's id is drawn once and kept
      await this.#store.updateSyncState(userID, this.#url, () => ({}));
      return userID;
    })().catch((error: unknown) => {
      this.#userID = undefined;
      throw error;
    }));
  }

  /** Something was written here: a round soon, after the burst. */
  afterWrite(): void {
    this.#schedule(AFTER_WRITES_MS);
  }

  /** A request came in: a round if none ran for an interval (a worker's timers die with it). */
  afterRequest(): void {
    if (Date.now() - this.#lastRoundAt > this.#interval) this.#schedule(0);
  }

  /** Runs a round now (after the one under way, if any) and resolves to the status after it. */
  async syncNow(): Promise<SyncStatus> {
    if (this.#round) {
      this.#again = true;
      while (this.#round) await this.#round;
    } else {
      await (this.#round = this.#run());
    }
    return this.status();
  }

  /** The status with the pending count read now. */
  async status(): Promise<SyncStatus> {
    try {
      const userID = await this.userID();
      const state = await this.#store.readSyncState(userID, this.#url);
      this.#status = { ...this.#status, pending: await this.#store.countPending(userID, state.push), lastSync: state.lastSync };
    } catch {
      // the status as last known: a store that cannot be read says so through requests
    }
    return { ...this.#status };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    while (this.#round) await this.#round.catch(() => undefined);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    if (this.#round) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = later(ms, () => void (this.#round ??= this.#run()));
  }

  async #run(): Promise<void> {
    try {
      do {
        this.#again = false;
        await this.#once();
      } while (this.#again && !this.#closed);
    } finally {
      this.#round = undefined;
      if (!this.#closed) {
        const wait = this.#failures === 0 ? this.#interval : Math.min(this.#interval, FIRST_RETRY_MS * 2 ** (this.#failures - 1));
        clearTimeout(this.#timer);
        this.#timer = later(wait, () => void (this.#round ??= this.#run()));
      }
    }
  }

  /** One round: pull until the server has nothing more, then push until nothing waits. */
  async #once(): Promise<void> {
    this.#lastRoundAt = Date.now();
    this.#status = { ...this.#status, syncing: true };
    const newVersions: SyncEvent['newVersions'] = [];
    let userID: string | undefined;
    try {
      userID = await this.userID();
      await this.#pull(userID, newVersions);
      await this.#push(userID);
      const lastSync = timestamp();
      await this.#store.updateSyncState(userID, this.#url, () => ({ lastSync, lastError: null }));
      this.#failures = 0;
      this.#status = { ...this.#status, lastSync, lastError: null };
    } catch (error) {
      this.#failures++;
      const lastError = error instanceof Error ? error.message : String(error);
      this.#status = { ...this.#status, lastError };
      if (userID) await this.#store.updateSyncState(userID, this.#url, () => ({ lastError })).catch(() => undefined);
    } finally {
      this.#status = { ...this.#status, syncing: false };
    }
    this.#onSync?.({ status: await this.status(), newVersions });
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.#apiKey}`, ...extra };
  }

  async #pull(userID: string, newVersions: SyncEvent['newVersions']): Promise<void> {
    for (;;) {
      const state = await this.#store.readSyncState(userID, this.#url);
      const query = new URLSearchParams({ limit: String(this.#batchSize), replica: state.replica });
      if (state.pull !== null) query.set('checkpoint', state.pull);
      // a hung connection must not hold the round (and every round after it) for ever
      const response = await this.#fetch(`${this.#url}sync/pull?${query}`, { headers: this.#headers(), signal: AbortSignal.timeout(this.#timeout) });
      if (!response.ok) {
        const refused = await refusal(response, 'GET /sync/pull');
        // the server's database is older than the one that handed out the checkpoint (restored
        // from a backup): everything is pulled again (what is here already merges as unchanged),
        // and everything pushed again, since what the server lost may include this replica's
        if (state.pull !== null && isUnknownCheckpoint(refused)) {
          await this.#store.updateSyncState(userID, this.#url, () => ({ pull: null, push: pushFromStart() }));
          continue;
        }
        throw refused;
      }
      const [head, ...lines] = (await boundedText(response)).split('\n').filter((line) => line !== '');
      const header = JSON.parse(head ?? '{}') as { checkpoint?: string | null; more?: boolean };
      if (header.checkpoint === undefined || typeof header.more !== 'boolean')
        throw new SyncError('GET /sync/pull answered without a checkpoint: is the URL a fuzzbox server?');
      const records: Array<{ line: number; record: ImportRecord }> = [];
      const autopilot: AutopilotLine[] = [];
      lines.forEach((text, i) => {
        if (text.startsWith('{"kind":"autopilot"')) autopilot.push(autopilotLineSchema.parse(JSON.parse(text)));
        else records.push({ line: i + 2, record: readRecord({ number: i + 2, text }) });
      });
      // in slices, each its own transaction, the checkpoint with the last: requests go between them
      for (let start = 0; start === 0 || start < records.length; start += MERGE_CHUNK) {
        const slice = records.slice(start, start + MERGE_CHUNK);
        const last = start + MERGE_CHUNK >= records.length;
        const merged = await this.#store.mergePulled(userID, this.#url, slice, last ? header.checkpoint : undefined, last ? autopilot : []);
        newVersions.push(...merged.newVersions);
        if (merged.autopilot.length > 0) this.#onAutopilot?.(merged.autopilot);
        if (!last) await pause(0);
      }
      if (!header.more || this.#closed) return;
    }
  }

  async #push(userID: string): Promise<void> {
    for (;;) {
      const state = await this.#store.readSyncState(userID, this.#url);
      const page = await this.#store.readPushable(userID, state.push, this.#batchSize);
      if (page.records.length > 0) {
        const header: BackupHeader = { format: BACKUP_FORMAT, version: CHANGES_VERSION, exportedAt: timestamp() };
        const body = `${[header, ...page.records].map((line) => JSON.stringify(line)).join('\n')}\n`;
        const query = new URLSearchParams({ replica: state.replica });
        const response = await this.#fetch(`${this.#url}sync/push?${query}`, {
          method: 'POST',
          headers: this.#headers({ 'Content-Type': NDJSON }),
          body,
          signal: AbortSignal.timeout(this.#timeout),
        });
        if (!response.ok) throw await refusal(response, 'POST /sync/push');
        await response.body?.cancel();
      }
      await this.#store.updateSyncState(userID, this.#url, () => ({ push: page.next }));
      if (!page.more || this.#closed) return;
    }
  }
}
