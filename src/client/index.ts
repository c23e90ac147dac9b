export { registerFuzzyWorker, WorkerRegistrationError } from './register.js';
export type { FuzzyWorker, RegisterOptions, WorkerUpdate } from './register.js';
export { FuzzyClient, FuzzyApiError } from './client.js';
export type { Evaluation, FuzzyClientOptions, InferenceOptions, ListEvaluationsOptions } from './client.js';
export { requestPersistence } from './persistence.js';
export { SYNC_EVENTS, type WorkerSyncSettings } from '../sw/messages.js';
export { WorkerSyncError, type WorkerSync } from './sync.js';
export type { SyncEvent } from '../core/replicator.js';
export type { SyncStatus } from '../schema/sync.js';
// Every type the client's methods take or return, by name, so an app can annotate its own code.
export type {
  AgentDefinition,
  Aggregation,
  Defuzzification,
  Inputs,
  Operators,
  OutputOperators,
  Outputs,
  SetDefinition,
  SNorm,
  TermDefinition,
  TNorm,
  ValidationIssue,
  VariableDefinition,
} from '../engine/types.js';
export type {
  Account,
  Agent,
  AgentInput,
  AgentSummary,
  AgentVersion,
  AutopilotGain,
  AutopilotState,
  ErrorName,
  EvaluationEntry,
  EvaluationList,
  EvaluationLog,
  EvaluationMeta,
  Feedback,
  GainInterval,
  ImportResult,
  MeanInterval,
  OptimizeInput,
  OptimizeResult,
  Performance,
  PerformanceReport,
  RecordCounts,
  ServiceInfo,
  StorageStatus,
  Trial,
  VersionOrigin,
  VersionSummary,
} from '../schema/index.js';
