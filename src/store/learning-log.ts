import type { LogColumns } from '../learn/dataset.js';
import { clipMetric, Moments } from '../learn/statistics.js';
import type { AgentRecord, EvaluationRecord } from './records.js';

/** What learning asks of an agent's log (docs/LEARNING.md, "What learning reads"). */
export interface LearningLogQuery {
  /** the metrics to read: an evaluation is learnt from when its feedback carries every one */
  readonly metrics: readonly string[];
  /** the most evaluations returned as rows: the newest */
  readonly most: number;
  /**
   * Read on past the newest `most` to the oldest log, summarising every version (`total`,
   * `versions`); otherwise the read stops at `most` rows and they summarise only those.
   */
  readonly whole?: boolean;
}

/** One version's feedback, over the evaluations read. */
export interface VersionFeedback {
  /** evaluations whose feedback carries every metric asked */
  complete: number;
  /** per metric asked, the latest values of the evaluations that carry it */
  metrics: Moments[];
}

/**
 * The numbers learning needs from an agent's log, with no object per evaluation: the newest `most`
 * evaluations whose feedback carries every metric asked, oldest first, as columns in the agent's
 * own variables (LogColumns without `metric`); and, over the evaluations read (the whole log with
 * `whole`), how many such evaluations there are and each version's feedback summarised.
 */
export interface LearningLog extends Omit<LogColumns, 'metric'> {
  agent: AgentRecord;
  metrics: readonly string[];
  /** size × metrics: each evaluation's latest value of each metric */
  values: Float64Array;
  /** the version that answered each evaluation, as an index into `versionIDs` */
  version: Int32Array;
  versionIDs: string[];
  /** when each evaluation was made, ms since 1970 */
  createdAt: Float64Array;
  /**
   * When the newest feedback on each evaluation arrived, as a position in the store's order of
   * feedback (comparable within one store only): what is new since an earlier read.
   */
  feedbackSeq: Float64Array;
  /** evaluations read whose feedback carries every metric asked (`size` of them are rows); the whole log's with `whole` */
  total: number;
  /** every metric name posted as feedback on the evaluations read */
  metricNames: Set<string>;
  versions: Map<string, VersionFeedback>;
}

/** The log fields learning reads. */
export type LoggedAnswer = Pick<EvaluationRecord, 'versionID' | 'createdAt' | 'input' | 'crisp' | 'returned' | 'density'>;

/**
 * Builds a LearningLog from logs given newest first, each with its feedback's latest values: the
 * rows grow up to `most` (typed arrays, doubled as needed) and the rest only count. Both stores
 * read through it, page by page, so memory is bounded by `most`, not by the log.
 */
export class LearningLogBuilder {
  readonly #agent: AgentRecord;
  readonly #metrics: readonly string[];
  readonly #most: number;
  readonly #whole: boolean;
  readonly #inputNames: string[];
  readonly #outputNames: string[];
  readonly #metricNames = new Set<string>();
  readonly #versions = new Map<string, VersionFeedback>();
  readonly #versionIndex = new Map<string, number>();
  #capacity = 0;
  #size = 0;
  #total = 0;
  #inputs = new Float64Array(0);
  #crisp = new Float64Array(0);
  #returned = new Float64Array(0);
  #density = new Float64Array(0);
  #values = new Float64Array(0);
  #version = new Int32Array(0);
  #createdAt = new Float64Array(0);
  #feedbackSeq = new Float64Array(0);

  /** Whether the read may stop: `most` rows, and not asked for the whole log. */
  get done(): boolean {
    return !this.#whole && this.#size === this.#most;
  }

  constructor(agent: AgentRecord, query: LearningLogQuery) {
    this.#agent = agent;
    this.#metrics = query.metrics;
    this.#most = Math.max(0, Math.floor(query.most));
    this.#whole = query.whole ?? false;
    this.#inputNames = Object.keys(agent.inputs);
    this.#outputNames = Object.keys(agent.outputs);
  }

  /** Metric names posted on the agent's evaluations that no `add` carries (feedback without the metrics asked). */
  noteNames(names: Iterable<string>): void {
    for (const name of names) this.#metricNames.add(name);
  }

  /**
   * The next log, older than every one added before it; `values` per metric asked (NaN: no
   * feedback carries it); `feedbackSeq`: its newest feedback's position in the store's order.
   */
  add(log: LoggedAnswer, values: ArrayLike<number>, feedbackSeq: number): void {
    let versionFeedback = this.#versions.get(log.versionID);
    if (!versionFeedback) {
      versionFeedback = { complete: 0, metrics: this.#metrics.map(() => new Moments()) };
      this.#versions.set(log.versionID, versionFeedback);
    }
    let complete = true;
    for (let m = 0; m < this.#metrics.length; m++) {
      const value = values[m]!;
      if (value === value) versionFeedback.metrics[m]!.add(value);
      else complete = false;
    }
    if (!complete) return;
    versionFeedback.complete++;
    this.#total++;
    if (this.#size === this.#most) return;
    if (this.#size === this.#capacity) this.#grow();
    const row = this.#size++;
    const put = (into: Float64Array, names: readonly string[], record: Readonly<Record<string, number>>) =>
      names.forEach((name, i) => (into[row * names.length + i] = Object.hasOwn(record, name) ? record[name]! : NaN));
    put(this.#inputs, this.#inputNames, log.input);
    put(this.#crisp, this.#outputNames, log.crisp);
    put(this.#returned, this.#outputNames, log.returned ?? log.crisp);
    this.#density[row] = log.density ?? NaN;
    for (let m = 0; m < this.#metrics.length; m++) this.#values[row * this.#metrics.length + m] = values[m]!;
    let index = this.#versionIndex.get(log.versionID);
    if (index === undefined) this.#versionIndex.set(log.versionID, (index = this.#versionIndex.size));
    this.#version[row] = index;
    this.#createdAt[row] = Date.parse(log.createdAt);
    this.#feedbackSeq[row] = feedbackSeq;
  }

  #grow(): void {
    this.#capacity = Math.min(this.#most, Math.max(1024, this.#capacity * 2));
    const grown = <T extends Float64Array | Int32Array>(from: T, width: number): T => {
      const into = (from instanceof Int32Array ? new Int32Array(this.#capacity * width) : new Float64Array(this.#capacity * width)) as T;
      into.set(from);
      return into;
    };
    this.#inputs = grown(this.#inputs, this.#inputNames.length);
    this.#crisp = grown(this.#crisp, this.#outputNames.length);
    this.#returned = grown(this.#returned, this.#outputNames.length);
    this.#density = grown(this.#density, 1);
    this.#values = grown(this.#values, this.#metrics.length);
    this.#version = grown(this.#version, 1);
    this.#createdAt = grown(this.#createdAt, 1);
    this.#feedbackSeq = grown(this.#feedbackSeq, 1);
  }

  /** The log, rows oldest first. */
  finish(): LearningLog {
    const size = this.#size;
    // rows came newest first: reverse each array in place, row by row
    const reversed = <T extends Float64Array | Int32Array>(array: T, width: number): T => {
      const rows = array.subarray(0, size * width) as T;
      for (let a = 0, b = size - 1; a < b; a++, b--) {
        for (let d = 0; d < width; d++) {
          const swap = rows[a * width + d]!;
          rows[a * width + d] = rows[b * width + d]!;
          rows[b * width + d] = swap;
        }
      }
      return rows;
    };
    return {
      agent: this.#agent,
      metrics: this.#metrics,
      size,
      inputNames: this.#inputNames,
      outputNames: this.#outputNames,
      inputs: reversed(this.#inputs, this.#inputNames.length),
      crisp: reversed(this.#crisp, this.#outputNames.length),
      returned: reversed(this.#returned, this.#outputNames.length),
      density: reversed(this.#density, 1),
      values: reversed(this.#values, this.#metrics.length),
      version: reversed(this.#version, 1),
      versionIDs: [...this.#versionIndex.keys()],
      createdAt: reversed(this.#createdAt, 1),
      feedbackSeq: reversed(this.#feedbackSeq, 1),
      total: this.#total,
      metricNames: this.#metricNames,
      versions: this.#versions,
    };
  }
}

/**
 * One evaluation's feedback, oldest first, reduced to the latest value of each metric asked
 * (NaN where none carries it), clipped to ±METRIC_LIMIT as all of learning reads it; every name
 * posted goes to `names`.
 */
export function latestValues(
  feedback: Iterable<{ readonly data: Readonly<Record<string, number>> }>,
  metrics: readonly string[],
  names: Set<string>,
): Float64Array {
  const values = new Float64Array(metrics.length).fill(NaN);
  for (const { data } of feedback) {
    for (const name of Object.keys(data)) names.add(name);
    metrics.forEach((metric, m) => {
      if (Object.hasOwn(data, metric)) values[m] = clipMetric(data[metric]!);
    });
  }
  return values;
}
