// The architecture the folders show, held: every import in src/ points down the layers (README,
// "Layout"), and no modules import each other in a circle. Read from the sources' import
// statements, as the compiler resolves relative paths.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const SRC = 'src';

/** One import of a module: where from, and whether it brings only types (erased when compiled). */
interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports and re-exports of `file`, resolved to source paths under src/. */
function importsOf(file: string, text: string): Edge[] {
  const edges: Edge[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?(?:([^'";]*?)\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const [, , typeKeyword, clause = '', specifier] of text.matchAll(statement)) {
    // `import {type A, type B} from` brings only types too; `import {A, type B}` does not
    const names = /^\{([\s\S]*)\}$/
      .exec(clause.trim())?.[1]
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const typeOnly = typeKeyword !== undefined || (names !== undefined && names.length > 0 && names.every((name) => name.startsWith('type ')));
    edges.push({ from: file, to: join(dirname(file), specifier!).replace(/\.js$/, '.ts'), typeOnly });
  }
  for (const [, specifier] of text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    edges.push({ from: file, to: join(dirname(file), specifier!).replace(/\.js$/, '.ts'), typeOnly: false });
  }
  return edges;
}

/**
 * The layer a source file belongs to: a folder of src/, the store's port (the files directly in
 * src/store) apart from its two backends, and the entry points at the root of src/.
 */
function layerOf(file: string): string {
  const parts = relative(SRC, file).split(/[\\/]/);
  if (parts.length === 1) return 'entry';
  if (parts[0] === 'store' && (parts[1] === 'dexie' || parts[1] === 'postgres')) return `store/${parts[1]}`;
  return parts[0]!;
}

/** What each layer may import besides itself: only layers below it. */
const ALLOWED: Record<string, readonly string[]> = {
  engine: [],
  learn: ['engine'],
  formats: ['engine'],
  schema: ['engine'],
  store: ['schema', 'learn', 'engine'],
  'store/dexie': ['store', 'schema', 'learn', 'engine'],
  'store/postgres': ['store', 'schema', 'learn', 'engine'],
  core: ['store', 'schema', 'formats', 'learn', 'engine'],
  api: ['core', 'store', 'schema', 'formats', 'learn', 'engine'],
  // the adapters: each composes what it serves from the layers below
  entry: ['api', 'core', 'store', 'store/dexie', 'schema', 'formats', 'learn', 'engine'],
  sw: ['entry', 'api', 'core', 'store', 'schema', 'engine'],
  client: ['sw', 'core', 'schema', 'engine'],
  node: ['api', 'core', 'store', 'store/postgres', 'schema', 'engine'],
  vite: [],
};

const files = sources(SRC);
const edges = files.flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));

/** The circles of modules importing each other at run time (Tarjan's strongly connected components). */
function importCycles(graph: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to, typeOnly } of graph) if (!typeOnly) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      onStack.delete(member!);
      component.push(member!);
      if (member === node) break;
    }
    if (component.length > 1 || next.get(node)?.includes(node)) cycles.push(component.sort());
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('the layers', () => {
  test('every source file lies in a known layer, and every relative import names a source file', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.map(layerOf).filter((layer) => !(layer in ALLOWED))).toEqual([]);
    const known = new Set(files);
    expect(edges.filter((edge) => !known.has(edge.to)).map((edge) => `${edge.from} → ${edge.to}`)).toEqual([]);
  });

  test('every import points down: api imports no backend, core no api, one backend not the other, the pure layers nothing above them', () => {
    const upward = edges
      .filter((edge) => layerOf(edge.from) !== layerOf(edge.to) && !ALLOWED[layerOf(edge.from)]!.includes(layerOf(edge.to)))
      .map((edge) => `${edge.from} → ${edge.to}`);
    expect(upward).toEqual([]);
  });

  test('no modules import each other in a circle (imports of types aside)', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  test('the check sees what it must refuse: an upward import, a circle, and imports of types', () => {
    const fake = (from: string, text: string) => importsOf(`src/${from}`, text);
    const apiOnDexie = fake('api/service.ts', "import { DexieStore } from '../store/dexie/dexie-store.js';");
    expect(apiOnDexie).toEqual([{ from: 'src/api/service.ts', to: 'src/store/dexie/dexie-store.ts', typeOnly: false }]);
    expect(ALLOWED[layerOf(apiOnDexie[0]!.from)]).not.toContain(layerOf(apiOnDexie[0]!.to));
    expect(ALLOWED.core).not.toContain('api');
    expect(ALLOWED['store/postgres']).not.toContain('store/dexie');
    expect(ALLOWED['store/dexie']).not.toContain('store/postgres');
    const circle = [
      ...fake('core/a.ts', "import { b } from './b.js';"),
      ...fake('core/b.ts', "export {\n  a,\n} from './a.js';"),
      ...fake('core/c.ts', "import { type A, type B } from './a.js';"),
      ...fake('core/a.ts', "import type { C } from './c.js';"),
    ];
    expect(circle.map((edge) => edge.typeOnly)).toEqual([false, false, true, true]);
    expect(importCycles(circle)).toEqual([['src/core/a.ts', 'src/core/b.ts']]);
  });
});
