export { compareAgents, optimizeAgent } from './optimize.js';
export type { Goal, OptimizeOptions, OptimizeProgress, OptimizeResult } from './optimize.js';
export { loggedOf, rowsOf, type LogColumns, type LoggedEvaluation } from './dataset.js';
export type { Change, Side } from './tuning.js';
export { explore, MAX_EXPLORATION } from './explore.js';
export { seededRandom, type Random } from './random.js';
export { AUTOPILOT_SCALE, exploreTruncated, explorationDensity } from './policy.js';
export type { OffPolicyEstimate } from './offpolicy.js';
export { situationAdjusted } from './trial.js';
