export { optimizeAgent, evaluationsNeeded } from './optimize.js';
export type { Goal, OptimizeOptions, OptimizeProgress, OptimizeResult } from './optimize.js';
export type { LoggedEvaluation } from './dataset.js';
export type { Change, Side } from './tuning.js';
export { explore, MAX_EXPLORATION } from './explore.js';
export { seededRandom, gaussian, type Random } from './random.js';
