// fuzzylite's FLL (https://fuzzylite.com/fll-fld): `Engine:`, `InputVariable:`, `OutputVariable:`
// and `RuleBlock:` sections of `key: value` lines.

import { compileAgent } from '../engine/index.js';
import { buildModel, type FileOperators, FormatError, numbers, readRule, setShapeOf, show, writableName, writeRule, type Model, type Term, type Variable } from './model.js';
import type { Operators } from '../engine/types.js';

const FORMAT = 'FLL';
const CONJUNCTIONS: Record<string, Operators['and']> = { Minimum: 'min', AlgebraicProduct: 'product', none: undefined };
const DISJUNCTIONS: Record<string, Operators['or']> = { Maximum: 'max', AlgebraicSum: 'probabilisticSum', none: undefined };
const IMPLICATIONS: Record<string, Operators['implication']> = { Minimum: 'min', AlgebraicProduct: 'product' };

function unsupported(line: number, construct: string, what: string): never {
  throw new FormatError(line, construct, `${what} is not supported (fuzzbox: triangles, trapezoids, ramps and rectangles; Minimum or AlgebraicProduct AND and implication; Maximum or AlgebraicSum OR; Maximum aggregation; Centroid)`);
}

function readTerm(value: string, line: number): Term {
  const [name, type, ...parameters] = value.trim().split(/\s+/);
  if (!name || !type) throw new FormatError(line, 'term', `expected "term: name Type parameters…", got "term: ${value.trim()}"`);
  const expected = { Triangle: 3, Trapezoid: 4, Ramp: 2, Rectangle: 2 }[type];
  if (expected === undefined) unsupported(line, type, `the ${type} term "${name}"`);
  const values = numbers(parameters, line, `term "${name}"`);
  if (values.length === expected + 1 && values[expected] !== 1) unsupported(line, 'term height', `term "${name}" with height ${values[expected]}`);
  if (values.length !== expected && values.length !== expected + 1) throw new FormatError(line, type, `a ${type} takes ${expected} numbers, got ${values.length} in term "${name}"`);
  if (type === 'Ramp') return { name, line, kind: 'ramp', from: values[0]!, to: values[1]! };
  if (type === 'Rectangle') return { name, line, kind: 'points', points: [values[0]!, values[0]!, values[1]!, values[1]!] };
  return { name, line, kind: 'points', points: values.slice(0, expected) };
}

/** Reads an FLL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFll(text: string): Model {
  let name = '';
  const inputs: Variable[] = [];
  const outputs: Variable[] = [];
  const rules: string[] = [];
  const ruleLines: number[] = [];
  let operators: FileOperators | undefined;
  let blockOperators: { and?: Operators['and']; or?: Operators['or']; implication?: Operators['implication']; line: number } | undefined;
  let section: 'engine' | 'input' | 'output' | 'rules' | undefined;
  let variable: Variable | undefined;

  const closeBlock = () => {
    if (!blockOperators) return;
    const block: FileOperators = { and: blockOperators.and ?? 'min', or: blockOperators.or ?? 'max', implication: blockOperators.implication ?? 'min' };
    if (operators && JSON.stringify(operators) !== JSON.stringify(block)) {
      throw new FormatError(blockOperators.line, 'RuleBlock', 'rule blocks with different operators are not supported: fuzzbox has one set of operators per agent');
    }
    operators = block;
    blockOperators = undefined;
  };

  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const content = raw.replace(/#.*$/, '').trim();
    if (content === '') return;
    const colon = content.indexOf(':');
    if (colon < 0) throw new FormatError(line, 'line', `expected "key: value", got ${JSON.stringify(content.slice(0, 80))}`);
    const key = content.slice(0, colon).trim();
    const value = content.slice(colon + 1).trim();
    switch (key) {
      case 'Engine':
        closeBlock();
        section = 'engine';
        name = value;
        return;
      case 'InputVariable':
      case 'OutputVariable':
        closeBlock();
        section = key === 'InputVariable' ? 'input' : 'output';
        variable = { name: value, line, terms: [] };
        (key === 'InputVariable' ? inputs : outputs).push(variable);
        return;
      case 'RuleBlock':
        closeBlock();
        section = 'rules';
        blockOperators = { line };
        return;
      case 'description':
        return;
      case 'enabled':
        if (value !== 'true') unsupported(line, 'enabled: false', 'a disabled variable or rule block');
        return;
    }
    if (section === 'input' || section === 'output') {
      switch (key) {
        case 'range': {
          const [min, max] = numbers(value.split(/\s+/), line, 'range');
          variable!.range = [min!, max!];
          return;
        }
        case 'lock-range':
          return;
        case 'term':
          variable!.terms.push(readTerm(value, line));
          return;
      }
    }
    if (section === 'output') {
      switch (key) {
        case 'aggregation':
          if (value !== 'Maximum') unsupported(line, `aggregation ${value}`, `the aggregation ${value}`);
          return;
        case 'defuzzifier':
          // fuzzbox's centroid is exact: the resolution fuzzylite samples at has nothing to say
          if (value.split(/\s+/)[0] !== 'Centroid') unsupported(line, `defuzzifier ${value}`, `the defuzzifier ${value}`);
          return;
        case 'default':
        case 'lock-previous':
          if (key === 'lock-previous' && value !== 'false') unsupported(line, 'lock-previous', 'lock-previous: true');
          // an output no rule reached is left out of fuzzbox's answer (SPEC 4): the caller applies its default
          return;
      }
    }
    if (section === 'rules') {
      switch (key) {
        case 'conjunction':
        case 'disjunction':
        case 'implication': {
          const table = key === 'conjunction' ? CONJUNCTIONS : key === 'disjunction' ? DISJUNCTIONS : IMPLICATIONS;
          if (!Object.hasOwn(table, value)) unsupported(line, `${key} ${value}`, `the ${key} ${value}`);
          const operator = key === 'conjunction' ? 'and' : key === 'disjunction' ? 'or' : 'implication';
          Object.assign(blockOperators!, { [operator]: table[value] });
          return;
        }
        case 'activation':
          if (value !== 'General') unsupported(line, `activation ${value}`, `the activation ${value}`);
          return;
        case 'rule':
          rules.push(readRule(value, line));
          ruleLines.push(line);
          return;
      }
    }
    throw new FormatError(line, key, `"${key}:" is not supported here (${section ? `in ${{ engine: 'Engine', input: 'InputVariable', output: 'OutputVariable', rules: 'RuleBlock' }[section]}` : 'before Engine:'})`);
  });
  closeBlock();

  return buildModel(name, inputs, outputs, rules, ruleLines, operators ?? { and: 'min', or: 'max', implication: 'min' });
}

/** Writes an agent as FLL; throws FormatError for a name FLL cannot hold or a rule it cannot express. */
export function writeFll(model: Model): string {
  const agent = compileAgent(model.definition);
  const lines = [`Engine: ${model.name === '' ? 'fuzzbox' : writableName(model.name, FORMAT)}`];
  const variables = (kind: 'inputs' | 'outputs') => {
    for (const [name, sets] of Object.entries(agent.definition[kind])) {
      const range = agent[kind][name]!.range;
      lines.push(`${kind === 'inputs' ? 'InputVariable' : 'OutputVariable'}: ${writableName(name, FORMAT)}`, '  enabled: true', `  range: ${show(range[0])} ${show(range[1])}`, '  lock-range: false');
      if (kind === 'outputs') lines.push('  aggregation: Maximum', '  defuzzifier: Centroid 200', '  default: nan', '  lock-previous: false');
      for (const [set, points] of Object.entries(sets)) {
        const shape = setShapeOf(points, range);
        const parameters = shape.kind === 'ramp' ? [shape.from, shape.to] : shape.points;
        const type = { triangle: 'Triangle', trapezoid: 'Trapezoid', ramp: 'Ramp' }[shape.kind];
        lines.push(`  term: ${writableName(set, FORMAT)} ${type} ${parameters.map(show).join(' ')}`);
      }
    }
  };
  variables('inputs');
  variables('outputs');
  const { and, or, implication } = agent.operators;
  lines.push(
    'RuleBlock: ',
    '  enabled: true',
    `  conjunction: ${and === 'product' ? 'AlgebraicProduct' : 'Minimum'}`,
    `  disjunction: ${or === 'probabilisticSum' ? 'AlgebraicSum' : 'Maximum'}`,
    `  implication: ${implication === 'product' ? 'AlgebraicProduct' : 'Minimum'}`,
    '  activation: General',
  );
  for (const rule of agent.expandedRules) lines.push(`  rule: ${writeRule(rule, FORMAT, false)}`);
  return `${lines.join('\n')}\n`;
}
