// The published shape of the package: after `npm run build`, every subpath of the `exports` map
// imports in plain Node (package self-reference, Node's own resolver, not Vite's) and has its types.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, string | { types: string; import: string }>;
};

function importInNode(specifier: string, expression: string): unknown {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(${expression}));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output);
}

describe('package exports (run `npm run build` first)', () => {
  it.each([
    ['fuzzbox', ['createFuzzyService', 'compileAgent', 'evaluate', 'ApiError']],
    ['fuzzbox/engine', ['parseRule', 'printRule', 'compileAgent', 'evaluate', 'evaluateBatch', 'RuleSyntaxError', 'AgentValidationError']],
    ['fuzzbox/formats', ['readFcl', 'writeFcl', 'readFll', 'writeFll', 'readFis', 'writeFis', 'readModel', 'writeModel', 'FormatError', 'MEDIA_TYPES']],
    ['fuzzbox/sw', ['installFuzzyService']],
    ['fuzzbox/client', ['registerFuzzyWorker', 'FuzzyClient', 'FuzzyApiError']],
    ['fuzzbox/vite', ['fuzzbox', 'default']],
  ])('%s imports in Node with its public names', (specifier, names) => {
    const exported = importInNode(specifier, 'Object.keys(m)') as string[];
    expect(exported).toEqual(expect.arrayContaining(names));
  });

  it('the built engine evaluates: one triangle reached at 0.5 balances at its centre', () => {
    // "low" [0,10] is the only set of x, so its midpoint equals the range's and it rises (SPEC 4.1):
    // at x = 5, μ = 0.5. out "mid" = [0,5,10] clipped at
    // 0.5 is the trapezoid (0,0)(2.5,0.5)(7.5,0.5)(10,0), symmetric about 5, so crisp = 5.
    const crisp = importInNode(
      'fuzzbox/engine',
      `m.evaluate(m.compileAgent({inputs: {x: {low: [0, 10]}}, outputs: {y: {mid: [0, 5, 10]}}, rules: ['IF x IS low THEN y IS mid']}), {x: 5}).crisp`,
    );
    expect(crisp).toEqual({ y: 5 });
  });

  it('every types and file path of the exports map exists', () => {
    for (const [subpath, target] of Object.entries(packageJson.exports)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.import];
      for (const file of files) expect(existsSync(file), `${subpath} → ${file}`).toBe(true);
    }
  });
});

describe('fuzzbox/node is the server side only', () => {
  /** Every module the built `entry` loads, following its static and dynamic imports through the chunks. */
  function bareImports(entry: string): Set<string> {
    const bare = new Set<string>();
    const seen = new Set<string>();
    const pending = [entry];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
        if (specifier!.startsWith('.')) pending.push(new URL(specifier!, new URL(file, 'file:///')).pathname.slice(1));
        else bare.add(specifier!);
      }
    }
    return bare;
  }

  it('its bundle never loads dexie, while the root entry does', () => {
    const node = bareImports('dist/node.js');
    expect(node).toContain('pg');
    expect(node).not.toContain('dexie');
    expect(bareImports('dist/index.js')).toContain('dexie');
  });
});
