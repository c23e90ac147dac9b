// The team's reference data lives beside the repository, in ../shared (fuzzylite's examples,
// jFuzzyLogic's tests); FUZZBOX_SHARED points elsewhere, e.g. from a git worktree.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const sharedFolder = process.env.FUZZBOX_SHARED ?? fileURLToPath(new URL('../../../shared', import.meta.url));

/** A file of ../shared as text. */
export function sharedText(path: string): string {
  return readFileSync(join(sharedFolder, path), 'utf8');
}

/** Every file under a folder of ../shared, as paths relative to ../shared, sorted. */
export function sharedFiles(folder: string): string[] {
  return (readdirSync(join(sharedFolder, folder), { recursive: true, withFileTypes: true }) as Array<{ name: string; parentPath: string; isFile(): boolean }>)
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(sharedFolder.length + 1))
    .sort();
}
