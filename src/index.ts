// The `fuzzbox` entry: the REST service as one request handler, and the engine it runs.
export { createFuzzyService, type FuzzyServiceOptions } from './service.js';
export type { FuzzyService, ServiceOptions, OptimizeProgress, StorageManagerLike, SyncControl, SyncEvent, SyncOptions, FetchLike } from './api/index.js';
export * from './engine/index.js';
export type {
  Agent,
  AgentBody,
  AgentInput,
  AgentSummary,
  AgentVersion,
  VersionSummary,
  EvaluationLog,
  EvaluationMeta,
  Feedback,
  Account,
  ServiceInfo,
  ErrorBody,
  ErrorName,
  Issue,
  OptimizeBody,
  OptimizeInput,
  OptimizeResult,
  Performance,
  RecordCounts,
  StorageStatus,
  BackupHeader,
  BackupRecord,
  ImportResult,
  RetentionPolicy,
  SyncStatus,
  PullHeader,
  AutopilotState,
  AutopilotGain,
  PerformanceReport,
  MeanInterval,
  Trial,
  GainInterval,
} from './schema/index.js';
export { ApiError, type IssueList } from './schema/index.js';
export type {
  FuzzboxStore,
  Candidate,
  CandidateDecision,
  StoredEvaluation,
  EvaluationQuery,
  EvaluationPage,
  EvaluationPosition,
  ChangePage,
  ChangeFeed,
  SyncRecord,
} from './store/store.js';
export type { AutopilotLine } from './schema/sync.js';
export type { LogColumns } from './learn/dataset.js';
export type { Moments, MeanEstimate } from './learn/statistics.js';
export type { LearningLog, LearningLogQuery, VersionFeedback } from './store/learning-log.js';
export type { ImportRecord, VersionLine } from './store/backup-records.js';
export type { Stored } from './store/import-rules.js';
export type {
  AccountRecord,
  AgentRecord,
  VersionRecord,
  EvaluationRecord,
  FeedbackRecord,
  StoredTrace,
  Provenance,
  TrialRecord,
  AutopilotRecord,
} from './store/records.js';
export type { VersionOrigin } from './schema/agent.js';
