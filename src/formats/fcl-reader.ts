// IEC 61131-7 FCL, as jFuzzyLogic and fuzzylite write it: FUNCTION_BLOCK, VAR_INPUT / VAR_OUTPUT,
// FUZZIFY / DEFUZZIFY with TERMs (IEC points, fuzzylite's class names, jFuzzyLogic's TRIAN, TRAPE
// and GAUSS), RULEBLOCKs with AND/OR/ACT/ACCU and RULEs. Comments are blanked out in one pass,
// then each line is read once, statement by statement (`;` separates several on one line).

import {
  FormatError,
  fileTerm,
  newRuleBlock,
  newVariable,
  number,
  numbers,
  termKindOf,
  type DefuzzifierKind,
  type FileRuleBlock,
  type FileVariable,
  type ModelFile,
} from './model-file.js';
import { addRule, addTerm, addVariable } from './limits.js';
import { afterWords, find, sourceLines, splitAt, trimmed, withoutComments, words } from './scan.js';

export const T_NORMS: Readonly<Record<string, string | null>> = {
  NONE: null,
  MIN: 'minimum',
  PROD: 'algebraicProduct',
  BDIF: 'boundedDifference',
  DPROD: 'drasticProduct',
  EPROD: 'einsteinProduct',
  HPROD: 'hamacherProduct',
  NMIN: 'nilpotentMinimum',
};
export const S_NORMS: Readonly<Record<string, string | null>> = {
  NONE: null,
  MAX: 'maximum',
  ASUM: 'algebraicSum',
  PROBOR: 'algebraicSum',
  BSUM: 'boundedSum',
  NSUM: 'normalizedSum',
  DSUM: 'drasticSum',
  ESUM: 'einsteinSum',
  HSUM: 'hamacherSum',
  NMAX: 'nilpotentMaximum',
  SUM: 'unboundedSum',
};
export const METHODS: Readonly<Record<string, DefuzzifierKind>> = {
  COG: 'centroid',
  COA: 'bisector',
  LM: 'smallestOfMaximum',
  RM: 'largestOfMaximum',
  MM: 'meanOfMaximum',
  COGS: 'weightedAverage',
  COGSS: 'weightedSum',
};
/** IEC 61131-7: an OR left out pairs with its block's AND by De Morgan. */
const DE_MORGAN: Readonly<Record<string, string>> = { minimum: 'maximum', algebraicProduct: 'algebraicSum' };

function norm(table: Readonly<Record<string, string | null>>, keyword: string, value: string, line: number): { name: string | null; line: number } {
  const upper = value.toUpperCase();
  if (!Object.hasOwn(table, upper))
    throw new FormatError(line, `${keyword} ${value.slice(0, 40)}`, `${keyword} : ${value.slice(0, 40)} is not one FCL has (${Object.keys(table).join(', ')})`);
  return { name: table[upper]!, line };
}

/** `KEY : value` or `KEY := value`: the value, trimmed and without a trailing `;`. */
function valueAfterColon(statement: string, keyword: string, line: number): string {
  const colon = find(statement, ':');
  if (colon < 0) throw new FormatError(line, keyword, `expected "${keyword} : …", got ${JSON.stringify(statement.slice(0, 80))}`);
  return trimmed(statement.slice(colon + (statement.charAt(colon + 1) === '=' ? 2 : 1)));
}

/** IEC points `(x, y) (x, y) …`, read once left to right. */
function pointList(name: string, text: string, line: number): string[] {
  const values: string[] = [];
  for (const piece of splitAt(text, ')')) {
    const content = trimmed(piece);
    if (content === '') continue;
    const comma = find(content, ',');
    if (content.charAt(0) !== '(' || comma < 0)
      throw new FormatError(line, 'point list', `term "${name}": expected points "(x, y) (x, y) …", got ${JSON.stringify(text.slice(0, 80))}`);
    values.push(trimmed(content.slice(1, comma)), trimmed(content.slice(comma + 1)));
  }
  return values;
}

function readTerm(variable: FileVariable, statement: string, line: number): void {
  const assign = find(statement, ':=');
  if (assign < 0) throw new FormatError(line, 'TERM', `expected "TERM name := definition", got ${JSON.stringify(statement.slice(0, 80))}`);
  const [, name] = words(statement.slice(0, assign));
  if (name === undefined) throw new FormatError(line, 'TERM', `expected "TERM name := definition", got ${JSON.stringify(statement.slice(0, 80))}`);
  const definition = trimmed(statement.slice(assign + 2));
  if (definition.charAt(0) === '(') {
    addTerm(variable, fileTerm(name, 'discrete', pointList(name, definition, line), line), line);
    return;
  }
  const [type = '', ...parameters] = words(definition);
  if (parameters.length === 0 && !Number.isNaN(number(type))) {
    addTerm(variable, fileTerm(name, 'constant', [type], line), line);
    return;
  }
  const kind = termKindOf(type);
  if (kind === undefined)
    throw new FormatError(line, type.slice(0, 40), `the term kind ${JSON.stringify(type.slice(0, 40))} of term "${name}" is not one FCL or fuzzylite has`);
  if (kind === 'function') addTerm(variable, { name, line, kind, parameters: [], height: 1, expression: afterWords(definition, 1) }, line);
  else addTerm(variable, fileTerm(name, kind, parameters, line), line);
}

function readRange(statement: string, line: number): [number, number] {
  const value = valueAfterColon(statement, 'RANGE', line);
  const dots = find(value, '..');
  const open = value.charAt(0) === '(' && value.charAt(value.length - 1) === ')';
  if (dots < 0 || !open) throw new FormatError(line, 'RANGE', `expected "RANGE := (min .. max)", got ${JSON.stringify(statement.slice(0, 80))}`);
  const [min, max] = numbers([trimmed(value.slice(1, dots)), trimmed(value.slice(dots + 2, value.length - 1))], line, 'RANGE');
  return [min!, max!];
}

/** Reads an FCL file into what it says; a statement it cannot read is a FormatError naming its line. */
export function readFclFile(text: string): ModelFile {
  const file: ModelFile = { name: '', inputs: [], outputs: [], ruleBlocks: [] };
  const declared = { input: new Map<string, number>(), output: new Map<string, number>() };
  const blocks = new Map<string, FileVariable>();
  let section: 'var_input' | 'var_output' | 'fuzzify' | 'defuzzify' | 'ruleblock' | undefined;
  let variable: FileVariable | undefined;
  let block: FileRuleBlock | undefined;
  let blockSeen = false;
  let ruleCount = 0;
  const expectSection = (line: number, keyword: string, wanted: typeof section, opener: string) => {
    if (section !== wanted) throw new FormatError(line, keyword, `${keyword} without ${opener} before it`);
  };

  const lines = sourceLines(
    withoutComments(text, {
      blocks: [
        ['/*', '*/'],
        ['(*', '*)'],
      ],
      lineStarts: ['//'],
    }),
  );
  for (const { text: rawLine, line } of lines) {
    for (const raw of splitAt(rawLine, ';')) {
      const statement = trimmed(raw);
      if (statement === '') continue;
      const [first = ''] = words(statement);
      const colon = find(first, ':');
      const word = colon < 0 ? first : first.slice(0, colon);
      const keyword = word.toUpperCase();
      switch (keyword) {
        case 'FUNCTION_BLOCK':
          if (blockSeen) throw new FormatError(line, 'FUNCTION_BLOCK', 'a second FUNCTION_BLOCK is not supported: a file holds one agent');
          blockSeen = true;
          file.name = afterWords(statement, 1);
          continue;
        case 'END_FUNCTION_BLOCK':
          section = undefined;
          continue;
        case 'END_VAR':
          if (section !== 'var_input' && section !== 'var_output') throw new FormatError(line, keyword, 'END_VAR without VAR_INPUT or VAR_OUTPUT before it');
          section = undefined;
          continue;
        case 'END_FUZZIFY':
          expectSection(line, keyword, 'fuzzify', 'FUZZIFY');
          section = undefined;
          continue;
        case 'END_DEFUZZIFY':
          expectSection(line, keyword, 'defuzzify', 'DEFUZZIFY');
          section = undefined;
          continue;
        case 'END_RULEBLOCK': {
          expectSection(line, keyword, 'ruleblock', 'RULEBLOCK');
          const and = block!.conjunction?.name;
          if (block!.disjunction === undefined && and && Object.hasOwn(DE_MORGAN, and))
            block!.disjunction = { name: DE_MORGAN[and]!, line: block!.conjunction!.line };
          section = undefined;
          continue;
        }
        case 'VAR_INPUT':
        case 'VAR_OUTPUT':
          section = keyword === 'VAR_INPUT' ? 'var_input' : 'var_output';
          // a declaration may share the line: `VAR_INPUT x : REAL; END_VAR`
          if (afterWords(statement, 1) === '') continue;
          break;
        case 'FUZZIFY':
        case 'DEFUZZIFY': {
          const kind = keyword === 'FUZZIFY' ? 'input' : 'output';
          const name = afterWords(statement, 1);
          if (!declared[kind].has(name))
            throw new FormatError(line, keyword, `${keyword} ${name.slice(0, 40)}: "${name.slice(0, 40)}" is not declared in VAR_${kind.toUpperCase()}`);
          if (blocks.has(`${kind}:${name}`)) throw new FormatError(line, keyword, `a second ${keyword} block for "${name}"`);
          section = keyword === 'FUZZIFY' ? 'fuzzify' : 'defuzzify';
          variable = newVariable(name, line);
          blocks.set(`${kind}:${name}`, variable);
          continue;
        }
        case 'RULEBLOCK':
          section = 'ruleblock';
          block = newRuleBlock(afterWords(statement, 1), line);
          file.ruleBlocks.push(block);
          continue;
      }
      if (section === 'var_input' || section === 'var_output') {
        const declaration = keyword === 'VAR_INPUT' || keyword === 'VAR_OUTPUT' ? afterWords(statement, 1) : statement;
        const separator = find(declaration, ':');
        const name = separator < 0 ? '' : trimmed(declaration.slice(0, separator));
        if (name === '' || words(name).length !== 1 || words(declaration.slice(separator + 1)).length !== 1) {
          throw new FormatError(line, 'VAR', `expected "name : REAL", got ${JSON.stringify(statement.slice(0, 80))}`);
        }
        const kind = section === 'var_input' ? 'input' : 'output';
        if (declared[kind].has(name)) throw new FormatError(line, 'VAR', `"${name}" is declared twice`);
        addVariable(kind === 'input' ? file.inputs : file.outputs, newVariable(name, line), line);
        declared[kind].set(name, line);
        continue;
      }
      if (section === 'fuzzify' || section === 'defuzzify') {
        switch (keyword) {
          case 'TERM':
            readTerm(variable!, statement, line);
            continue;
          case 'RANGE':
            variable!.range = readRange(statement, line);
            continue;
          case 'ENABLED':
            variable!.enabled = valueAfterColon(statement, keyword, line).toUpperCase() !== 'FALSE';
            continue;
        }
      }
      if (section === 'defuzzify') {
        switch (keyword) {
          case 'METHOD': {
            const value = valueAfterColon(statement, keyword, line).toUpperCase();
            if (!Object.hasOwn(METHODS, value))
              throw new FormatError(
                line,
                `METHOD ${value.slice(0, 40)}`,
                `METHOD : ${value.slice(0, 40)} is not one FCL has (${Object.keys(METHODS).join(', ')})`,
              );
            variable!.defuzzifier = { name: METHODS[value]!, line };
            continue;
          }
          case 'ACCU':
            variable!.aggregation = norm(S_NORMS, keyword, valueAfterColon(statement, keyword, line), line);
            continue;
          case 'DEFAULT': {
            const [value = '', ...rest] = splitAt(valueAfterColon(statement, keyword, line), '|').map(trimmed);
            variable!.defaultValue = number(value);
            if (value.toLowerCase() !== 'nan' && Number.isNaN(variable!.defaultValue))
              throw new FormatError(line, 'DEFAULT', `expected a number or nan in DEFAULT, got ${JSON.stringify(value.slice(0, 40))}`);
            if (rest.length > 0) variable!.lockPrevious = { value: rest[0]!.toUpperCase() === 'NC', line };
            continue;
          }
        }
      }
      if (section === 'ruleblock') {
        switch (keyword) {
          case 'AND':
            block!.conjunction = norm(T_NORMS, keyword, valueAfterColon(statement, keyword, line), line);
            continue;
          case 'ACT':
            block!.implication = norm(T_NORMS, keyword, valueAfterColon(statement, keyword, line), line);
            continue;
          case 'OR':
            block!.disjunction = norm(S_NORMS, keyword, valueAfterColon(statement, keyword, line), line);
            continue;
          case 'ACCU': {
            // IEC 61131-7 puts the accumulation in the rule block: it applies to every output the block concludes
            const accumulation = norm(S_NORMS, keyword, valueAfterColon(statement, keyword, line), line);
            for (const output of file.outputs) {
              const defined = blocks.get(`output:${output.name}`);
              if (defined && defined.aggregation === undefined) defined.aggregation = accumulation;
            }
            continue;
          }
          case 'ENABLED':
            block!.enabled = valueAfterColon(statement, keyword, line).toUpperCase() !== 'FALSE';
            continue;
          case 'RULE':
            addRule(block!, valueAfterColon(statement, keyword, line), line, ruleCount++);
            continue;
        }
      }
      throw new FormatError(line, word.slice(0, 40), `${JSON.stringify(statement.slice(0, 80))} is not supported here`);
    }
  }
  if (section !== undefined) {
    const ends = { var_input: 'END_VAR', var_output: 'END_VAR', fuzzify: 'END_FUZZIFY', defuzzify: 'END_DEFUZZIFY', ruleblock: 'END_RULEBLOCK' };
    throw new FormatError(lines.length, ends[section], `the file ends before ${ends[section]}`);
  }
  const defined = (kind: 'input' | 'output') => (list: FileVariable[]) =>
    list.map((declaredVariable) => {
      const found = blocks.get(`${kind}:${declaredVariable.name}`);
      if (!found)
        throw new FormatError(
          declaredVariable.line,
          kind === 'input' ? 'FUZZIFY' : 'DEFUZZIFY',
          `${kind} "${declaredVariable.name}" is declared but has no ${kind === 'input' ? 'FUZZIFY' : 'DEFUZZIFY'} block`,
        );
      return found;
    });
  file.inputs.splice(0, file.inputs.length, ...defined('input')(file.inputs));
  file.outputs.splice(0, file.outputs.length, ...defined('output')(file.outputs));
  return file;
}
