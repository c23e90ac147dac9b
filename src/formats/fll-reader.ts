// fuzzylite's FLL (https://fuzzylite.com/fll-fld): `Engine:`, `InputVariable:`, `OutputVariable:`
// and `RuleBlock:` sections of `key: value` lines, `#` comments. Read line by line, each line
// once: the key up to the first colon, the value's words split once.

import {
  FormatError,
  fileTerm,
  newRuleBlock,
  newVariable,
  number,
  termKindOf,
  type DefuzzifierKind,
  type FileRuleBlock,
  type FileVariable,
  type ModelFile,
} from './model-file.js';
import { afterWords, find, sourceLines, trimmed, words } from './scan.js';
import { addRule, addTerm, addVariable } from './limits.js';

const DEFUZZIFIERS: Readonly<Record<string, DefuzzifierKind>> = {
  Centroid: 'centroid',
  Bisector: 'bisector',
  MeanOfMaximum: 'meanOfMaximum',
  SmallestOfMaximum: 'smallestOfMaximum',
  LargestOfMaximum: 'largestOfMaximum',
  WeightedAverage: 'weightedAverage',
  WeightedSum: 'weightedSum',
};

const T_NORMS = ['Minimum', 'AlgebraicProduct', 'BoundedDifference', 'DrasticProduct', 'EinsteinProduct', 'HamacherProduct', 'NilpotentMinimum'];
const S_NORMS = ['Maximum', 'AlgebraicSum', 'BoundedSum', 'NormalizedSum', 'DrasticSum', 'EinsteinSum', 'HamacherSum', 'NilpotentMaximum', 'UnboundedSum'];

/** A fuzzylite norm class as the model file's norm name (lowerCamelCase); `none` is null. */
function normName(key: string, value: string, classes: readonly string[], line: number): { name: string | null; line: number } {
  if (value === 'none' || value === '') return { name: null, line };
  if (!classes.includes(value))
    throw new FormatError(
      line,
      `${key} ${value.slice(0, 40)}`,
      `the ${key} ${JSON.stringify(value.slice(0, 40))} is not one fuzzylite has (${classes.join(', ')}, none)`,
    );
  return { name: value.charAt(0).toLowerCase() + value.slice(1), line };
}

function boolean(value: string, line: number, key: string): boolean {
  if (value !== 'true' && value !== 'false')
    throw new FormatError(line, key, `expected "${key}: true" or "${key}: false", got ${JSON.stringify(value.slice(0, 40))}`);
  return value === 'true';
}

/** Reads an FLL file into what it says; a line it cannot read is a FormatError naming it. */
export function readFllFile(text: string): ModelFile {
  const file: ModelFile = { name: '', inputs: [], outputs: [], ruleBlocks: [] };
  let section: 'engine' | 'input' | 'output' | 'rules' | undefined;
  let variable: FileVariable | undefined;
  let block: FileRuleBlock | undefined;
  let ruleCount = 0;

  for (const { text: raw, line } of sourceLines(text)) {
    const hash = find(raw, '#');
    const content = trimmed(hash < 0 ? raw : raw.slice(0, hash));
    if (content === '') continue;
    const colon = find(content, ':');
    if (colon < 0) throw new FormatError(line, 'line', `expected "key: value", got ${JSON.stringify(content.slice(0, 80))}`);
    const key = trimmed(content.slice(0, colon));
    const value = trimmed(content.slice(colon + 1));
    switch (key) {
      case 'Engine':
        section = 'engine';
        file.name = value;
        continue;
      case 'InputVariable':
      case 'OutputVariable': {
        section = key === 'InputVariable' ? 'input' : 'output';
        variable = newVariable(value, line);
        addVariable(section === 'input' ? file.inputs : file.outputs, variable, line);
        continue;
      }
      case 'RuleBlock':
        section = 'rules';
        block = newRuleBlock(value, line);
        file.ruleBlocks.push(block);
        continue;
      case 'description':
        continue;
      case 'enabled':
        if (section === 'input' || section === 'output') variable!.enabled = boolean(value, line, key);
        else if (section === 'rules') block!.enabled = boolean(value, line, key);
        else break;
        continue;
    }
    if (section === 'input' || section === 'output') {
      switch (key) {
        case 'range': {
          const bounds = words(value);
          if (bounds.length !== 2) throw new FormatError(line, 'range', `expected "range: minimum maximum", got ${JSON.stringify(value.slice(0, 80))}`);
          const [min, max] = bounds.map(number) as [number, number];
          if (Number.isNaN(min) || Number.isNaN(max))
            throw new FormatError(line, 'range', `expected two numbers in "range:", got ${JSON.stringify(value.slice(0, 80))}`);
          variable!.range = [min, max];
          continue;
        }
        case 'lock-range':
          variable!.lockRange = boolean(value, line, key);
          continue;
        case 'term': {
          const [name, type, ...parameters] = words(value);
          if (name === undefined || type === undefined)
            throw new FormatError(line, 'term', `expected "term: name Type parameters…", got ${JSON.stringify(`term: ${value}`.slice(0, 80))}`);
          const kind = termKindOf(type);
          if (kind === undefined)
            throw new FormatError(line, type, `the term kind ${JSON.stringify(type.slice(0, 40))} of term "${name}" is not one fuzzylite has`);
          if (kind === 'function') {
            const expression = afterWords(value, 2);
            addTerm(variable!, { name, line, kind, parameters: [], height: 1, expression }, line);
          } else addTerm(variable!, fileTerm(name, kind, parameters, line), line);
          continue;
        }
      }
    }
    if (section === 'output') {
      switch (key) {
        case 'aggregation':
          variable!.aggregation = normName(key, value, S_NORMS, line);
          continue;
        case 'defuzzifier': {
          const [type = '', parameter] = words(value);
          if (type === 'none') continue;
          const name = Object.hasOwn(DEFUZZIFIERS, type) ? DEFUZZIFIERS[type]! : undefined;
          if (!name) throw new FormatError(line, `defuzzifier ${type}`, `the defuzzifier ${JSON.stringify(type.slice(0, 40))} is not one fuzzylite has`);
          const resolution = number(parameter);
          variable!.defuzzifier = { name, line, ...(Number.isFinite(resolution) ? { resolution } : {}) };
          continue;
        }
        case 'default':
          variable!.defaultValue = number(value);
          if (value.toLowerCase() !== 'nan' && Number.isNaN(variable!.defaultValue))
            throw new FormatError(line, 'default', `expected a number or nan in "default:", got ${JSON.stringify(value.slice(0, 40))}`);
          continue;
        case 'lock-previous':
          variable!.lockPrevious = { value: boolean(value, line, key), line };
          continue;
      }
    }
    if (section === 'rules') {
      switch (key) {
        case 'conjunction':
        case 'implication':
          block![key] = normName(key, value, T_NORMS, line);
          continue;
        case 'disjunction':
          block![key] = normName(key, value, S_NORMS, line);
          continue;
        case 'activation': {
          const [name = ''] = words(value);
          block!.activation = { name: name === 'none' ? 'general' : name.charAt(0).toLowerCase() + name.slice(1), line };
          continue;
        }
        case 'rule':
          addRule(block!, value, line, ruleCount++);
          continue;
      }
    }
    const where = section ? `in ${{ engine: 'Engine', input: 'InputVariable', output: 'OutputVariable', rules: 'RuleBlock' }[section]}` : 'before Engine:';
    throw new FormatError(line, key.slice(0, 40), `"${key.slice(0, 40)}:" is not supported here (${where})`);
  }
  return file;
}
