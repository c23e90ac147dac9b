export type { FuzzboxStore, StoredEvaluation, EvaluationQuery, EvaluationPage, EvaluationPosition } from './store.js';
export type { LearningLog, LearningLogQuery, VersionFeedback } from './learning-log.js';
export { DexieStore } from './dexie-store.js';
export { FuzzboxDatabase, type DatabaseOptions } from './database.js';
export * from './records.js';
export { newId, timestamp } from './ids.js';
export type { ImportRecord } from './backup.js';
