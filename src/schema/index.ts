export * from './agent.js';
export * from './evaluation.js';
export * from './feedback.js';
export * from './account.js';
export * from './errors.js';
export * from './optimize.js';
export * from './storage.js';
export * from './backup.js';
