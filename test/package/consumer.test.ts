// The package as a consumer gets it: the built package packed with `npm pack`, installed from the
// tarball into a scratch ESM project, and type-checked there with the project's TypeScript under
// moduleResolution NodeNext, Node16 and Bundler, strict, skipLibCheck off. Every entry point of
// package.json's `exports` is imported (read from package.json, so a new entry is covered the day
// it is added); test/package/consumer/*.ts use the main ones with types that fail if they were `any`.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALL_FLAGS, npm, pack, root, scratchProject } from './scratch.js';
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  peerDependencies?: Record<string, string>;
};

/** Where each entry point is used, and so which `lib` its consumer compiles with; default a page. */
const environmentOf: Record<string, Environment> = { './sw': 'worker', './node': 'node', './vite': 'node' };
type Environment = 'page' | 'worker' | 'node';
const environments: Record<Environment, { lib: string[]; types: string[]; uses?: string }> = {
  page: { lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [], uses: 'uses-page.ts' },
  worker: { lib: ['ES2022', 'WebWorker'], types: [], uses: 'uses-worker.ts' },
  node: { lib: ['ES2022'], types: ['node'] },
};
const modes = [
  { moduleResolution: 'NodeNext', module: 'NodeNext' },
  { moduleResolution: 'Node16', module: 'Node16' },
  { moduleResolution: 'Bundler', module: 'ESNext' },
] as const;

/** Entry points with code (`{types, import}`), as `fuzzbox/…` specifiers, by environment. */
const codeEntries = Object.entries(packageJson.exports).filter(([, target]) => typeof target === 'object');
const specifier = (subpath: string) => (subpath === '.' ? packageJson.name : `${packageJson.name}/${subpath.slice(2)}`);
const entriesOf = (environment: Environment) =>
  codeEntries.filter(([subpath]) => (environmentOf[subpath] ?? 'page') === environment).map(([subpath]) => specifier(subpath));

let consumer: string;
let packedFiles: string[];

beforeAll(() => {
  for (const [, target] of codeEntries) {
    const types = (target as Record<string, string>).types;
    if (types === undefined) continue; // reported by its own test below
    try {
      readFileSync(join(root, types));
    } catch {
      throw new Error(`${types} is missing: run \`npm run build\` first.`);
    }
  }
  consumer = scratchProject();
  const packed = pack(consumer);
  packedFiles = packed.files;
  // What a consumer of a Node-side entry has anyway: Node's types, and every peer (e.g. vite for fuzzbox/vite).
  const peers = Object.keys(packageJson.peerDependencies ?? {});
  const extra = entriesOf('node').length > 0 ? ['@types/node', ...peers].map((name) => `${name}@${installedVersion(name)}`) : [];
  npm(['install', `./${packed.filename}`, ...extra, ...INSTALL_FLAGS, '--ignore-scripts'], consumer);
  for (const file of ['uses-page.ts', 'uses-worker.ts']) copyFileSync(join(import.meta.dirname, 'consumer', file), join(consumer, file));
  for (const environment of Object.keys(environments) as Environment[]) {
    writeFileSync(join(consumer, `entries-${environment}.ts`), entriesFile(entriesOf(environment)));
  }
}, 240_000);

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** One namespace import per entry, and a constant that only type-checks if none of its values is `any`. */
function entriesFile(specifiers: string[]): string {
  const lines = [
    'type IsAny<T> = 0 extends 1 & T ? true : false;',
    'type AnyExports<M> = { [K in keyof M]-?: IsAny<M[K]> extends true ? K : never }[keyof M];',
  ];
  specifiers.forEach((name, index) => {
    lines.push(`import * as entry${index} from '${name}';`);
    lines.push(`export const entry${index}Typed: [AnyExports<typeof entry${index}>] extends [never] ? 'typed' : AnyExports<typeof entry${index}> = 'typed';`);
  });
  return `${lines.join('\n')}\n`;
}

function createProgram(environment: Environment, mode: (typeof modes)[number]): ts.Program {
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...mode,
      target: 'ES2022',
      lib: environments[environment].lib,
      types: environments[environment].types,
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    },
    consumer,
  );
  expect(errors).toEqual([]);
  const uses = environments[environment].uses;
  const rootNames = [`entries-${environment}.ts`, ...(uses ? [uses] : [])].map((file) => join(consumer, file));
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile;
  // Every program reads the same lib and package files: parse each once (per module format).
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const key = `${fileName} ${JSON.stringify(languageVersion)}`;
    let file = parsedFiles.get(key);
    if (!file) {
      file = read.call(host, fileName, languageVersion, ...rest);
      if (file) parsedFiles.set(key, file);
    }
    return file;
  };
  return ts.createProgram({ rootNames, options, host });
}
const parsedFiles = new Map<string, ts.SourceFile>();

function diagnostics(program: ts.Program): string {
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => consumer,
    getNewLine: () => '\n',
  });
}

describe('the packed package in a consumer project (run `npm run build` first)', () => {
  it('packs dist, the README and the LICENSE, and no sources or tests', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js']));
    expect(packedFiles.filter((file) => /^(src|test|demo|bench|scripts)\//.test(file))).toEqual([]);
  });

  it('every entry point with code has types', () => {
    for (const [subpath, target] of codeEntries) expect(Object.keys(target), subpath).toContain('types');
    expect(codeEntries.length).toBeGreaterThanOrEqual(4);
  });

  const checked = (Object.keys(environments) as Environment[]).filter((environment) => entriesOf(environment).length > 0);
  for (const mode of modes) {
    for (const environment of checked) {
      it(`type-checks under moduleResolution ${mode.moduleResolution} in a ${environment} (strict, skipLibCheck off)`, () => {
        expect(diagnostics(createProgram(environment, mode))).toBe('');
      }, 180_000); // type-checking lib.dom.d.ts and the package with skipLibCheck off: 3–30 s
    }
  }

  it('every type an entry point takes or returns is exported by name from it', () => {
    const missing: string[] = [];
    for (const environment of checked) missing.push(...unexportedTypes(createProgram(environment, modes[0]), environment));
    expect(missing).toEqual([]);
  }, 180_000);

  it('every array an entry point takes is accepted read-only (`as const` data, frozen arrays)', () => {
    const mutable: string[] = [];
    for (const environment of checked) mutable.push(...mutableArrayParameters(createProgram(environment, modes[0]), environment));
    expect(mutable).toEqual([]);
  }, 180_000);
});

/**
 * Parameters of what an entry point exports (its functions, and its classes' methods and
 * constructors, through the types they name) whose type holds an array a caller could not pass
 * read-only. What callbacks and caller-implemented interfaces (a store) take is what fuzzbox hands
 * out, so it is not counted.
 */
function mutableArrayParameters(program: ts.Program, environment: Environment): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(consumer, `entries-${environment}.ts`))!;
  const ours = (node: ts.Node) => node.getSourceFile().fileName.includes(`/node_modules/${packageJson.name}/`);
  const resolveAlias = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const found = new Set<string>();

  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const entry = (statement.moduleSpecifier as ts.StringLiteral).text;
    const visitedTypes = new Set<ts.Node>();

    /** Inside a parameter's type: arrays must be readonly; named types of the package are followed. */
    const checkType = (node: ts.Node, where: string): void => {
      // a callback, or an interface the caller implements (a store): what it takes fuzzbox gives
      if (isSignature(node) || ts.isTypeQueryNode(node) || isPrivateOrInternal(node)) return;
      const readonlyOperand = ts.isTypeOperatorNode(node.parent) && node.parent.operator === ts.SyntaxKind.ReadonlyKeyword;
      if ((ts.isArrayTypeNode(node) || ts.isTupleTypeNode(node)) && !readonlyOperand) found.add(`${entry}: ${where} takes ${node.getText()}`);
      if (ts.isTypeReferenceNode(node)) {
        const name = node.typeName;
        if (ts.isIdentifier(name) && name.text === 'Array') found.add(`${entry}: ${where} takes ${node.getText()}`);
        const target = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name);
        for (const declaration of (target ? resolveAlias(target) : undefined)?.declarations ?? []) {
          if (!ours(declaration) || !(ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration)) || visitedTypes.has(declaration))
            continue;
          visitedTypes.add(declaration);
          ts.forEachChild(declaration, (child) => checkType(child, `${where} → ${declaration.name.text}`));
        }
      }
      ts.forEachChild(node, (child) => checkType(child, where));
    };
    /** Every parameter of every public signature in an exported declaration. */
    const visitDeclaration = (node: ts.Node, owner: string): void => {
      if (isPrivateOrInternal(node)) return;
      if (ts.isParameter(node) && node.type) {
        checkType(node.type, `${owner}(${node.name.getText()})`);
        return;
      }
      ts.forEachChild(node, (child) => visitDeclaration(child, owner));
    };
    for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(statement.moduleSpecifier)!).map(resolveAlias)) {
      for (const declaration of symbol.declarations ?? []) {
        if (ours(declaration) && (ts.isFunctionDeclaration(declaration) || ts.isClassDeclaration(declaration))) {
          visitDeclaration(declaration, symbol.name);
        }
      }
    }
  }
  return [...found];
}

/**
 * Walks the declarations of everything an entry point exports, through every type they name,
 * and lists the package's own types among them that the entry point does not export: a user
 * could receive such a value but never name its type.
 */
function unexportedTypes(program: ts.Program, environment: Environment): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(consumer, `entries-${environment}.ts`))!;
  const ours = (node: ts.Node) => node.getSourceFile().fileName.includes(`/node_modules/${packageJson.name}/`);
  const resolveAlias = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const missing: string[] = [];

  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const entry = (statement.moduleSpecifier as ts.StringLiteral).text;
    const exported = new Set(checker.getExportsOfModule(checker.getSymbolAtLocation(statement.moduleSpecifier)!).map(resolveAlias));
    const visited = new Set<ts.Node>();
    const reported = new Set<ts.Symbol>();

    const visit = (node: ts.Node, usedBy: string): void => {
      if (isPrivateOrInternal(node) || ts.isTypeQueryNode(node)) return;
      const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : undefined;
      if (name) {
        const target = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name);
        const symbol = target && resolveAlias(target);
        const declarations = (symbol?.declarations ?? []).filter((declaration) => ours(declaration) && isTypeDeclaration(declaration));
        // A base interface's name is not needed to use what extends it; its members are walked.
        if (declarations.length > 0 && ts.isTypeReferenceNode(node) && !exported.has(symbol!) && !reported.has(symbol!)) {
          reported.add(symbol!);
          missing.push(`${entry}: ${symbol!.name} (used by ${usedBy})`);
        }
        for (const declaration of declarations) {
          if (!visited.has(declaration)) {
            visited.add(declaration);
            visit(declaration, symbol!.name);
          }
        }
      }
      ts.forEachChild(node, (child) => visit(child, usedBy));
    };

    for (const symbol of exported) {
      for (const declaration of symbol.declarations ?? []) {
        if (ours(declaration) && !visited.has(declaration)) {
          visited.add(declaration);
          visit(declaration, symbol.name);
        }
      }
    }
  }
  return missing;
}

function isSignature(node: ts.Node): boolean {
  return ts.isFunctionTypeNode(node) || ts.isMethodSignature(node) || ts.isCallSignatureDeclaration(node) || ts.isConstructSignatureDeclaration(node);
}

function isTypeDeclaration(node: ts.Node): boolean {
  return ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isClassDeclaration(node) || ts.isEnumDeclaration(node);
}

/** `#private`, `private`, and members documented `@internal` are no part of what a user handles. */
function isPrivateOrInternal(node: ts.Node): boolean {
  if (!ts.isClassElement(node) && !ts.isTypeElement(node)) return false;
  if (node.name && ts.isPrivateIdentifier(node.name)) return true;
  if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)) return true;
  return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
}
