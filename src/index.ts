// The `fuzzbox` entry: the REST service as one request handler, and the engine it runs.
export { createFuzzyService, type FuzzyService, type FuzzyServiceOptions, type OptimizeProgress } from './api/index';
export * from './engine/index';
export type {
  Agent,
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
  OptimizeResult,
} from './schema/index';
export { ApiError } from './schema/index';
