// `fuzzbox serve` as a child process (the CLI from source, through tsx), and the raw HTTP the
// server tests read header lines from.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Call at a test file's top: a maker of new temporary directories, all removed after the file's tests. */
export function temporaryDirectories(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
export interface Child {
  process: ChildProcess;
  url: string;
  /** every JSON line the child printed so far */
  lines: Array<Record<string, unknown>>;
  /** what the child wrote on stderr so far */
  stderr(): string;
  /** resolves with the exit code */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/**
 * A test's time for starting PGlite servers: a first start creates the database (initdb), 10–30 s
 * alone and minutes on a machine other test files load.
 */
export const PGLITE_STARTS = 360_000;

/** `fuzzbox …args` run to its end: its exit code and output. */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node/cli.ts', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts `fuzzbox serve --port 0 …args` and resolves once it listens. */
export function startServe(args: string[]): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/node/cli.ts', 'serve', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
        buffer = buffer.slice(end + 1);
        lines.push(line);
        if (line.event === 'listening') {
          resolve({
            process: child,
            url: line.url as string,
            lines,
            stderr: () => stderr,
            exited,
            stop: () => {
              if (child.exitCode === null) child.kill('SIGTERM');
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => reject(new Error(`fuzzbox serve exited (${code}) before listening: ${stderr}`)));
  });
}

export interface RawResponse {
  status: number;
  /** the header lines exactly as they came over the wire */
  headerLines: string[];
  body: any;
}

/** One HTTP request; the answer with its raw header lines (Node's rawHeaders keep the case sent). */
export function rawRequest(
  url: string,
  method: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const request = httpRequest(url, {
      method,
      headers: {
        ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...options.headers,
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headerLines: string[] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) headerLines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
        const text = Buffer.concat(chunks).toString();
        resolve({ status: response.statusCode!, headerLines, body: text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
