import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The server's drivers: optional peer dependencies, so that a browser app installs none of them. */
export type Driver = '@hono/node-server' | '@electric-sql/pglite' | 'pg';

/** The version range package.json asks for, read only when a driver is missing; the bare name otherwise. */
function installSpec(name: Driver): string {
  try {
    const require = createRequire(import.meta.url);
    const manifest = JSON.parse(readFileSync(require.resolve('fuzzbox/package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
    const range = manifest.peerDependencies?.[name];
    return range ? `${name}@${range}` : name;
  } catch {
    return name;
  }
}

/** A driver the caller needs is not installed: the message names every one missing and the command that installs them. */
export class MissingDriverError extends Error {
  constructor(
    readonly missing: readonly Driver[],
    purpose: string,
  ) {
    super(`${purpose} needs ${missing.join(' and ')}, not installed beside fuzzbox: run  npm install ${missing.map(installSpec).join(' ')}`);
    this.name = 'MissingDriverError';
  }
}
