// The routes to the package the README gives, each into a scratch project: from git (npm clones
// it, installs its dev dependencies and runs `prepare`, which builds dist/), and from the packed
// tarball. A browser app gets no server driver; `fuzzbox serve` without its drivers says which
// to install, and after running that very command it serves. The git route installs the last
// commit (a clone of HEAD), not uncommitted changes.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { INSTALL_FLAGS, npm, pack, root, scratchProject } from './scratch.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const DRIVERS = ['@hono/node-server', '@electric-sql/pglite', 'pg'];

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
function project(fields: Record<string, unknown> = {}): string {
  const dir = scratchProject(fields);
  scratch.push(dir);
  return dir;
}

/** Runs a command in `cwd` to its end; never throws. */
function run(command: string, args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  try {
    return { code: 0, stdout: execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }), stderr: '' };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The package names under a project's node_modules (scoped ones as `@scope/name`). */
function installed(dir: string): string[] {
  const modules = join(dir, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

/** `fuzzbox serve` in `dir` until it listens; answers GET /health, then stops with SIGTERM. */
async function serveAndCheckHealth(dir: string, args: string[]): Promise<{ health: unknown; code: number | null }> {
  const child = spawn(join(dir, 'node_modules/.bin/fuzzbox'), ['serve', '--port', '0', '--quiet', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const listening = out.split('\n').find((line) => line.includes('"listening"'));
      if (listening) resolve((JSON.parse(listening) as { url: string }).url);
    });
    void exited.then((code) => reject(new Error(`fuzzbox serve exited (${code}): ${stderr}`)));
  });
  const health = await (await fetch(`${url}health`)).json();
  child.kill('SIGTERM');
  return { health, code: await exited };
}

describe('from git', () => {
  test('npm install git+file://… builds dist/ on prepare: the CLI and every entry work', async () => {
    const clone = project();
    execFileSync('git', ['clone', '--quiet', root, join(clone, 'fuzzbox')]);
    // as a newcomer types it: npm ≥ 11.19 lists `prepare` among scripts not yet approved, yet builds
    // a git dependency while packing its clone all the same (README, "Installing")
    const consumer = project();
    npm(['install', `git+file://${join(clone, 'fuzzbox')}`, ...INSTALL_FLAGS], consumer);
    const packageDir = join(consumer, 'node_modules/fuzzbox');
    expect(existsSync(join(packageDir, 'dist/client.js'))).toBe(true);
    expect(readdirSync(packageDir).filter((name) => /^(src|test|node_modules)$/.test(name))).toEqual([]);
    expect(run(join(consumer, 'node_modules/.bin/fuzzbox'), ['--version'], consumer)).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    const imported = run(
      process.execPath,
      [
        '-e',
        "Promise.all(['fuzzbox', 'fuzzbox/client', 'fuzzbox/engine', 'fuzzbox/formats', 'fuzzbox/node'].map((name) => import(name))).then((all) => console.log(all.map((m) => Object.keys(m).length > 0).join()))",
      ],
      consumer,
    );
    expect(imported).toEqual({ code: 0, stdout: 'true,true,true,true,true\n', stderr: '' });
  }, 900_000); // npm installs the repository's dev dependencies to build: 2 minutes on a busy machine
});

describe('from the packed tarball', () => {
  test('a browser app installs no server driver; fuzzbox serve names the ones to install, and serves once they are', async () => {
    for (const driver of DRIVERS) {
      expect(manifest.dependencies[driver], driver).toBeUndefined();
      expect(manifest.peerDependenciesMeta[driver], driver).toEqual({ optional: true });
    }
    const consumer = project();
    const { filename } = pack(consumer);
    npm(['install', `./${filename}`, ...INSTALL_FLAGS], consumer);
    expect(installed(consumer).filter((name) => DRIVERS.includes(name))).toEqual([]);
    expect(run(process.execPath, ['-e', "import('fuzzbox/client').then((m) => console.log(typeof m.FuzzyClient))"], consumer).stdout).toBe('function\n');

    const command = (...names: string[]) => `npm install ${names.map((name) => `${name}@${manifest.peerDependencies[name]}`).join(' ')}`;
    const fuzzbox = join(consumer, 'node_modules/.bin/fuzzbox');
    const onPGlite = run(fuzzbox, ['serve', '--port', '0', '--data', 'data'], consumer);
    expect(onPGlite.code).toBe(1);
    expect(onPGlite.stderr).toBe(
      `fuzzbox: a server over PGlite needs @hono/node-server and @electric-sql/pglite, not installed beside fuzzbox: run  ${command('@hono/node-server', '@electric-sql/pglite')}\n`,
    );
    const onPostgres = run(fuzzbox, ['serve', '--port', '0', '--database', 'postgres://localhost/none'], consumer);
    expect(onPostgres.stderr).toContain(`run  ${command('@hono/node-server', 'pg')}\n`);
    // in a program: the same refusal, as an error of its own
    const inProgram = run(
      process.execPath,
      ['-e', "import('fuzzbox/node').then((m) => m.serve({ port: 0 })).catch((e) => console.log(e.name, e instanceof Error))"],
      consumer,
    );
    expect(inProgram.stdout).toBe('MissingDriverError true\n');
    expect(existsSync(join(consumer, 'data'))).toBe(false); // refused before touching anything

    // the command the message gives is the whole fix
    const fix = onPGlite.stderr
      .slice(onPGlite.stderr.indexOf('run  ') + 'run  '.length)
      .trim()
      .split(' ');
    npm([...fix.slice(1), ...INSTALL_FLAGS], consumer);
    expect(await serveAndCheckHealth(consumer, ['--data', 'data'])).toEqual({ health: { status: 'ok' }, code: 0 });
  }, 300_000);
});
