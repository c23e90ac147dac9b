export { createFuzzyService, type FuzzyService, type FuzzyServiceOptions, type OptimizeProgress } from './service';
export { routes } from './routes';
export type { Route, Handler } from './router';
export type { Context, ServiceState } from './context';
