// The examples of README.md and docs/*.md, run as written. A code block is run when the line
// before its fence says where: `<!-- example: node -->` (plain Node, the built package by its own
// name) or `<!-- example: browser -->` (a page in Chromium that registers the built worker). The
// marked blocks of one document and place run in order as one module, so a later block uses what
// an earlier one defined. A statement ending in a comment that states a value,
// `await response.json(); // { speed: 38.636… }`, is checked against what it really produced
// (`console.log(a, b); // 400, …` checks the arguments); a number ending in `…` must start with
// those digits, `…` alone matches anything, and an object lists all of its keys unless it ends with `…`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { useChromium } from './chromium.js';
import { requireBuild, root, startStaticServer } from './harness.js';

const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const workDirectory = join(root, 'test-output', 'docs-examples');

type Place = 'node' | 'browser';
interface Check {
  location: string;
  pattern: string;
  /** console.log's arguments, compared as a list */
  arguments: boolean;
}
interface Example {
  document: string;
  place: Place;
  source: string;
  checks: Check[];
}

/** Names the examples leave to the app around them. */
const given: Record<Place, string> = {
  node: '',
  browser: 'const showBanner = (_text, _activate) => {};\n',
};

/** The marked blocks of every document, one module per document and place, with checks wired in. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const document of documents) {
    const lines = readFileSync(join(root, document), 'utf8').split('\n');
    const byPlace = new Map<Place, Example>();
    for (let index = 0; index < lines.length; index++) {
      const marker = /^<!-- example: (node|browser) -->$/.exec(lines[index]!.trim());
      if (!marker) continue;
      expect(lines[index + 1], `${document}:${index + 2}: a code fence after the example marker`).toMatch(/^```(ts|js)$/);
      const place = marker[1] as Place;
      const example = byPlace.get(place) ?? { document, place, source: '', checks: [] };
      byPlace.set(place, example);
      for (index += 2; !lines[index]!.startsWith('```'); index++) {
        example.source += `${wireCheck(lines[index]!, `${document}:${index + 1}`, example.checks)}\n`;
      }
    }
    found.push(...byPlace.values());
  }
  return found;
}

/** A line `code; // value` becomes `__check(location, code)`; a comment in words stays a comment. */
function wireCheck(line: string, location: string, checks: Check[]): string {
  const match = /^(\s*)(.*?);\s*\/\/\s*(.*)$/.exec(line);
  if (!match || !/^([[{'"\d-]|…|true\b|false\b|null\b)/.test(match[3]!)) return line;
  const [, indent, code, pattern] = match as unknown as [string, string, string, string];
  // `if (…) console.log(a, b)`: the statement's own prefix stays, the arguments are checked
  const log = /^(.*?)\bconsole\.log\((.*)\)$/.exec(code);
  checks.push({ location, pattern: pattern.trim(), arguments: log !== null });
  const call = (value: string) => `__check(${JSON.stringify(location)}, ${value})`;
  return `${indent}${log ? `${log[1]}${call(`[${log[2]}]`)}` : call(code)};`;
}

function toModule(example: Example): string {
  const prelude = given[example.place];
  const javascript = ts.transpileModule(example.source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  }).outputText;
  return `${prelude}${javascript}`;
}

// ---- what a comment states, and whether a value matches it ----

type Pattern =
  | { kind: 'any' }
  | { kind: 'number'; text: string; prefix: boolean }
  | { kind: 'literal'; value: string | boolean | null }
  | { kind: 'object'; entries: Array<[string, Pattern]>; open: boolean }
  | { kind: 'array'; items: Pattern[]; open: boolean };

function parsePattern(text: string, list: boolean): Pattern {
  const tokens = text.match(/…|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?…?|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[A-Za-z_$][\w$]*|[{}[\]:,]/g) ?? [];
  let position = 0;
  const next = () => tokens[position++];
  const peek = () => tokens[position];
  const expectToken = (token: string) => {
    if (next() !== token) throw new Error(`cannot read the stated value "${text}": expected ${token} at token ${position}`);
  };
  const value = (): Pattern => {
    const token = next();
    if (token === undefined) throw new Error(`cannot read the stated value "${text}": it ends too early`);
    if (token === '…') return { kind: 'any' };
    if (token === '{') {
      const entries: Array<[string, Pattern]> = [];
      let open = false;
      while (peek() !== '}') {
        if (peek() === '…') {
          next();
          open = true;
        } else {
          const key = next()!.replace(/^['"]|['"]$/g, '');
          if (peek() === ':') {
            next();
            entries.push([key, value()]);
          } else entries.push([key, { kind: 'any' }]); // `{ fuzzified, rules }`: the key is there
        }
        if (peek() === ',') next();
      }
      expectToken('}');
      return { kind: 'object', entries, open };
    }
    if (token === '[') return { kind: 'array', ...items(']') };
    if (/^-?\d/.test(token)) return { kind: 'number', text: token.replace('…', ''), prefix: token.endsWith('…') };
    if (/^['"]/.test(token)) return { kind: 'literal', value: token.slice(1, -1).replace(/\\(.)/g, '$1') };
    if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
    if (token === 'null') return { kind: 'literal', value: null };
    throw new Error(`cannot read the stated value "${text}": unexpected ${token}`);
  };
  const items = (end: string | undefined) => {
    const list: Pattern[] = [];
    let open = false;
    while (peek() !== end) {
      const item = value();
      if (item.kind === 'any' && peek() === end && end === ']') open = true;
      else list.push(item);
      if (peek() === ',') next();
    }
    if (end !== undefined) expectToken(end);
    return { items: list, open };
  };
  const pattern: Pattern = list ? { kind: 'array', items: items(undefined).items, open: false } : value();
  if (position !== tokens.length) throw new Error(`cannot read the stated value "${text}": unexpected ${tokens[position]}`);
  return pattern;
}

function matches(pattern: Pattern, actual: unknown): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'number':
      if (typeof actual !== 'number') return false;
      return pattern.prefix ? String(actual).startsWith(pattern.text) : actual === Number(pattern.text);
    case 'literal':
      return actual === pattern.value;
    case 'array':
      if (!Array.isArray(actual)) return false;
      if (pattern.open ? actual.length < pattern.items.length : actual.length !== pattern.items.length) return false;
      return pattern.items.every((item, index) => matches(item, actual[index]));
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
      const keys = Object.keys(actual);
      if (!pattern.open && keys.length !== pattern.entries.length) return false;
      return pattern.entries.every(([key, item]) => Object.hasOwn(actual, key) && matches(item, (actual as Record<string, unknown>)[key]));
    }
  }
}

/** Every check an example ran, in order, compared with what its comment states. */
function compare(example: Example, ran: Array<{ location: string; actual: unknown }>): string[] {
  const problems: string[] = [];
  for (const check of example.checks) {
    const results = ran.filter((result) => result.location === check.location);
    if (results.length === 0) problems.push(`${check.location}: never ran (the example took another path)`);
    for (const { actual } of results) {
      if (!matches(parsePattern(check.pattern, check.arguments), actual)) {
        problems.push(`${check.location}: the comment says ${check.pattern}, the code gives ${JSON.stringify(actual)}`);
      }
    }
  }
  return problems;
}

// ---- running them ----

const all = examples();
const shared = useChromium(() => {
  requireBuild('dist/fuzzbox-sw.js', 'dist/client.js', 'dist/index.js');
  mkdirSync(join(workDirectory, 'page'), { recursive: true });
  return startStaticServer({
    '/': 'test-output/docs-examples/page',
    '/fuzzbox-sw.js': 'dist/fuzzbox-sw.js',
    '/dist/': 'dist',
    '/vendor/workbox-window.mjs': 'node_modules/workbox-window/build/workbox-window.prod.mjs',
  });
});

function runInNode(example: Example): Array<{ location: string; actual: unknown }> {
  // Inside the package's own directory, so `fuzzbox/…` resolves through package.json's exports.
  const file = join(workDirectory, `${example.document.replace(/[/.]/g, '-')}-node.mjs`);
  const harness = 'const __ran = []; globalThis.__check = (location, actual) => { __ran.push({ location, actual }); };\n';
  mkdirSync(workDirectory, { recursive: true });
  writeFileSync(file, `${harness}${toModule(example)}\nprocess.stdout.write('\\n' + JSON.stringify(__ran));\n`);
  const output = execFileSync(process.execPath, [file], { cwd: root, encoding: 'utf8' });
  return JSON.parse(output.slice(output.lastIndexOf('\n') + 1)) as Array<{ location: string; actual: unknown }>;
}

/** Runs the example in a page of `context` (a fresh browser profile when none is given). */
async function runInBrowser(example: Example, given?: BrowserContext): Promise<Array<{ location: string; actual: unknown }>> {
  const name = example.document.replace(/[/.]/g, '-');
  const page = join(workDirectory, 'page');
  writeFileSync(join(page, `${name}.js`), `${toModule(example)}\nwindow.__outcome = { finished: true };\n`);
  // A classic script runs first: it sets up the checks and records what the module throws.
  const setup =
    'window.__ran = []; window.__check = (location, actual) => { window.__ran.push({ location, actual: JSON.parse(JSON.stringify(actual)) }); };' +
    'const fail = (error) => { window.__outcome = { error: String((error && error.stack) || error) }; };' +
    "addEventListener('error', (event) => fail(event.error ?? event.message)); addEventListener('unhandledrejection', (event) => fail(event.reason));";
  writeFileSync(
    join(page, `${name}.html`),
    `<!doctype html><meta charset="utf-8"><script type="importmap">${JSON.stringify({
      imports: { 'fuzzbox/client': '/dist/client.js', 'workbox-window/build/workbox-window.prod.mjs': '/vendor/workbox-window.mjs' },
    })}</script><script>${setup}</script><script type="module" src="/${name}.js"></script>`,
  );
  const context = given ?? (await shared.browser.newContext());
  try {
    const tab = await context.newPage();
    await tab.goto(`${shared.server.origin}/${name}.html`);
    const outcome = await tab.waitForFunction(() => (window as unknown as { __outcome?: unknown }).__outcome, undefined, { timeout: 20_000 });
    expect(await outcome.jsonValue()).toEqual({ finished: true });
    const ran = await tab.evaluate(() => (window as unknown as { __ran: Array<{ location: string; actual: unknown }> }).__ran);
    await tab.close();
    return ran;
  } finally {
    if (!given) await context.close();
  }
}

describe('README and docs examples, run as written (run `npm run build` first)', () => {
  it('the README and every document has runnable examples marked, each with its checks', () => {
    const runnable = new Set(all.map((example) => example.document));
    expect([...runnable].sort()).toEqual(['README.md', 'docs/BROWSER.md', 'docs/ENGINE.md', 'docs/REST.md']);
    expect(all.reduce((count, example) => count + example.checks.length, 0)).toBeGreaterThanOrEqual(4);
  });

  for (const example of all) {
    it(`${example.document} (${example.place}): runs, and every value its comments state is what it produces`, async () => {
      const ran = example.place === 'node' ? runInNode(example) : await runInBrowser(example);
      expect(compare(example, ran)).toEqual([]);
    }, 60_000);
  }

  it('README.md (browser), loaded again in the same browser: the same account and agent, nothing made twice', async () => {
    const readme = all.find((example) => example.document === 'README.md' && example.place === 'browser')!;
    const context = await shared.browser.newContext();
    try {
      const keys: string[] = [];
      for (let visit = 0; visit < 2; visit++) {
        expect(compare(readme, await runInBrowser(readme, context))).toEqual([]);
        // a page of the same origin that runs nothing, to read what the example left
        writeFileSync(join(workDirectory, 'page', 'blank.html'), '<!doctype html><title>blank</title>');
        const tab = await context.newPage();
        await tab.goto(`${shared.server.origin}/blank.html`);
        const state = await tab.evaluate(async () => {
          const key = localStorage.getItem('fuzzbox-key')!;
          const agents = await (await fetch('/agent', { headers: { Authorization: `Bearer ${key}` } })).json();
          return { key, agents: (agents as Array<{ name: string }>).map(({ name }) => name) };
        });
        await tab.close();
        keys.push(state.key);
        expect(state.agents).toEqual(['fan']);
      }
      expect(keys[1]).toBe(keys[0]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a stated value that the code does not produce is caught', () => {
    const example: Example = { document: 'x', place: 'node', source: '', checks: [] };
    wireCheck('await response.json(); // { speed: 31.4… }', 'x:1', example.checks);
    expect(compare(example, [{ location: 'x:1', actual: { speed: 38.63636363636363 } }])).toEqual([
      'x:1: the comment says { speed: 31.4… }, the code gives {"speed":38.63636363636363}',
    ]);
    expect(compare(example, [{ location: 'x:1', actual: { speed: 31.45 } }])).toEqual([]);
    expect(compare(example, [{ location: 'x:1', actual: { speed: 31.45, other: 1 } }])).toHaveLength(1);
    expect(compare(example, [])).toEqual(['x:1: never ran (the example took another path)']);
  });
});

describe('README links', () => {
  it('work from the npm page: absolute, and those into this repository name files that exist', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
    expect(links.filter((link) => !/^https:\/\//.test(link))).toEqual([]);
    const repository = 'https://github.com/fuzzbox/fuzzbox/blob/main/';
    for (const link of links.filter((candidate) => candidate.startsWith(repository))) {
      expect(() => readFileSync(join(root, link.slice(repository.length).split('#')[0]!)), link).not.toThrow();
    }
    expect(links.length).toBeGreaterThanOrEqual(4);
  });
});
