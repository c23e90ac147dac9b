import { compileAgent } from '../engine/index.js';
import * as learn from '../learn/index.js';
import { nextMacrotask, timeSlices } from '../learn/slices.js';
import { standardDeviation } from '../learn/statistics.js';
import { decideTrial, measuredGain, summarise } from '../learn/trial.js';
import type { Performance } from '../schema/agent.js';
import { ApiError } from '../schema/errors.js';
import { timestamp } from '../store/ids.js';
import type { LearningLog } from '../store/learning-log.js';
import type { AutopilotGain } from '../schema/autopilot.js';
import type { AgentRecord, AutopilotRecord, TrialRecord } from '../store/records.js';
import { StaleAutopilot, type FuzzboxStore } from '../store/store.js';
import { versionBody } from './versions.js';

/** Share of evaluations a candidate answers while on trial; the rest go to the latest version. */
export const CANDIDATE_SHARE = 0.5;
/** A proposal is made after this many new evaluations with feedback on the metrics (and the optimizer's minimum). */
export const PROPOSE_EVERY = 50;
/** The most recent evaluations with feedback a proposal learns from: older ones may describe a world that has changed. */
export const WINDOW = 2000;
/**
 * Forgetting within the window: an evaluation counts half as much as one HALF_LIFE evaluations
 * newer in the estimate a proposal maximises, so a drifting world is followed.
 */
export const HALF_LIFE = 500;
/** Background checks run after this many feedback posts on an agent (and on the first after a start). */
const CHECK_EVERY = 10;
/** The fewest of the evaluations read that a version must have answered with autopilot's draw (a logged density) to have the gain estimated against it. */
const GAIN_FEWEST = 30;
/** Fewer estimation points than POST /optimize: the search runs often, in slices, in the background. */
const ESTIMATION_POINTS = 1000;
/** The search yields at least this often so that requests wait at most about this long. */
const SLICE_MS = 20;
/**
 * How long a state read answers evaluations before it is read again: another process or tab that
 * shares the store may have switched autopilot or decided a trial meanwhile.
 */
export const STATE_FRESH_MS = 1000;
/** A write of the state that lost to another writer is made again over what that one wrote, up to this often. */
const WRITE_ATTEMPTS = 5;

/**
 * The most evaluations with feedback that one optimization or proposal reads: the newest. Bounds the
 * memory and time of learning whatever the log's size; what it costs in accuracy: docs/LEARNING.md,
 * "What learning reads".
 */
export const LEARNING_MOST = 10_000;

/** The newest LEARNING_MOST evaluations with feedback on every metric, each with their combined value in `metric` (higher is better). */
export interface CombinedLog extends LearningLog {
  readonly metric: Float64Array;
}

/**
 * Several metrics combine as a normalised sum: each metric divided by its standard deviation over
 * the evaluations read, signed by its direction (minimised ones count negative), then summed; an
 * evaluation counts only if its feedback carries every metric. One metric is itself, signed. The
 * combined value is always maximised.
 */
export async function readCombinedLog(store: FuzzboxStore, userID: string, agentID: string, performance: Performance): Promise<CombinedLog> {
  const goals = Object.values(performance);
  const log = await store.readLearningLog(userID, agentID, { metrics: Object.keys(performance), most: LEARNING_MOST });
  const count = goals.length;
  const scales = goals.map((_, m) => {
    if (count === 1) return 1;
    const values = new Float64Array(log.size);
    for (let i = 0; i < log.size; i++) values[i] = log.values[i * count + m]!;
    return standardDeviation(values) || 1;
  });
  const metric = new Float64Array(log.size);
  for (let i = 0; i < log.size; i++) {
    goals.forEach((goal, m) => (metric[i]! += ((goal === 'maximize' ? 1 : -1) * log.values[i * count + m]!) / scales[m]!));
  }
  return { ...log, metric };
}

/** The metric autopilot maximises, in words: one metric by its name (lower is better where minimised), several as their normalised sum. */
function metricInWords(performance: Performance): string {
  const entries = Object.entries(performance);
  if (entries.length > 1) return 'the sum of the metrics, each in its standard deviations';
  const [name, goal] = entries[0]!;
  return goal === 'maximize' ? name : `${name}, lower being better`;
}

/** The rows whose newest feedback came after `position` (LearningLog.feedbackSeq), oldest first. */
function rowsAfter(log: CombinedLog, position: number | undefined): number[] {
  const rows: number[] = [];
  for (let i = 0; i < log.size; i++) if (position === undefined || log.feedbackSeq[i]! > position) rows.push(i);
  return rows;
}

/** The rows whose newest feedback came by `position`, oldest first (none when it is undefined). */
function rowsUpTo(log: CombinedLog, position: number | undefined): number[] {
  const rows: number[] = [];
  for (let i = 0; i < log.size; i++) if (position !== undefined && log.feedbackSeq[i]! <= position) rows.push(i);
  return rows;
}

/**
 * Where the next proposal's feedback ends: of the rows whose feedback came after `seen`, in the
 * order it came, the last of the most that make whole multiples of PROPOSE_EVERY; undefined when
 * fewer than PROPOSE_EVERY. However late a step runs, the same feedback gives the same proposal.
 */
function proposalEnd(log: CombinedLog, seen: number | undefined): { position: number; rows: number } | undefined {
  const arrivals = rowsAfter(log, seen)
    .map((row) => log.feedbackSeq[row]!)
    .sort((a, b) => a - b);
  const rows = PROPOSE_EVERY * Math.floor(arrivals.length / PROPOSE_EVERY);
  return rows > 0 ? { position: arrivals[rows - 1]!, rows } : undefined;
}

/**
 * The versions of the run of adopted trials that ends in `latest`, oldest first: the newest version
 * no trial adopted, then each version a trial adopted over the one before, up to `latest`.
 */
export function adoptionsLeadingTo(trials: readonly TrialRecord[], latest: string): string[] {
  const versions = [latest];
  for (let trial = adoptionOf(trials, latest); trial; trial = adoptionOf(trials, trial.basedOn)) versions.unshift(trial.basedOn);
  return versions;
}

/** Whether two reads of the state are at the same point of autopilot's work: no trial decided, no proposal made between them. */
const sameWork = (a: AutopilotRecord, b: AutopilotRecord) =>
  a.feedbackSeen === b.feedbackSeen && a.candidate?.versionID === b.candidate?.versionID && a.trials.length === b.trials.length;

const adoptionOf = (trials: readonly TrialRecord[], versionID: string) => trials.find((trial) => trial.outcome === 'adopted' && trial.versionID === versionID);

/** Autopilot is on for an agent with `performance` unless switched off. */
export function isOn(agent: Pick<AgentRecord, 'performance'>, state: AutopilotRecord | undefined): boolean {
  return agent.performance !== undefined && Object.keys(agent.performance).length > 0 && (state?.enabled ?? true);
}

export function initialState(agent: Pick<AgentRecord, 'id' | 'userID'>): AutopilotRecord {
  return { agentID: agent.id, userID: agent.userID, enabled: true, usedFeedback: 0, trials: [] };
}

/**
 * `write` again when another writer stored autopilot's state since it read it, WRITE_ATTEMPTS
 * times in all; then that Conflict goes to the caller. Any other error (an agent that moved on
 * to another version, whose Conflict no retry can change) goes at once.
 */
async function againOnConflict<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StaleAutopilot) || attempt === WRITE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Runs autopilot's background work, one agent at a time, after the responses that call `nudge`:
 * decide a candidate's trial, or propose a new candidate. Everything it needs to carry on is in the
 * store (AutopilotRecord); a stopped worker loses at most the search under way, which the next one
 * repeats (the search is deterministic).
 */
export class Autopilot {
  readonly #store: FuzzboxStore;
  readonly #states = new Map<string, { state: AutopilotRecord | undefined; readAt: number }>();
  readonly #nudges = new Map<string, number>();
  readonly #queue: Array<{ userID: string; agentID: string }> = [];
  #running: Promise<void> | undefined;
  /** the last error of a background step, for tests and the demo; the step is retried on a later nudge */
  lastError: unknown;

  readonly #learnsElsewhere: (userID: string) => Promise<boolean>;
  readonly #yieldControl: () => Promise<void>;

  /**
   * `learnsElsewhere`: whether an account's learning runs on its sync server (docs/SYNC.md,
   * "Learning"): then this replica neither proposes nor decides, it only explores and logs.
   * `yieldControl`: how the work yields between its slices of SLICE_MS (the service's waits for
   * the requests in flight, core/traffic.ts).
   */
  constructor(
    store: FuzzboxStore,
    learnsElsewhere: (userID: string) => Promise<boolean> = async () => false,
    yieldControl: () => Promise<void> = nextMacrotask,
  ) {
    this.#store = store;
    this.#learnsElsewhere = learnsElsewhere;
    this.#yieldControl = yieldControl;
  }

  /** The agent's state, read at most STATE_FRESH_MS ago: every evaluation reads it. */
  async state(userID: string, agentID: string): Promise<AutopilotRecord | undefined> {
    const cached = this.#states.get(agentID);
    if (cached && Date.now() - cached.readAt < STATE_FRESH_MS) return cached.state;
    try {
      return await this.read(userID, agentID);
    } catch (error) {
      if (error instanceof ApiError) return undefined; // the request itself reports a missing agent
      throw error;
    }
  }

  /** The agent's state as stored now (and cached for `state`). */
  async read(userID: string, agentID: string): Promise<AutopilotRecord | undefined> {
    const readAt = Date.now();
    const state = await this.#store.readAutopilot(userID, agentID);
    this.#cache(agentID, state, readAt);
    return state;
  }

  /** Keeps `state` for `state()`, unless what is cached is newer (a write here while it was read). */
  #cache(agentID: string, state: AutopilotRecord | undefined, readAt: number): void {
    const cached = this.#states.get(agentID)?.state;
    if ((cached?.revision ?? 0) <= (state?.revision ?? 0)) this.#states.set(agentID, { state, readAt });
  }

  /** The agent's state was written around this class (sync stored the server's): read it again next time. */
  forget(agentID: string): void {
    this.#states.delete(agentID);
  }

  /**
   * Changes the agent's state as stored now: `change` returns the new state, or undefined to leave
   * it. Written over the revision it read (AutopilotRecord.revision); if another writer came first,
   * read and changed again, so a person's switch and a background step never undo each other, in
   * one process or in several that share the store.
   */
  update(userID: string, agentID: string, change: (state: AutopilotRecord) => AutopilotRecord | undefined): Promise<AutopilotRecord> {
    return againOnConflict(async () => {
      const readAt = Date.now();
      const stored = (await this.#store.readAutopilot(userID, agentID)) ?? initialState({ id: agentID, userID });
      const changed = change(stored);
      if (!changed) return stored;
      const next = { ...changed, revision: (stored.revision ?? 0) + 1 };
      await this.#store.writeAutopilot(userID, next);
      this.#cache(agentID, next, readAt);
      return next;
    });
  }

  /**
   * Stores what a step made from the state it `read`, unless another step (another process's)
   * decided or proposed since: then that one's work stands. A switch made meanwhile is kept, and
   * with `whileOff: 'skip'` what the step made is not stored if autopilot is off by then. Resolves
   * to the state as stored.
   */
  #settle(userID: string, read: AutopilotRecord, made: AutopilotRecord, { whileOff = 'keep' }: { whileOff?: 'keep' | 'skip' } = {}): Promise<AutopilotRecord> {
    return this.update(userID, read.agentID, (stored) =>
      sameWork(stored, read) && (stored.enabled || whileOff === 'keep') ? { ...made, enabled: stored.enabled } : undefined,
    );
  }

  /** Feedback or a new version arrived: check the agent soon (every CHECK_EVERY nudges, and on the first). */
  nudge(userID: string, agentID: string, force = false): void {
    const count = this.#nudges.get(agentID);
    this.#nudges.set(agentID, (count ?? -1) + 1);
    if (!force && count !== undefined && (count + 1) % CHECK_EVERY !== 0) return;
    if (!this.#queue.some((job) => job.agentID === agentID)) this.#queue.push({ userID, agentID });
    this.#running ??= this.#drain();
  }

  /** Resolves once no background work is queued or running. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    // after the response that nudged: the current request finishes first
    await this.#yieldControl();
    while (this.#queue.length > 0) {
      const { userID, agentID } = this.#queue.shift()!;
      try {
        await this.step(userID, agentID);
      } catch (error) {
        this.lastError = error;
      }
    }
    this.#running = undefined;
  }

  /** One round of background work on the agent. */
  async step(userID: string, agentID: string): Promise<void> {
    if (await this.#learnsElsewhere(userID)) return;
    const agent = await this.#store.readAgent(userID, agentID);
    // as stored, not as cached: another process may have decided or proposed meanwhile
    const state = (await this.read(userID, agentID)) ?? initialState(agent);
    // a step stopped between writing an adoption down and promoting its version: promote it now
    const last = state.trials.at(-1);
    if (last?.outcome === 'adopted' && agent.latestVersion === last.basedOn) return this.#promote(userID, agentID, last);
    if (!isOn(agent, state)) return;
    const log = await readCombinedLog(this.#store, userID, agentID, agent.performance!);
    if (state.candidate) {
      await this.#judge(userID, agent, state, log);
    } else {
      const end = proposalEnd(log, state.feedbackSeen);
      if (end) await this.#propose(userID, agent, state, log, end);
    }
  }

  async #judge(userID: string, agent: AgentRecord, state: AutopilotRecord, log: CombinedLog): Promise<void> {
    const candidate = state.candidate!;
    // After the evaluations the proposal saw: feedback that came after it. Not by time: the
    // version's createdAt may be a millisecond ahead of the clock (each version gets a new one), so
    // whether an evaluation made right after it counted depended on timing. (Records from before
    // `seen` still go by time.)
    const since = Date.parse(candidate.since);
    const fresh = candidate.seen === undefined ? rowsAfter(log, undefined).filter((row) => log.createdAt[row]! >= since) : rowsAfter(log, candidate.seen);
    // Only evaluations autopilot answered (each with its draw's density) were shared out between
    // the arms at random; an app that explores itself (?explore=) is always answered by the latest.
    const randomised = fresh.filter((row) => log.density[row]! > 0);
    const servedBy = (versionID: string) => {
      const version = log.versionIDs.indexOf(versionID);
      return randomised.flatMap((row, i) => (log.version[row] === version ? [i] : []));
    };
    const [currentRows, triedRows] = [servedBy(candidate.basedOn), servedBy(candidate.versionID)];
    const metricOf = (i: number) => log.metric[randomised[i]!]!;
    const [current, tried] = [currentRows.map(metricOf), triedRows.map(metricOf)];
    const decidedAt = timestamp();
    let trial: TrialRecord;
    if (agent.latestVersion !== candidate.basedOn) {
      trial = {
        versionID: candidate.versionID,
        basedOn: candidate.basedOn,
        outcome: 'abandoned',
        pValue: null,
        current: summarise(current),
        candidate: summarise(tried),
        decidedAt,
      };
    } else {
      const earlier = rowsUpTo(log, candidate.seen).slice(-WINDOW);
      const adjusted = await learn.situationAdjusted(
        learn.loggedOf(log, earlier),
        learn.loggedOf(log, randomised),
        agent,
        this.#yieldControl,
        SLICE_MS,
        state.spread ?? learn.WIDEST_SPREAD,
      );
      const [currentRelative, triedRelative] = [currentRows.map((i) => adjusted[i]!), triedRows.map((i) => adjusted[i]!)];
      const decision = decideTrial(currentRelative, triedRelative, 'maximize');
      if (decision.verdict === 'continue') return;
      trial = {
        versionID: candidate.versionID,
        basedOn: candidate.basedOn,
        outcome: decision.verdict === 'adopt' ? 'adopted' : 'dropped',
        pValue: decision.pValue,
        current: summarise(current),
        candidate: summarise(tried),
        gain: measuredGain(currentRelative, triedRelative),
        decidedAt,
      };
    }
    const trials = [...state.trials, trial];
    const gain = trial.outcome === 'adopted' ? await this.#gainSince(userID, trials, candidate.versionID, log) : state.gain;
    // the trial's feedback is new data for the next proposal, which may follow at once
    const { candidate: _done, gain: _before, ...rest } = state;
    // Written down first, promoted after, and only if this step's decision is the one stored: not
    // one another process made meanwhile, nor one made while a person switched autopilot off.
    const written = await this.#settle(userID, state, { ...rest, trials, ...(gain ? { gain } : {}) }, { whileOff: 'skip' });
    if (trial.outcome === 'adopted' && written.trials.includes(trial)) await this.#promote(userID, agent.id, trial);
  }

  /**
   * Makes an adopted trial's version the latest, if the agent is still at the version it was tried
   * against: else a person's edit or rollback came first, and stands.
   */
  async #promote(userID: string, agentID: string, trial: TrialRecord): Promise<void> {
    try {
      await this.#store.promoteVersion(userID, agentID, trial.versionID, trial.basedOn);
    } catch (error) {
      if (!(error instanceof ApiError && error.name === 'Conflict')) throw error;
    }
  }

  /**
   * What the adopted versions gained together: `latest` against the version the run of adoptions
   * that led to it started from (or the oldest in that run that answered at least GAIN_FEWEST of the
   * newest WINDOW evaluations with autopilot's draw), estimated per metric on those evaluations, where both served
   * (learn's compareAgents). Undefined when there is no such version or no estimate.
   */
  async #gainSince(userID: string, trials: readonly TrialRecord[], latest: string, log: CombinedLog): Promise<AutopilotGain | undefined> {
    const first = Math.max(0, log.size - WINDOW);
    const rows = Int32Array.from({ length: log.size - first }, (_, i) => first + i);
    const served = new Map<string, number>();
    for (const row of rows) {
      // the estimate's correction needs the density: evaluations an app explored itself, or made while autopilot was off, carry none
      if (!(log.density[row]! > 0)) continue;
      const version = log.versionIDs[log.version[row]!]!;
      served.set(version, (served.get(version) ?? 0) + 1);
    }
    const since = adoptionsLeadingTo(trials, latest).find((version) => version !== latest && (served.get(version) ?? 0) >= GAIN_FEWEST);
    if (since === undefined) return undefined;
    // the gain is a report: if it cannot be made, the trial is still decided and the proposal still made
    try {
      const [before, after] = await Promise.all([this.#store.readVersion(userID, since), this.#store.readVersion(userID, latest)]);
      const columns = learn.rowsOf(log, rows);
      const metrics: AutopilotGain['metrics'] = {};
      for (const [m, name] of log.metrics.entries()) {
        const metric = Float64Array.from(rows, (row) => log.values[row * log.metrics.length + m]!);
        const estimate = await learn.compareAgents(before, after, { ...columns, metric }, { sliceMs: SLICE_MS, yieldControl: this.#yieldControl });
        if (!estimate) return undefined;
        metrics[name] = estimate.gain;
      }
      return { since, versionID: latest, evaluationsUsed: rows.length, metrics, estimatedAt: timestamp() };
    } catch (error) {
      this.lastError = error;
      return undefined;
    }
  }

  async #propose(userID: string, agent: AgentRecord, state: AutopilotRecord, all: CombinedLog, end: { position: number; rows: number }): Promise<void> {
    // the newest WINDOW of the evaluations whose feedback had come by `end`
    const log = learn.rowsOf(all, rowsUpTo(all, end.position).slice(-WINDOW));
    // with each proposal, the estimate of what the adopted versions gained is made again on the newer log
    const gain = await this.#gainSince(userID, state.trials, agent.latestVersion, all);
    // the next draws' spread, measured on the same window (it stays while a trial runs: none is proposed then)
    const spread = await learn.spreadFor(log, compileAgent(agent), timeSlices(this.#yieldControl, SLICE_MS));
    const seen = { usedFeedback: state.usedFeedback + end.rows, feedbackSeen: end.position, spread, ...(gain ? { gain } : {}) };
    const result = await learn.optimizeAgent(agent, log, {
      goal: 'maximize',
      seed: 1,
      estimationPoints: ESTIMATION_POINTS,
      sliceMs: SLICE_MS,
      yieldControl: this.#yieldControl,
      structure: true,
      halfLife: HALF_LIFE,
    });
    // A trial costs traffic: only a proposal whose out-of-sample gain is clearly positive gets one.
    if (result.status !== 'optimized' || result.changes.length === 0 || !(result.offPolicy && result.offPolicy.gain.low > 0)) {
      await this.#settle(userID, state, { ...state, ...seen });
      return;
    }
    // switched off, or another process proposed, while this one searched: no version for nothing
    const now = (await this.read(userID, agent.id)) ?? state;
    if (!sameWork(now, state)) return;
    if (!now.enabled) {
      await this.#settle(userID, state, { ...state, ...seen });
      return;
    }
    const { body, parsedRules } = versionBody(agent.name, result.definition, agent.performance);
    const evidence = {
      evaluationsUsed: result.evaluationsUsed,
      estimate: { before: result.before, after: result.after },
      ...(result.offPolicy ? { offPolicy: result.offPolicy } : {}),
      changes: result.changes.length,
      summary: learn.describeProposal(
        agent,
        result.definition,
        result.changes,
        metricInWords(agent.performance!),
        result.offPolicy?.gain,
        result.evaluationsUsed,
      ),
    };
    // the trial counts feedback after all it saw (`seen`), not only after what the proposal used
    const seenFeedback = all.feedbackSeq.reduce((most, seq) => Math.max(most, seq), end.position);
    // the version and the state naming it are stored together, or neither: switched off, or
    // another process decided or proposed, since the check above, no version is left behind
    await againOnConflict(async () => {
      const readAt = Date.now();
      const stored = await this.#store.addCandidateVersion(
        userID,
        agent.id,
        agent.latestVersion,
        body,
        parsedRules,
        { origin: 'autopilot', evidence },
        (current, version) => {
          const now = current ?? initialState(agent);
          if (!sameWork(now, state) || !now.enabled) return undefined;
          const candidate = { versionID: version.id, basedOn: agent.latestVersion, since: version.createdAt, seen: seenFeedback, definition: body };
          return { ...state, ...seen, candidate, enabled: true, revision: (now.revision ?? 0) + 1 };
        },
      );
      if (stored) this.#cache(agent.id, stored.state, readAt);
    });
  }
}
