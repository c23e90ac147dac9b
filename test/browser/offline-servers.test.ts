// Offline start under real web servers. The example app (examples/offline-app, built here with
// its own vite config and `fuzzbox/vite`) and the demo are served by the real `vite preview`, and
// the example by small servers each behaving like a kind of real one: `Vary: Origin` (what vite
// preview sends; module scripts and stylesheets are requested with an Origin header),
// `Cache-Control: no-store`, ETags answered with 304s, gzip and brotli bodies. In each, Chromium
// with a profile on disk: first visit, reload, reload offline, a second tab opened offline, and
// the browser restarted offline.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build, createServer as createViteServer, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAgent, evaluate } from '../../src/engine/index.js';
import { chromiumArgs, chromiumPath, contentTypes, requireBuild, root } from './harness.js';

const example = join(root, 'examples/offline-app');
const exampleBuild = join(root, 'test-output/offline-app');

// What the example's page shows: its agent at 12 °C, worked out here by the engine itself.
const fanSpeed = evaluate(
  compileAgent({
    inputs: { temperature: { cold: [0, 10, 20], hot: [10, 20, 30] } },
    outputs: { speed: { slow: [0, 25, 50], fast: [50, 75, 100] } },
    rules: ['IF temperature IS cold THEN speed IS slow', 'IF temperature IS hot THEN speed IS fast'],
  }),
  { temperature: 12 },
).crisp.speed!;

beforeAll(async () => {
  requireBuild('dist/vite.js', 'dist/fuzzbox-sw.js', 'dist/client.js', 'demo-dist/index.html');
  // Exactly what an app's `vite build` does: the example's own config, which imports fuzzbox/vite.
  await build({ root: example, logLevel: 'warn', build: { outDir: exampleBuild, emptyOutDir: true } });
});

describe('the example app', () => {
  // As Vite's app templates do, with skipLibCheck; test/package/consumer.test.ts checks the published types themselves.
  it('type-checks (strict) against the built types of fuzzbox/vite and fuzzbox/client', () => {
    execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', example], { cwd: root, encoding: 'utf8' });
  }, 60_000);

  it('is built with the worker at its root, listing every built file with a revision', () => {
    const worker = readFileSync(join(exampleBuild, 'fuzzbox-sw.js'), 'utf8');
    const manifest = JSON.parse(/^self\.__WB_MANIFEST = (.*);$/m.exec(worker)![1]!) as Array<{ url: string; revision: string }>;
    const urls = manifest.map((entry) => entry.url);
    expect(urls).toHaveLength(3);
    expect(urls).toEqual(
      expect.arrayContaining([expect.stringMatching(/^assets\/index-.*\.css$/), expect.stringMatching(/^assets\/index-.*\.js$/), 'index.html']),
    );
    for (const { url, revision } of manifest) {
      expect(revision).toBe(
        createHash('sha256')
          .update(readFileSync(join(exampleBuild, url)))
          .digest('hex')
          .slice(0, 20),
      );
    }
  });
});

/** A static server of the example's build with one real server's habits. */
type Habit = (request: IncomingMessage, body: Buffer, headers: Record<string, string>) => { status: number; body: Buffer };

const habits: Record<string, Habit> = {
  'Vary: Origin': (_, body, headers) => {
    headers['Vary'] = 'Origin';
    headers['Cache-Control'] = 'no-cache';
    return { status: 200, body };
  },
  'Cache-Control: no-store': (_, body, headers) => {
    headers['Cache-Control'] = 'no-store';
    return { status: 200, body };
  },
  'ETags answered with 304': (request, body, headers) => {
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    headers['ETag'] = etag;
    headers['Cache-Control'] = 'no-cache';
    return request.headers['if-none-match'] === etag ? { status: 304, body: Buffer.alloc(0) } : { status: 200, body };
  },
  'gzip bodies': (request, body, headers) => compressed(request, body, headers, 'gzip', gzipSync),
  'brotli bodies': (request, body, headers) => compressed(request, body, headers, 'br', brotliCompressSync),
};

function compressed(request: IncomingMessage, body: Buffer, headers: Record<string, string>, encoding: string, compress: (body: Buffer) => Buffer) {
  headers['Vary'] = 'Accept-Encoding';
  headers['Cache-Control'] = 'no-cache';
  if (!String(request.headers['accept-encoding']).includes(encoding)) throw new Error(`Chromium did not accept ${encoding}`);
  headers['Content-Encoding'] = encoding;
  return { status: 200, body: compress(body) };
}

interface Served {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

async function serveWithHabit(habit: Habit): Promise<Served> {
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://host').pathname;
    requests.push(path);
    let file = join(exampleBuild, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (path.includes('..') || !existsSync(file)) return void response.writeHead(404).end();
    const headers: Record<string, string> = { 'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream' };
    try {
      const answer = habit(request, readFileSync(file), headers);
      response.writeHead(answer.status, { ...headers, 'Content-Length': String(answer.body.length) }).end(answer.body);
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

async function vitePreview(options: { root?: string; configFile?: string; outDir?: string }): Promise<Served> {
  const requests: string[] = [];
  const server: PreviewServer = await preview({
    ...(options.root ? { root: options.root } : {}),
    configFile: options.configFile ?? false,
    logLevel: 'warn',
    ...(options.outDir ? { build: { outDir: options.outDir } } : {}),
    preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false },
    plugins: [
      {
        name: 'record-requests',
        configurePreviewServer: (server) => void server.middlewares.use((request, _, next) => (requests.push(request.url ?? ''), next())),
      },
    ],
  });
  const { port } = server.httpServer.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, requests, close: () => server.close() };
}

/** Chromium with its profile in a directory of its own, so the worker and its cache are on disk. */
function launch(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: chromiumPath(), headless: true, args: chromiumArgs });
}

/** Goes through every way a page starts, checking each time that `started` says it did, online or offline. */
async function startsEverywhichWay(served: Served, started: (page: Page) => Promise<string>, expected: { online: RegExp; offline: RegExp }) {
  const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-profile-'));
  let context = await launch(profile);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${served.origin}/`);
    expect(await started(page)).toMatch(expected.online);
    await page.reload();
    expect(await started(page)).toMatch(expected.online);

    await context.setOffline(true);
    const servedOnline = served.requests.length;
    await page.reload();
    expect(await started(page)).toMatch(expected.offline);
    const second = await context.newPage();
    await second.goto(`${served.origin}/`);
    expect(await started(second)).toMatch(expected.offline);
    await context.close();

    // The browser restarted with the network off: the worker starts from the profile on disk.
    context = await launch(profile);
    await context.setOffline(true);
    const restarted = context.pages()[0] ?? (await context.newPage());
    await restarted.goto(`${served.origin}/`);
    expect(await started(restarted)).toMatch(expected.offline);
    expect(served.requests.length).toBe(servedOnline);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The example's answer once its status says it is ready, or what its status says instead. */
async function exampleStarted(page: Page): Promise<string> {
  await page.waitForFunction(() => document.querySelector('#status')?.textContent !== 'Starting…', null, { timeout: 15_000 });
  const status = await page.textContent('#status');
  return status!.startsWith('Ready') ? `${status}: ${await page.textContent('#speed')}` : status!;
}

const speed = String(fanSpeed).replace('.', '\\.');
const exampleReady = { online: new RegExp(`^Ready: ${speed}$`), offline: new RegExp(`^Ready, offline: ${speed}$`) };

describe('offline start of the example app, served by', () => {
  it('vite preview', async () => {
    const served = await vitePreview({ root: example, outDir: exampleBuild });
    try {
      // The habit that broke offline starts: the stored answers vary with the Origin header.
      expect((await fetch(`${served.origin}/`)).headers.get('Vary')).toMatch(/\bOrigin\b/);
      await startsEverywhichWay(served, exampleStarted, exampleReady);
    } finally {
      await served.close();
    }
  });

  for (const [name, habit] of Object.entries(habits)) {
    it(`a server sending ${name}`, async () => {
      const served = await serveWithHabit(habit);
      try {
        await startsEverywhichWay(served, exampleStarted, exampleReady);
      } finally {
        await served.close();
      }
    });
  }
});

describe('the example app under the dev server (`vite`)', () => {
  it('is answered by the same worker, with nothing kept offline', async () => {
    const server = await createViteServer({ root: example, logLevel: 'warn', server: { host: '127.0.0.1', port: 0, strictPort: true } });
    await server.listen();
    const origin = `http://127.0.0.1:${(server.httpServer!.address() as AddressInfo).port}`;
    const profile = mkdtempSync(join(tmpdir(), 'fuzzbox-profile-'));
    const context = await launch(profile);
    try {
      expect(await (await fetch(`${origin}/fuzzbox-sw.js`)).text()).toMatch(/^self\.__WB_MANIFEST = \[\];\n/);
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(`${origin}/`);
      expect(await exampleStarted(page)).toMatch(exampleReady.online);
    } finally {
      await context.close();
      await server.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});

describe('the demo', () => {
  it('starts offline when served by vite preview, as `npm run demo` serves it', async () => {
    const served = await vitePreview({ configFile: join(root, 'vite.demo.config.ts') });
    try {
      await startsEverywhichWay(
        served,
        async (page) => {
          await page.waitForFunction(() => document.querySelectorAll('#history tr').length > 0, null, { timeout: 15_000 });
          return (await page.textContent('#status'))!;
        },
        { online: /^Ready/, offline: /^Offline/ },
      );
    } finally {
      await served.close();
    }
  });
});
