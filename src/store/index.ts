export { FuzzboxDatabase, type DatabaseOptions } from './database.js';
export * from './records.js';
export * from './accounts.js';
export * from './agents.js';
export * from './evaluations.js';
export * from './feedback.js';
export { newId, timestamp } from './ids.js';
export { EvaluationWriter, type EvaluateAgent } from './evaluation-writer.js';
