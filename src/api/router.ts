import type { Context } from './context.js';

export type Handler = (context: Context) => Promise<Response>;

export interface Route {
  method: string;
  /** e.g. `/agent/:id/version`; a `:name` segment matches one non-empty path segment */
  path: string;
  handler: Handler;
  /** `public`: no API key needed (GET /version, POST /account) */
  access?: 'public' | 'account';
  /** how the body is read; methods other than POST, PUT and PATCH never read one; `stream`: the handler reads it */
  body?: 'required' | 'optional' | 'stream';
  /** the body may also be a model file (FCL, FLL, FIS), read into the JSON body it stands for */
  modelFiles?: true;
}

export type Match = { kind: 'route'; route: Route; params: Record<string, string> } | { kind: 'method-not-allowed'; allow: string[] } | { kind: 'no-route' };

function matchPath(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith(':')) {
      if (actual === '') return undefined;
      params[expected.slice(1)] = actual;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

const split = (path: string) => path.replace(/^\/+/, '').replace(/\/$/, '').split('/');

/** A route table matched in order; a known path with another method answers 405 with `Allow`. */
export function createRouter(routes: readonly Route[]): (method: string, path: string) => Match {
  const compiled = routes.map((route) => ({ route, pattern: split(route.path) }));
  return (method, path) => {
    let segments: string[];
    try {
      segments = split(path).map(decodeURIComponent);
    } catch {
      return { kind: 'no-route' };
    }
    const allow: string[] = [];
    for (const { route, pattern } of compiled) {
      const params = matchPath(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { kind: 'route', route, params };
      if (!allow.includes(route.method)) allow.push(route.method);
    }
    return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'no-route' };
  };
}
