export { FuzzboxDatabase, type DatabaseOptions } from './database';
export * from './records';
export * from './accounts';
export * from './agents';
export * from './evaluations';
export * from './feedback';
export { newId, timestamp } from './ids';
export { EvaluationWriter, type EvaluateAgent } from './evaluation-writer';
