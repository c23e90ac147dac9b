export { registerFuzzyWorker, WorkerRegistrationError } from './register.js';
export type { FuzzyWorker, RegisterOptions, WorkerUpdate } from './register.js';
export { FuzzyClient, FuzzyApiError } from './client.js';
export type { Evaluation, EvaluateOptions, FuzzyClientOptions } from './client.js';
export { requestPersistence } from './persistence.js';
