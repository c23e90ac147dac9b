export type { FuzzboxStore, MetricLog, StoredEvaluation, EvaluationQuery, EvaluationPage, EvaluationPosition } from './store.js';
export { DexieStore } from './dexie-store.js';
export { FuzzboxDatabase, type DatabaseOptions } from './database.js';
export * from './records.js';
export { newId, timestamp } from './ids.js';
export type { ImportRecord } from './backup.js';
