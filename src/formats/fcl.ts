// IEC 61131-7 FCL, as jFuzzyLogic and fuzzylite write it: FUNCTION_BLOCK, VAR_INPUT / VAR_OUTPUT,
// FUZZIFY / DEFUZZIFY with TERMs (IEC points, fuzzylite's Triangle/Trapezoid/Ramp/Rectangle,
// jFuzzyLogic's TRIAN/TRAPE), RULEBLOCK with AND/OR/ACT/ACCU and RULEs. One statement per line
// (several short ones may share a line, separated by ';').

import { compileAgent } from '../engine/index.js';
import type { Operators } from '../engine/types.js';
import { buildModel, type FileOperators, FormatError, numbers, pointsTerm, readRule, setShapeOf, show, writableName, writeRule, type Model, type Term, type Variable } from './model.js';

const FORMAT = 'FCL';
const AND: Record<string, Operators['and']> = { MIN: 'min', PROD: 'product' };
const OR: Record<string, Operators['or']> = { MAX: 'max', ASUM: 'probabilisticSum' };
const ACT: Record<string, Operators['implication']> = { MIN: 'min', PROD: 'product' };

function unsupported(line: number, construct: string, what: string): never {
  throw new FormatError(line, construct, `${what} is not supported (fuzzbox: triangles, trapezoids, shoulders; AND MIN or PROD, OR MAX or ASUM, ACT MIN or PROD, ACCU MAX, METHOD COG)`);
}

/** Comments (`//`, `/* *\/`, `(* *)`) blanked out, line breaks kept, so that every line keeps its number. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\/|\(\*[\s\S]*?\*\)/g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/\/\/[^\n]*/g, '');
}

function readTerm(name: string, definition: string, line: number): Term {
  const text = definition.trim();
  if (text.startsWith('(')) {
    const points = [...text.matchAll(/\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)/g)].map((match) => numbers([match[1]!, match[2]!], line, `term "${name}"`) as [number, number]);
    if (points.length < 2 || text.replace(/\(\s*[^,()]+?\s*,\s*[^,()]+?\s*\)/g, '').trim() !== '') {
      throw new FormatError(line, 'point list', `term "${name}": expected points "(x, y) (x, y) …", got ${JSON.stringify(text)}`);
    }
    return pointsTerm(name, line, points);
  }
  const [type = '', ...parameters] = text.split(/\s+/);
  const shapes: Record<string, number> = { Triangle: 3, TRIAN: 3, Trapezoid: 4, TRAPE: 4, Ramp: 2, Rectangle: 2 };
  const expected = shapes[type];
  if (expected === undefined) {
    if (parameters.length === 0 && Number.isFinite(Number(type))) unsupported(line, 'singleton', `the singleton term "${name}" (a Sugeno-style output)`);
    unsupported(line, type, `the ${type} term "${name}"`);
  }
  const values = numbers(parameters, line, `term "${name}"`);
  if (values.length !== expected) throw new FormatError(line, type, `${type} takes ${expected} numbers, got ${values.length} in term "${name}"`);
  if (type === 'Ramp') return { name, line, kind: 'ramp', from: values[0]!, to: values[1]! };
  if (type === 'Rectangle') return { name, line, kind: 'points', points: [values[0]!, values[0]!, values[1]!, values[1]!] };
  return { name, line, kind: 'points', points: values };
}

/** Reads an FCL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFcl(text: string): Model {
  let name = '';
  const declared = { input: [] as string[], output: [] as string[] };
  const variables = new Map<string, Variable & { kind: 'input' | 'output' }>();
  const rules: string[] = [];
  const ruleLines: number[] = [];
  let operators: FileOperators | undefined;
  let block: { and?: Operators['and']; or?: Operators['or']; implication?: Operators['implication']; line: number } | undefined;
  let section: 'var_input' | 'var_output' | 'fuzzify' | 'defuzzify' | 'ruleblock' | undefined;
  let variable: (Variable & { kind: 'input' | 'output' }) | undefined;
  let blockSeen = false;

  withoutComments(text).split('\n').forEach((rawLine, index) => {
    const line = index + 1;
    for (const raw of rawLine.split(';')) {
      const statement = raw.trim();
      if (statement === '') continue;
      const [word = ''] = statement.split(/[\s:]/);
      const keyword = word.toUpperCase();
      const rest = statement.slice(word.length).trim();
      switch (keyword) {
        case 'FUNCTION_BLOCK':
          if (blockSeen) unsupported(line, 'FUNCTION_BLOCK', 'a second FUNCTION_BLOCK');
          blockSeen = true;
          name = rest;
          continue;
        case 'END_FUNCTION_BLOCK':
        case 'END_VAR':
        case 'END_FUZZIFY':
        case 'END_DEFUZZIFY':
          section = undefined;
          continue;
        case 'END_RULEBLOCK': {
          const chosen: FileOperators = {
            and: block!.and ?? (block!.or === 'probabilisticSum' ? 'product' : 'min'),
            // IEC 61131-7: OR left out pairs with AND by De Morgan (MIN with MAX, PROD with ASUM)
            or: block!.or ?? (block!.and === 'product' ? 'probabilisticSum' : 'max'),
            implication: block!.implication ?? 'min',
          };
          if (operators && JSON.stringify(operators) !== JSON.stringify(chosen)) {
            throw new FormatError(block!.line, 'RULEBLOCK', 'rule blocks with different operators are not supported: fuzzbox has one set of operators per agent');
          }
          operators = chosen;
          section = undefined;
          continue;
        }
        case 'VAR_INPUT':
        case 'VAR_OUTPUT':
          section = keyword === 'VAR_INPUT' ? 'var_input' : 'var_output';
          continue;
        case 'FUZZIFY':
        case 'DEFUZZIFY': {
          const kind = keyword === 'FUZZIFY' ? 'input' : 'output';
          if (!declared[kind].includes(rest)) {
            throw new FormatError(line, keyword, `${keyword} ${rest}: "${rest}" is not declared in VAR_${kind.toUpperCase()}`);
          }
          section = keyword === 'FUZZIFY' ? 'fuzzify' : 'defuzzify';
          variable = { name: rest, line, terms: [], kind };
          variables.set(`${kind}:${rest}`, variable);
          continue;
        }
        case 'RULEBLOCK':
          section = 'ruleblock';
          block = { line };
          continue;
      }
      if (section === 'var_input' || section === 'var_output') {
        const declaration = /^([^\s:]+)\s*:\s*\w+$/.exec(statement);
        if (!declaration) throw new FormatError(line, 'VAR', `expected "name : REAL", got ${JSON.stringify(statement)}`);
        declared[section === 'var_input' ? 'input' : 'output'].push(declaration[1]!);
        continue;
      }
      if (section === 'fuzzify' || section === 'defuzzify') {
        const assignment = /^(\w+)\s*(?:([^\s:]+)\s*)?:=?\s*(.*)$/.exec(statement);
        if (keyword === 'TERM' && assignment?.[2]) {
          variable!.terms.push(readTerm(assignment[2], assignment[3]!, line));
          continue;
        }
        if (keyword === 'RANGE') {
          const range = /^RANGE\s*:=\s*\(\s*(\S+)\s*\.\.\s*(\S+)\s*\)$/i.exec(statement);
          if (!range) throw new FormatError(line, 'RANGE', `expected "RANGE := (min .. max)", got ${JSON.stringify(statement)}`);
          const [min, max] = numbers([range[1]!, range[2]!], line, 'RANGE');
          variable!.range = [min!, max!];
          continue;
        }
        if (section === 'defuzzify') {
          const value = statement.replace(/^\w+\s*:=?\s*/, '').trim().toUpperCase();
          if (keyword === 'METHOD') {
            if (value !== 'COG') unsupported(line, `METHOD ${value}`, `the defuzzification method ${value}`);
            continue;
          }
          if (keyword === 'ACCU') {
            if (value !== 'MAX') unsupported(line, `ACCU ${value}`, `the accumulation ${value}`);
            continue;
          }
          // an output no rule reached is left out of fuzzbox's answer (SPEC 4): the caller applies its default
          if (keyword === 'DEFAULT') continue;
        }
      }
      if (section === 'ruleblock') {
        const value = statement.replace(/^\w+\s*:\s*/, '').trim().toUpperCase();
        if (keyword === 'AND' || keyword === 'OR' || keyword === 'ACT') {
          const table: Record<string, string | undefined> = keyword === 'AND' ? AND : keyword === 'OR' ? OR : ACT;
          if (!Object.hasOwn(table, value)) unsupported(line, `${keyword} ${value}`, `${keyword} : ${value}`);
          Object.assign(block!, { [keyword === 'AND' ? 'and' : keyword === 'OR' ? 'or' : 'implication']: table[value] });
          continue;
        }
        if (keyword === 'ACCU') {
          if (value !== 'MAX') unsupported(line, `ACCU ${value}`, `the accumulation ${value}`);
          continue;
        }
        if (keyword === 'RULE') {
          const rule = /^RULE\s+[^:]*:\s*(.*)$/i.exec(statement);
          if (!rule) throw new FormatError(line, 'RULE', `expected "RULE n : IF … THEN …", got ${JSON.stringify(statement)}`);
          rules.push(readRule(rule[1]!, line));
          ruleLines.push(line);
          continue;
        }
      }
      throw new FormatError(line, word, `${JSON.stringify(statement.slice(0, 80))} is not supported here`);
    }
  });

  const blocks = (kind: 'input' | 'output') =>
    declared[kind].map((variableName) => {
      const found = variables.get(`${kind}:${variableName}`);
      if (!found) throw new FormatError(0, kind === 'input' ? 'FUZZIFY' : 'DEFUZZIFY', `${kind} "${variableName}" is declared but has no ${kind === 'input' ? 'FUZZIFY' : 'DEFUZZIFY'} block`);
      return found;
    });
  return buildModel(name, blocks('input'), blocks('output'), rules, ruleLines, operators ?? { and: 'min', or: 'max', implication: 'min' });
}

/** Writes an agent as FCL (terms as IEC points); throws FormatError for a name FCL cannot hold. */
export function writeFcl(model: Model): string {
  const agent = compileAgent(model.definition);
  const lines = [`FUNCTION_BLOCK ${model.name === '' ? 'fuzzbox' : writableName(model.name, FORMAT)}`, ''];
  for (const kind of ['inputs', 'outputs'] as const) {
    lines.push(kind === 'inputs' ? 'VAR_INPUT' : 'VAR_OUTPUT');
    for (const name of Object.keys(agent.definition[kind])) lines.push(`  ${writableName(name, FORMAT)} : REAL;`);
    lines.push('END_VAR', '');
  }
  for (const kind of ['inputs', 'outputs'] as const) {
    for (const [name, sets] of Object.entries(agent.definition[kind])) {
      const range = agent[kind][name]!.range;
      lines.push(`${kind === 'inputs' ? 'FUZZIFY' : 'DEFUZZIFY'} ${name}`, `  RANGE := (${show(range[0])} .. ${show(range[1])});`);
      for (const [set, points] of Object.entries(sets)) {
        const shape = setShapeOf(points, range);
        const corners =
          shape.kind === 'ramp'
            ? [[shape.from, 0], [shape.to, 1]].sort((p, q) => p[0]! - q[0]!)
            : shape.points.map((x, i) => [x, i === 0 || i === shape.points.length - 1 ? 0 : 1]);
        lines.push(`  TERM ${writableName(set, FORMAT)} := ${corners.map(([x, y]) => `(${show(x!)}, ${y})`).join(' ')};`);
      }
      if (kind === 'outputs') lines.push('  METHOD : COG;', '  ACCU : MAX;');
      lines.push(kind === 'inputs' ? 'END_FUZZIFY' : 'END_DEFUZZIFY', '');
    }
  }
  const { and, or, implication } = agent.operators;
  lines.push('RULEBLOCK rules', `  AND : ${and === 'product' ? 'PROD' : 'MIN'};`, `  OR : ${or === 'probabilisticSum' ? 'ASUM' : 'MAX'};`, `  ACT : ${implication === 'product' ? 'PROD' : 'MIN'};`, '  ACCU : MAX;');
  agent.expandedRules.forEach((rule, r) => lines.push(`  RULE ${r + 1} : ${writeRule(rule, FORMAT, true)};`));
  lines.push('END_RULEBLOCK', '', 'END_FUNCTION_BLOCK');
  return `${lines.join('\n')}\n`;
}
