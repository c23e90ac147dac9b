// MATLAB's FIS (Fuzzy Logic Toolbox, also written by fuzzylite): `[System]`, `[InputN]`, `[OutputN]`
// and `[Rules]` sections. A FIS rule gives one set index per input (0: unused, negative: NOT) and
// per output, a weight and its connective (1: AND, 2: OR), so only flat rules can be written.

import { compileAgent, printRule } from '../engine/index.js';
import type { Condition, IfRule, Operators } from '../engine/types.js';
import { buildModel, type FileOperators, FormatError, number, numbers, setShapeOf, show, type Model, type Term, type Variable } from './model.js';

const FORMAT = 'FIS';
const AND: Record<string, Operators['and']> = { min: 'min', prod: 'product' };
const OR: Record<string, Operators['or']> = { max: 'max', probor: 'probabilisticSum' };
const IMP: Record<string, Operators['implication']> = { min: 'min', prod: 'product' };

function unsupported(line: number, construct: string, what: string): never {
  throw new FormatError(line, construct, `${what} is not supported (fuzzbox: trimf, trapmf, rampmf; AndMethod min or prod, OrMethod max or probor, ImpMethod min or prod, AggMethod max, DefuzzMethod centroid, Type mamdani)`);
}

function unquote(value: string): string {
  return value.replace(/^'(.*)'$/, '$1');
}

function readMf(value: string, line: number): Term {
  const match = /^'([^']*)'\s*:\s*'([^']*)'\s*,\s*\[([^\]]*)\]$/.exec(value);
  if (!match) throw new FormatError(line, 'MF', `expected "MFn='name':'type',[parameters]", got ${JSON.stringify(value.slice(0, 80))}`);
  const [, name = '', type = '', parameters = ''] = match;
  const values = numbers(parameters.trim().split(/[\s,]+/).filter(Boolean), line, `MF "${name}"`);
  const expected: Record<string, number> = { trimf: 3, trapmf: 4, rampmf: 2, rectmf: 2 };
  if (expected[type] === undefined) unsupported(line, type, `the membership function ${type} ("${name}")`);
  if (values.length !== expected[type]) throw new FormatError(line, type, `${type} takes ${expected[type]} numbers, got ${values.length} in MF "${name}"`);
  if (type === 'rampmf') return { name, line, kind: 'ramp', from: values[0]!, to: values[1]! };
  if (type === 'rectmf') return { name, line, kind: 'points', points: [values[0]!, values[0]!, values[1]!, values[1]!] };
  return { name, line, kind: 'points', points: values };
}

/** Reads a FIS file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFis(text: string): Model {
  const system = new Map<string, { value: string; line: number }>();
  const inputs: Variable[] = [];
  const outputs: Variable[] = [];
  const ruleRows: Array<{ text: string; line: number }> = [];
  let section = '';
  let variable: Variable | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#') || content.startsWith('%')) return;
    const header = /^\[(\w+?)(\d*)\]$/.exec(content);
    if (header) {
      section = header[1]!;
      if (section === 'Input' || section === 'Output') {
        variable = { name: '', line, terms: [] };
        (section === 'Input' ? inputs : outputs).push(variable);
      } else if (section !== 'System' && section !== 'Rules') {
        throw new FormatError(line, content, `unknown section ${content}`);
      }
      return;
    }
    if (section === 'Rules') {
      ruleRows.push({ text: content, line });
      return;
    }
    const equals = content.indexOf('=');
    if (equals < 0) throw new FormatError(line, 'line', `expected "Key=value", got ${JSON.stringify(content.slice(0, 80))}`);
    const key = content.slice(0, equals).trim();
    const value = content.slice(equals + 1).trim();
    if (section === 'System') {
      system.set(key, { value: unquote(value), line });
    } else if (variable) {
      if (key === 'Name') variable.name = unquote(value);
      else if (key === 'Range') {
        const [min, max] = numbers(value.replace(/[[\]]/g, '').trim().split(/[\s,]+/), line, 'Range');
        variable.range = [min!, max!];
      } else if (/^MF\d+$/.test(key)) variable.terms.push(readMf(value, line));
      else if (key !== 'NumMFs') throw new FormatError(line, key, `"${key}" is not supported in [${section}]`);
    } else {
      throw new FormatError(line, key, `"${key}" before any section`);
    }
  });

  const setting = (key: string, fallback: string) => system.get(key) ?? { value: fallback, line: 0 };
  const type = setting('Type', 'mamdani');
  if (type.value !== 'mamdani') unsupported(type.line, `Type ${type.value}`, `the system type ${type.value}`);
  const choose = <T>(key: string, table: Record<string, T>, fallback: string): T => {
    const { value, line } = setting(key, fallback);
    if (!Object.hasOwn(table, value)) unsupported(line, `${key} ${value}`, `${key}='${value}'`);
    return table[value]!;
  };
  const operators: FileOperators = { and: choose('AndMethod', AND, 'min')!, or: choose('OrMethod', OR, 'max')!, implication: choose('ImpMethod', IMP, 'min')! };
  choose('AggMethod', { max: true }, 'max');
  choose('DefuzzMethod', { centroid: true }, 'centroid');

  const rules: string[] = [];
  const ruleLines: number[] = [];
  for (const { text: row, line } of ruleRows) {
    const match = /^([^,]*?)\s*,?\s*((?:\s*-?[\d.]+)+)\s*\(\s*([^)]*)\)\s*:\s*(\d+)$/.exec(row);
    const antecedent = match?.[1]?.trim() ? match[1].trim().split(/\s+/) : [];
    const indices = match ? [...antecedent, ...match[2]!.trim().split(/\s+/)].map(number) : [];
    if (!match || indices.length !== inputs.length + outputs.length || indices.some((i) => !Number.isInteger(i))) {
      throw new FormatError(line, 'rule', `expected one set index per input and per output, a weight and a connective ("1 2, 1 (1) : 1"), got ${JSON.stringify(row)}`);
    }
    const literals: Condition[] = [];
    indices.slice(0, inputs.length).forEach((index, i) => {
      if (index === 0) return;
      const input = inputs[i]!;
      const set = input.terms[Math.abs(index) - 1];
      if (!set) throw new FormatError(line, 'rule', `input ${i + 1} ("${input.name}") has no MF ${Math.abs(index)} in rule ${JSON.stringify(row)}`);
      const literal: Condition = { type: 'is', variable: input.name, set: set.name };
      literals.push(index < 0 ? { type: 'not', operand: literal } : literal);
    });
    const conclusions = indices.slice(inputs.length).flatMap((index, o) => {
      if (index === 0) return [];
      if (index < 0) unsupported(line, 'NOT conclusion', 'a negated conclusion');
      const output = outputs[o]!;
      const set = output.terms[index - 1];
      if (!set) throw new FormatError(line, 'rule', `output ${o + 1} ("${output.name}") has no MF ${index} in rule ${JSON.stringify(row)}`);
      return [{ variable: output.name, set: set.name }];
    });
    const weight = number(match[3]!.trim());
    if (literals.length === 0 || conclusions.length === 0) throw new FormatError(line, 'rule', `a rule needs a condition and a conclusion: ${JSON.stringify(row)}`);
    const connective = match[4] === '2' ? 'or' : 'and';
    const condition: Condition = literals.length === 1 ? literals[0]! : { type: connective, operands: literals };
    rules.push(printRule({ type: 'if', condition, conclusions, weight: Number.isNaN(weight) ? -1 : weight }));
    ruleLines.push(line);
  }

  return buildModel(system.get('Name')?.value ?? '', inputs, outputs, rules, ruleLines, operators);
}

/** One flat rule as a FIS row, or a FormatError saying why it cannot be one. */
function writeRuleRow(rule: IfRule, inputs: string[], outputs: string[], sets: (kind: 'inputs' | 'outputs', variable: string) => string[]): string {
  const refuse = (why: string) => new FormatError(0, 'rule', `FIS cannot hold the rule "${printRule(rule)}": ${why}`);
  const literals = rule.condition.type === 'and' || rule.condition.type === 'or' ? rule.condition.operands : [rule.condition];
  const antecedent = inputs.map(() => 0);
  for (const literal of literals) {
    const negated = literal.type === 'not';
    const is = negated ? literal.operand : literal;
    if (is.type !== 'is') throw refuse('its rules are one AND or one OR of conditions, without nesting');
    const i = inputs.indexOf(is.variable);
    if (antecedent[i] !== 0) throw refuse(`it names input "${is.variable}" twice`);
    antecedent[i] = (sets('inputs', is.variable).indexOf(is.set) + 1) * (negated ? -1 : 1);
  }
  const consequent = outputs.map(() => 0);
  for (const { variable, set } of rule.conclusions) {
    const o = outputs.indexOf(variable);
    const index = sets('outputs', variable).indexOf(set) + 1;
    if (consequent[o] !== 0 && consequent[o] !== index) throw refuse(`it concludes output "${variable}" twice`);
    consequent[o] = index;
  }
  return `${antecedent.join(' ')}, ${consequent.join(' ')} (${show(rule.weight)}) : ${rule.condition.type === 'or' ? 2 : 1}`;
}

/** Writes an agent as FIS; throws FormatError for a rule FIS cannot hold (nested, an input named twice). */
export function writeFis(model: Model): string {
  const agent = compileAgent(model.definition);
  const quoted = (name: string) => {
    if (/['\n\r]/.test(name)) throw new FormatError(0, 'name', `the name ${JSON.stringify(name)} cannot be written in ${FORMAT}: it holds a quote or a line break`);
    return `'${name}'`;
  };
  const inputs = Object.keys(agent.definition.inputs);
  const outputs = Object.keys(agent.definition.outputs);
  const { and, or, implication } = agent.operators;
  const lines = [
    '[System]',
    `Name=${quoted(model.name)}`,
    "Type='mamdani'",
    'Version=2.0',
    `NumInputs=${inputs.length}`,
    `NumOutputs=${outputs.length}`,
    `NumRules=${agent.expandedRules.length}`,
    `AndMethod='${and === 'product' ? 'prod' : 'min'}'`,
    `OrMethod='${or === 'probabilisticSum' ? 'probor' : 'max'}'`,
    `ImpMethod='${implication === 'product' ? 'prod' : 'min'}'`,
    "AggMethod='max'",
    "DefuzzMethod='centroid'",
  ];
  for (const kind of ['inputs', 'outputs'] as const) {
    Object.entries(agent.definition[kind]).forEach(([name, sets], v) => {
      const range = agent[kind][name]!.range;
      lines.push('', `[${kind === 'inputs' ? 'Input' : 'Output'}${v + 1}]`, `Name=${quoted(name)}`, `Range=[${show(range[0])} ${show(range[1])}]`, `NumMFs=${Object.keys(sets).length}`);
      Object.entries(sets).forEach(([set, points], s) => {
        const shape = setShapeOf(points, range);
        const parameters = shape.kind === 'ramp' ? [shape.from, shape.to] : shape.points;
        lines.push(`MF${s + 1}=${quoted(set)}:'${{ triangle: 'trimf', trapezoid: 'trapmf', ramp: 'rampmf' }[shape.kind]}',[${parameters.map(show).join(' ')}]`);
      });
    });
  }
  const sets = (kind: 'inputs' | 'outputs', variable: string) => Object.keys(agent.definition[kind][variable]!);
  lines.push('', '[Rules]', ...agent.expandedRules.map((rule) => writeRuleRow(rule, inputs, outputs, sets)));
  return `${lines.join('\n')}\n`;
}
