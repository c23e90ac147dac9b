// One process at a time on a PGlite directory: PGlite is PostgreSQL in the process, without the
// postmaster that guards a data directory, so two processes on one directory each write over
// the other's files and lose data without an error. A lock file in the directory names its owner.
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'fuzzbox.lock';

/** Who holds a PGlite directory, as its lock file says. */
export interface LockOwner {
  pid: number;
  host: string;
  /** when the process started, to tell it from a later process given the same pid (Linux) */
  processStart: string | null;
  lockedAt: string;
}

/** Another process holds the directory. */
export class DataDirectoryLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    const where = owner.host === hostname() ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
    super(
      `the data directory ${dataDir} is in use by fuzzbox ${where} since ${owner.lockedAt}: ` +
        `stop that process first, or give another --data directory` +
        (owner.host === hostname() ? '' : ` (if that process is gone, remove ${join(dataDir, LOCK_FILE)})`),
    );
    this.name = 'DataDirectoryLocked';
  }
}

/** The start time of a process in clock ticks since boot (field 22 of /proc/PID/stat), where the system has one. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock's owner is still running: same host, the pid alive, and (where known) the same process. */
function ownerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true; // cannot be told from here: never taken over
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(owner.pid);
  return owner.processStart === null || start === null || start === owner.processStart;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path} is not a fuzzbox lock file (${(error as Error).message}); remove it if no fuzzbox uses the directory`);
  }
}

/**
 * Takes the directory's lock, or throws DataDirectoryLocked naming the process that holds it.
 * A lock whose process is gone (killed, crashed) is taken over (`stale` names that process).
 */
export function lockDataDirectory(dataDir: string): { stale: LockOwner | undefined; release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const mine: LockOwner = { pid: process.pid, host: hostname(), processStart: processStart(process.pid), lockedAt: new Date().toISOString() };
  // written whole under a private name, then linked into place: the lock appears complete or not at all
  const draft = join(dataDir, `${LOCK_FILE}.${process.pid}`);
  writeFileSync(draft, `${JSON.stringify(mine)}\n`);
  let stale: LockOwner | undefined;
  try {
    for (;;) {
      try {
        linkSync(draft, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(path);
      if (owner === undefined) continue; // released meanwhile
      if (ownerAlive(owner)) throw new DataDirectoryLocked(dataDir, owner);
      // Stale: move it aside, and check that what moved is the stale lock; a starter racing us
      // may have replaced it by its own live one, which is put back.
      const aside = join(dataDir, `${LOCK_FILE}.stale.${process.pid}`);
      try {
        renameSync(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readOwner(aside);
      if (moved && moved.pid === owner.pid && moved.lockedAt === owner.lockedAt) {
        unlinkSync(aside);
        stale = owner;
      } else {
        try {
          linkSync(aside, path);
        } finally {
          unlinkSync(aside);
        }
      }
    }
  } finally {
    unlinkSync(draft);
  }
  return {
    stale,
    release() {
      // only our own lock: never one a later owner took over
      const owner = readOwner(path);
      if (owner && owner.pid === mine.pid && owner.lockedAt === mine.lockedAt) unlinkSync(path);
    },
  };
}
