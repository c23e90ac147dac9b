// The demo's own REST interface, called from its page with the key the demo keeps.
import type { Page } from 'playwright-core';

export function demoApi<T = unknown>(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const key = localStorage.getItem('fuzzbox-demo:/:apiKey');
      const response = await fetch(path, {
        method,
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    },
    { method, path, body },
  ) as Promise<{ status: number; body: T }>;
}
