export { registerFuzzyWorker, WorkerRegistrationError } from './register';
export type { FuzzyWorker, RegisterOptions, WorkerUpdate } from './register';
export { FuzzyClient, FuzzyApiError } from './client';
export type { Evaluation, EvaluateOptions, FuzzyClientOptions } from './client';
