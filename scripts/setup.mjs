#!/usr/bin/env node
// Installs whatever a fresh machine is missing, so that `npm test`, `npm run demo` and
// `npm run bench` work on a clean clone: npm packages always, with --browser Debian's Chromium,
// Firefox ESR, WebKitGTK's WebDriver and Xvfb (never a browser download),
// with --server Debian's PostgreSQL (the server's tests start their own cluster) and the
// Python and PHP clients the server's tests drive it with.
// Uses only Node built-ins, because it runs before node_modules exists.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const log = (message) => quiet || console.log(`[setup] ${message}`);
const run = (command) => execSync(command, { cwd: root, stdio: 'inherit' });

// node_modules is current when it was installed from this very lock file. Compared by content,
// not by time: npm writes the lock and node_modules' own copy in no guaranteed order.
const stamp = join(root, 'node_modules', '.fuzzbox-lock-hash');
const lockHash = createHash('sha256').update(readFileSync(join(root, 'package-lock.json'))).digest('hex');

if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockHash) {
  log('installing npm packages (npm ci)');
  // without the package's own `prepare` (which builds dist/ for git installs): every npm script
  // that runs setup builds next anyway, and no dependency has an install script
  run('npm ci --ignore-scripts --no-audit --no-fund');
  writeFileSync(stamp, lockHash);
}

/** Debian packages whose marker file is missing, installed in one apt-get run (as root). */
function installDebianPackages(wanted, why) {
  const missing = wanted.filter(({ present }) => !present());
  if (missing.length === 0) return;
  const names = missing.map(({ name }) => name).join(' ');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !existsSync('/usr/bin/apt-get')) {
    console.error(`[setup] ${why} need Debian's ${names}: as root, apt-get update && apt-get install -y ${names}`);
    process.exit(1);
  }
  log(`installing ${names} with apt-get (${why})`);
  run('apt-get update -qq');
  run(`DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${names}`);
}

// The browser tests run in each engine Debian packages: Chromium (playwright-core over CDP),
// Firefox ESR (puppeteer-core over WebDriver BiDi) and WebKitGTK (WebKitWebDriver and its
// MiniBrowser, which needs an X display: xvfb-run). test/browser/engines.ts finds them at these paths.
if (args.has('--browser')) {
  installDebianPackages(
    [
      { name: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
      { name: 'firefox-esr', present: () => existsSync(process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr') },
      { name: 'webkit2gtk-driver', present: () => existsSync(process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver') },
      { name: 'xvfb xauth', present: () => existsSync('/usr/bin/xvfb-run') && existsSync('/usr/bin/xauth') },
    ],
    'the browser tests',
  );
}

if (args.has('--server')) {
  const postgresInstalled = () =>
    existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`));
  // Debian's python3 (/usr/bin), not one earlier on PATH: python3-requests installs for it
  const pythonHas = (module) => {
    try {
      execSync(`/usr/bin/python3 -c "import ${module}"`, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const phpHasCurl = () => {
    try {
      return execSync('php -r "echo function_exists(\'curl_init\') ? 1 : 0;"', { encoding: 'utf8' }).trim() === '1';
    } catch {
      return false;
    }
  };
  installDebianPackages(
    [
      { name: 'postgresql', present: postgresInstalled },
      { name: 'python3-requests', present: () => pythonHas('requests') },
      { name: 'php-cli php-curl', present: phpHasCurl },
    ],
    "the server's tests",
  );
}
