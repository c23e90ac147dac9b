// What every browser test and the browser benchmark share: Debian's Chromium driven by
// playwright-core, and a tiny static server on 127.0.0.1 (a secure context, so service workers run).
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';

export const root = resolve(import.meta.dirname, '../..');

export function chromiumPath(): string {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is missing at ${executablePath}: run \`node scripts/setup.mjs --browser\` ` + "(installs Debian's chromium with apt-get) or set CHROMIUM_PATH.",
    );
  }
  return executablePath;
}

/** Headless as root in a container: no sandbox, no GPU, and none of Chromium's own traffic. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: chromiumArgs });
}

/** Fails early, with the command to run, when the build the browser tests load is missing. */
export function requireBuild(...files: string[]): void {
  for (const file of files) {
    if (!existsSync(join(root, file))) throw new Error(`${file} is missing: run \`npm run build\` first.`);
  }
}

export const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

export interface StaticServer {
  readonly origin: string;
  /** Every path asked for, in order; tests read it to prove a request never reached the network. */
  readonly requests: string[];
  /** Every POST body, by path: how a page reports to a script that has no DevTools attached. */
  readonly posted: Array<{ path: string; body: string }>;
  /** Serves `path` with its bytes changed from now on, e.g. a worker with a new build stamp. */
  rewrite(path: string, change: (body: Buffer) => Buffer): void;
  /** Serves `path` with these headers too from now on, e.g. a worker under a Content-Security-Policy. */
  addHeaders(path: string, headers: Record<string, string>): void;
  close(): Promise<void>;
}

/**
 * Serves files by URL prefix: `{ '/': 'demo-dist' }`, or a file per exact path. The longest
 * matching prefix wins; a directory serves its index.html.
 */
export async function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const rewrites = new Map<string, (body: Buffer) => Buffer>();
  const extraHeaders = new Map<string, Record<string, string>>();
  const requests: string[] = [];
  const posted: Array<{ path: string; body: string }> = [];

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://host').pathname);
    requests.push(path);
    if (request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posted.push({ path, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
      return;
    }
    const prefix = prefixes.find((candidate) => path.startsWith(candidate));
    let file = prefix === undefined ? undefined : join(root, mounts[prefix]!, path.slice(prefix.length));
    if (file && existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file || !existsSync(file) || path.includes('..')) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const body = rewrites.get(path)?.(readFileSync(file)) ?? readFileSync(file);
    response
      .writeHead(200, {
        'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        ...extraHeaders.get(path),
      })
      .end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    posted,
    rewrite: (path, change) => void rewrites.set(path, change),
    addHeaders: (path, headers) => void extraHeaders.set(path, headers),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The page the API tests drive: the built `fuzzbox/client` as an app would import it. */
export function startFixtureServer(): Promise<StaticServer> {
  requireBuild('dist/fuzzbox-sw.js', 'dist/client.js');
  return startStaticServer({
    '/': 'test/browser/fixtures',
    '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js',
    '/dist/': 'dist',
    '/vendor/workbox-window.mjs': 'node_modules/workbox-window/build/workbox-window.prod.mjs',
  });
}

/**
 * Bundles `entry` (a path from the repository's root), dependencies included, as one ES module
 * `fileName` in a new temporary folder a page can load; returns the folder.
 */
export async function bundleForPage(entry: string, fileName: string): Promise<string> {
  const { build } = await import('vite');
  const outDir = mkdtempSync(join(tmpdir(), 'fuzzbox-page-'));
  await build({
    configFile: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: { outDir, emptyOutDir: true, target: 'es2022', lib: { entry: join(root, entry), formats: ['es'], fileName: () => fileName } },
  });
  return outDir;
}

/** What `callFromPage` gives back: the status, the `X-Evaluation-ID` header, the parsed body. */
export interface PageReply {
  status: number;
  evaluationID: string | null;
  body: any;
}

/** One plain fetch() from the page, as any app would send it, answered by whatever serves the page. */
export function callFromPage(page: Page, method: string, path: string, body?: unknown, apiKey?: string): Promise<PageReply> {
  return page.evaluate(
    async ({ method, path, body, apiKey }) => {
      const headers: Record<string, string> = {};
      if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: response.status, evaluationID: response.headers.get('X-Evaluation-ID'), body: await response.json() };
    },
    { method, path, body, apiKey },
  );
}
