// Scratch consumer projects: an empty ESM project in a temporary directory, and the package as
// `npm pack` makes it from the built dist/ (`npm run build` first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

export function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** From npm's cache when it holds the packages (it does after `npm ci`); the registry otherwise. */
export const INSTALL_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** An empty ESM project; `manifest` adds fields to its package.json. */
export function scratchProject(manifest: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'fuzzbox-consumer-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', ...manifest }));
  return dir;
}

/**
 * Packs the built package into `dir`. Without its scripts: `prepare` would build again, and
 * dist/ is what is being tested.
 */
export function pack(dir: string): { filename: string; files: string[] } {
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return { filename: packed!.filename, files: packed!.files.map((file) => file.path) };
}
