// The answers of autopilot and performance (docs/REST.md, "Learning on autopilot"), typed once:
// the service builds them, FuzzyClient returns them.
import type { Performance, VersionOrigin } from './agent.js';

/** A mean with its 95% confidence interval; `low`/`high` are null below 2 values (JSON has no infinity). */
export interface MeanInterval {
  n: number;
  mean: number | null;
  low: number | null;
  high: number | null;
}

/** GET /agent/:id/autopilot (docs/REST.md, "Learning on autopilot"). */
export interface AutopilotState {
  enabled: boolean;
  /** `enabled` and the agent has `performance` */
  active: boolean;
  performance: Performance | null;
  /** the widest spread of autopilot's draws, and every output's at first, in shares of its range */
  exploration: number;
  /** each output's spread now, in shares of its range: `exploration`, or narrower where exploring it costs */
  spread: Record<string, number>;
  candidateShare: number;
  proposeEvery: number;
  window: number;
  usedFeedback: number;
  candidate: { versionID: string; basedOn: string; since: string } | null;
  trials: Trial[];
  /**
   * What autopilot's adopted versions gained together: the latest version against the version
   * they started from, per metric (latest minus `since`, in the metric's units, 95% interval);
   * null before the first adoption or once the latest version is not autopilot's.
   */
  gain: AutopilotGain | null;
}

/** GET /agent/:id/performance: per version, oldest first. */
export interface PerformanceReport {
  latestVersion: string;
  performance: Performance | null;
  versions: Array<{
    id: string;
    createdAt: string;
    origin: VersionOrigin | null;
    /** why the version exists: `{to, from}` for a rollback, the estimates of an optimization or a proposal */
    evidence: Record<string, unknown> | null;
    evaluations: number;
    feedback: number;
    metrics: Record<string, MeanInterval>;
  }>;
}

/** A difference with its 95% interval, in the metric's units. */
export interface GainInterval {
  value: number;
  low: number;
  high: number;
}

/** One decided trial of a candidate version (docs/LEARNING.md, "Trying a proposal"). */
export interface Trial {
  versionID: string;
  basedOn: string;
  outcome: 'adopted' | 'dropped' | 'abandoned';
  /** one-sided p-value of "the candidate is better"; null when abandoned undecided */
  pValue: number | null;
  current: MeanInterval;
  candidate: MeanInterval;
  /** adopted and dropped trials: the candidate's gain over `basedOn` as the trial measured it, relative to the situation */
  gain?: GainInterval;
  decidedAt: string;
}

/** The latest version against the version autopilot's run of adoptions started from, per metric of `performance`. */
export interface AutopilotGain {
  /**
   * the version autopilot started from: the newest one no trial adopted, or, when it served too
   * few of the evaluations read, the oldest adopted after it that served enough
   */
  since: string;
  /** the latest version, when it was estimated */
  versionID: string;
  /** evaluations with feedback the estimate used */
  evaluationsUsed: number;
  /** per metric: latest minus `since`, in the metric's units, with a 95% interval */
  metrics: Record<string, GainInterval>;
  estimatedAt: string;
}
