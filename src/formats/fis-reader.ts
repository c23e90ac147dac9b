// MATLAB's FIS (Fuzzy Logic Toolbox, Octave's fuzzy-logic-toolkit, also written by fuzzylite):
// `[System]`, `[InputN]`, `[OutputN]` and `[Rules]` sections of `Key=value` lines. A rule row gives
// one term index per input and per output (0: unused, negative: NOT, a fraction: fuzzylite's
// hedge code), a weight and its connective (1: AND, 2: OR). Each line is read once, by position.

import {
  FormatError,
  fileTerm,
  isTakagiSugeno,
  newRuleBlock,
  newVariable,
  number,
  numbers,
  type DefuzzifierKind,
  type FileTerm,
  type FileVariable,
  type ModelFile,
  type TermKind,
} from './model-file.js';
import { addRule, addTerm, addVariable } from './limits.js';
import { find, sourceLines, splitAt, trimmed, words } from './scan.js';

/** MATLAB's membership functions, with the order of their parameters in fuzzylite's (index into MATLAB's). */
export const MEMBERSHIP_FUNCTIONS: Readonly<Record<string, { kind: TermKind; order?: readonly number[] }>> = {
  trimf: { kind: 'triangle' },
  trapmf: { kind: 'trapezoid' },
  rampmf: { kind: 'ramp' },
  rectmf: { kind: 'rectangle' },
  // gaussmf [sigma c] → Gaussian(mean, standard deviation)
  gaussmf: { kind: 'gaussian', order: [1, 0] },
  // gauss2mf [sigma1 c1 sigma2 c2]
  gauss2mf: { kind: 'gaussianProduct', order: [1, 0, 3, 2] },
  // gbellmf [a b c] → Bell(center c, width a, slope b)
  gbellmf: { kind: 'bell', order: [2, 0, 1] },
  // sigmf [a c] → Sigmoid(inflection c, slope a)
  sigmf: { kind: 'sigmoid', order: [1, 0] },
  // dsigmf / psigmf [a1 c1 a2 c2] → (c1, a1, a2, c2)
  dsigmf: { kind: 'sigmoidDifference', order: [1, 0, 2, 3] },
  psigmf: { kind: 'sigmoidProduct', order: [1, 0, 2, 3] },
  smf: { kind: 'sShape' },
  zmf: { kind: 'zShape' },
  pimf: { kind: 'piShape' },
  cosinemf: { kind: 'cosine' },
  spikemf: { kind: 'spike' },
  concavemf: { kind: 'concave' },
  binarymf: { kind: 'binary' },
  discretemf: { kind: 'discrete' },
  constant: { kind: 'constant' },
  linear: { kind: 'linear' },
  function: { kind: 'function' },
};

export const T_NORMS: Readonly<Record<string, string>> = {
  min: 'minimum',
  prod: 'algebraicProduct',
  bounded_difference: 'boundedDifference',
  drastic_product: 'drasticProduct',
  einstein_product: 'einsteinProduct',
  hamacher_product: 'hamacherProduct',
  nilpotent_minimum: 'nilpotentMinimum',
};
export const S_NORMS: Readonly<Record<string, string>> = {
  max: 'maximum',
  probor: 'algebraicSum',
  bounded_sum: 'boundedSum',
  normalized_sum: 'normalizedSum',
  drastic_sum: 'drasticSum',
  einstein_sum: 'einsteinSum',
  hamacher_sum: 'hamacherSum',
  nilpotent_maximum: 'nilpotentMaximum',
  sum: 'unboundedSum',
};
export const DEFUZZIFIERS: Readonly<Record<string, DefuzzifierKind>> = {
  centroid: 'centroid',
  bisector: 'bisector',
  lom: 'largestOfMaximum',
  mom: 'meanOfMaximum',
  som: 'smallestOfMaximum',
  wtaver: 'weightedAverage',
  wtsum: 'weightedSum',
};
/** fuzzylite's FIS hedge codes: the fraction of a rule row's term index. */
export const HEDGE_CODES: ReadonlyArray<readonly [number, string]> = [
  [0.01, 'seldom'],
  [0.05, 'somewhat'],
  [0.2, 'very'],
  [0.3, 'extremely'],
  [0.4, 'very very'],
  [0.99, 'any'],
];

function unquote(value: string): string {
  return value.length >= 2 && value.charAt(0) === "'" && value.charAt(value.length - 1) === "'" ? value.slice(1, -1) : value;
}

/** `'name':'type',[p1 p2 …]` */
function readMembershipFunction(value: string, line: number): FileTerm {
  const colon = find(value, ':');
  const comma = colon < 0 ? -1 : find(value, ',', colon);
  if (colon < 0 || comma < 0) throw new FormatError(line, 'MF', `expected "MFn='name':'type',[parameters]", got ${JSON.stringify(value.slice(0, 80))}`);
  const name = unquote(trimmed(value.slice(0, colon)));
  const type = unquote(trimmed(value.slice(colon + 1, comma)));
  const rest = trimmed(value.slice(comma + 1));
  const bracketed = rest.charAt(0) === '[' && rest.charAt(rest.length - 1) === ']';
  if (!bracketed) throw new FormatError(line, 'MF', `expected the parameters of MF "${name}" in brackets, got ${JSON.stringify(rest.slice(0, 80))}`);
  const inside = rest.slice(1, -1);
  const known = Object.hasOwn(MEMBERSHIP_FUNCTIONS, type) ? MEMBERSHIP_FUNCTIONS[type] : undefined;
  if (!known)
    throw new FormatError(
      line,
      type.slice(0, 40),
      `the membership function ${JSON.stringify(type.slice(0, 40))} of MF "${name}" is not one MATLAB or fuzzylite has`,
    );
  if (known.kind === 'function') return { name, line, kind: 'function', parameters: [], height: 1, expression: trimmed(inside) };
  const given = words(splitAt(inside, ',').join(' '));
  const ordered = known.order && given.length >= known.order.length ? [...known.order.map((i) => given[i]!), ...given.slice(known.order.length)] : given;
  return fileTerm(name, known.kind, ordered, line);
}

function choose<T>(table: Readonly<Record<string, T>>, key: string, setting: { value: string; line: number }): T {
  if (!Object.hasOwn(table, setting.value))
    throw new FormatError(
      setting.line,
      `${key} ${setting.value.slice(0, 40)}`,
      `${key}='${setting.value.slice(0, 40)}' is not one FIS has (${Object.keys(table).join(', ')})`,
    );
  return table[setting.value]!;
}

/** A term index with its hedge, as fuzzylite's rule text: `not very x`, `any`. */
function proposition(code: number, variable: FileVariable, line: number, row: string): string {
  const magnitude = Math.abs(code);
  const index = Math.floor(magnitude) - 1;
  const fraction = magnitude - Math.floor(magnitude);
  const hedge = HEDGE_CODES.find(([value]) => Math.abs(fraction - value) < 1e-6)?.[1];
  if (fraction > 1e-6 && hedge === undefined)
    throw new FormatError(
      line,
      'rule',
      `${code} has no hedge in FIS (fractions .01 seldom, .05 somewhat, .2 very, .3 extremely, .4 very very, .99 any): ${JSON.stringify(row.slice(0, 80))}`,
    );
  if (hedge !== 'any' && !variable.terms[index])
    throw new FormatError(line, 'rule', `"${variable.name}" has no MF ${Math.floor(magnitude)} in rule ${JSON.stringify(row.slice(0, 80))}`);
  // names quoted, so that any name FIS can hold (spaces, keywords) reads back as itself
  const words = [...(code < 0 ? ['not'] : []), ...(hedge ? [hedge] : []), ...(hedge === 'any' ? [] : [JSON.stringify(variable.terms[index]!.name)])];
  return `${JSON.stringify(variable.name)} is ${words.join(' ')}`;
}

/** Reads a FIS file into what it says; a line it cannot read is a FormatError naming it. */
export function readFisFile(text: string): ModelFile {
  const file: ModelFile = { name: '', inputs: [], outputs: [], ruleBlocks: [] };
  const system = new Map<string, { value: string; line: number }>();
  const ruleRows: Array<{ text: string; line: number }> = [];
  let section = '';
  let variable: FileVariable | undefined;

  for (const { text: raw, line } of sourceLines(text)) {
    const content = trimmed(raw);
    const first = content.charAt(0);
    if (content === '' || first === '#' || first === '%') continue;
    if (first === '[') {
      if (content.charAt(content.length - 1) !== ']')
        throw new FormatError(line, 'section', `expected a section header "[…]", got ${JSON.stringify(content.slice(0, 80))}`);
      const header = content.slice(1, -1);
      if (header === 'System' || header === 'Rules') section = header;
      else if (header.startsWith('Input') || header.startsWith('Output')) {
        section = header.startsWith('Input') ? 'Input' : 'Output';
        if (!/^\d+$/.test(header.slice(section.length))) throw new FormatError(line, 'section', `unknown section [${header.slice(0, 40)}]`);
        variable = newVariable('', line);
        addVariable(section === 'Input' ? file.inputs : file.outputs, variable, line);
      } else throw new FormatError(line, 'section', `unknown section [${header.slice(0, 40)}]`);
      continue;
    }
    if (section === 'Rules') {
      if (ruleRows.length >= 1000) throw new FormatError(line, 'rule limit', 'more than 1000 rules; an agent holds at most 1000');
      ruleRows.push({ text: content, line });
      continue;
    }
    const equals = find(content, '=');
    if (equals < 0) throw new FormatError(line, 'line', `expected "Key=value", got ${JSON.stringify(content.slice(0, 80))}`);
    const key = trimmed(content.slice(0, equals));
    const value = trimmed(content.slice(equals + 1));
    if (section === 'System') {
      system.set(key, { value: unquote(value), line });
      continue;
    }
    if (!variable) throw new FormatError(line, key.slice(0, 40), `"${key.slice(0, 40)}" before any section`);
    if (key === 'Name') variable.name = unquote(value);
    else if (key === 'Range') {
      const inside = value.charAt(0) === '[' && value.charAt(value.length - 1) === ']' ? value.slice(1, -1) : value;
      const bounds = words(splitAt(inside, ',').join(' '));
      if (bounds.length !== 2) throw new FormatError(line, 'Range', `expected "Range=[min max]", got ${JSON.stringify(value.slice(0, 80))}`);
      const [min, max] = numbers(bounds, line, 'Range');
      variable.range = [min!, max!];
    } else if (key.startsWith('MF') && /^\d+$/.test(key.slice(2))) addTerm(variable, readMembershipFunction(value, line), line);
    else if (key === 'Enabled') variable.enabled = number(value) === 1;
    else if (key === 'Default' && section === 'Output') variable.defaultValue = number(value);
    else if (key === 'LockPrevious' && section === 'Output') variable.lockPrevious = { value: number(value) === 1, line };
    else if (key === 'LockRange' && section === 'Output') variable.lockRange = number(value) === 1;
    else if (key !== 'NumMFs') throw new FormatError(line, key.slice(0, 40), `"${key.slice(0, 40)}" is not supported in [${section}]`);
  }

  file.name = system.get('Name')?.value ?? '';
  const setting = (key: string) => system.get(key);
  const type = setting('Type')?.value ?? 'mamdani';
  if (!['mamdani', 'sugeno', 'tsukamoto', 'hybrid'].includes(type))
    throw new FormatError(
      setting('Type')!.line,
      `Type ${type.slice(0, 40)}`,
      `Type='${type.slice(0, 40)}' is not one FIS has (mamdani, sugeno, tsukamoto, hybrid)`,
    );
  const notSugeno =
    type === 'sugeno'
      ? file.outputs.flatMap((output) => output.terms).find((term) => term.kind !== 'constant' && term.kind !== 'linear' && term.kind !== 'function')
      : undefined;
  if (notSugeno)
    throw new FormatError(
      setting('Type')!.line,
      'Type sugeno',
      `Type='sugeno' takes constant and linear output terms; "${notSugeno.name}" (line ${notSugeno.line}) is a ${notSugeno.kind}`,
    );
  const block = newRuleBlock('', ruleRows[0]?.line ?? 0);
  const and = setting('AndMethod');
  const or = setting('OrMethod');
  const implication = setting('ImpMethod');
  if (and) block.conjunction = { name: choose(T_NORMS, 'AndMethod', and), line: and.line };
  if (or) block.disjunction = { name: choose(S_NORMS, 'OrMethod', or), line: or.line };
  // Sugeno systems imply nothing: their outputs are weighted, not clipped (MATLAB ignores ImpMethod there)
  if (implication && type !== 'sugeno') block.implication = { name: choose(T_NORMS, 'ImpMethod', implication), line: implication.line };
  const aggregation = setting('AggMethod');
  const defuzzification = setting('DefuzzMethod');
  for (const output of file.outputs) {
    const sugeno = isTakagiSugeno(output);
    if (defuzzification) output.defuzzifier = { name: choose(DEFUZZIFIERS, 'DefuzzMethod', defuzzification), line: defuzzification.line };
    // fuzzylite's hybrid files name one method for all outputs: its Takagi-Sugeno outputs are weighted
    if (sugeno && (output.defuzzifier === undefined || output.defuzzifier.name === 'centroid'))
      output.defuzzifier = { name: 'weightedAverage', line: output.defuzzifier?.line ?? 0 };
    const weighted = output.defuzzifier?.name === 'weightedAverage' || output.defuzzifier?.name === 'weightedSum';
    // MATLAB weighs each rule's output on its own: a weighted defuzzifier aggregates nothing
    if (weighted) output.aggregation = { name: null, line: aggregation?.line ?? 0 };
    else if (aggregation) output.aggregation = { name: choose(S_NORMS, 'AggMethod', aggregation), line: aggregation.line };
  }

  for (const { text: row, line } of ruleRows) {
    // `i1 i2 …, o1 o2 … (weight) : connective`, split by position: the comma, the parentheses, the colon
    const comma = find(row, ',');
    const open = find(row, '(', comma + 1);
    const close = open < 0 ? -1 : find(row, ')', open);
    const colon = close < 0 ? -1 : find(row, ':', close);
    const antecedent = comma < 0 ? [] : words(row.slice(0, comma)).map(number);
    const consequent = open < 0 ? [] : words(row.slice(comma + 1, open)).map(number);
    const weight = close < 0 ? NaN : number(trimmed(row.slice(open + 1, close)));
    const connective = colon < 0 ? '' : trimmed(row.slice(colon + 1));
    if (
      colon < 0 ||
      antecedent.length !== file.inputs.length ||
      consequent.length !== file.outputs.length ||
      [...antecedent, ...consequent].some(Number.isNaN) ||
      (connective !== '1' && connective !== '2')
    ) {
      throw new FormatError(
        line,
        'rule',
        `expected one term index per input (${file.inputs.length}) and per output (${file.outputs.length}), a weight and a connective ("1 2, 1 (1) : 1"), got ${JSON.stringify(row.slice(0, 80))}`,
      );
    }
    const conditions = antecedent.flatMap((code, i) => (code === 0 ? [] : [proposition(code, file.inputs[i]!, line, row)]));
    const conclusions = consequent.flatMap((code, o) => (code === 0 ? [] : [proposition(code, file.outputs[o]!, line, row)]));
    if (conditions.length === 0 || conclusions.length === 0)
      throw new FormatError(
        line,
        'rule',
        `a rule needs a condition and a conclusion (a FIS row cannot name an output in its condition, as chained fuzzylite models do): ${JSON.stringify(row.slice(0, 80))}`,
      );
    const text = `if ${conditions.join(connective === '2' ? ' or ' : ' and ')} then ${conclusions.join(' and ')}${Number.isNaN(weight) || weight === 1 ? '' : ` with ${weight}`}`;
    if (Number.isNaN(weight)) throw new FormatError(line, 'rule', `the weight of rule ${JSON.stringify(row.slice(0, 80))} is no number`);
    addRule(block, text, line, block.rules.length);
  }
  if (ruleRows.length > 0 || block.conjunction || block.disjunction || block.implication) file.ruleBlocks.push(block);
  return file;
}
