export * from './agent';
export * from './evaluation';
export * from './feedback';
export * from './account';
export * from './errors';
export * from './optimize';
