// IEC 61131-7 FCL, as jFuzzyLogic and fuzzylite write it: read by fcl-reader.ts, written here from
// the one model-file form (file-of-agent.ts), terms in fuzzylite's class names, point lists as IEC points.

import { agentOfFile } from './agent-of-file.js';
import { METHODS as READ_METHODS, readFclFile, S_NORMS as READ_S_NORMS, T_NORMS as READ_T_NORMS } from './fcl-reader.js';
import { fileOfAgent, ruleOf } from './file-of-agent.js';
import { show, writableName, writeRule, type Model } from './model.js';
import { className, FormatError, inverse, type DefuzzifierKind, type FileTerm } from './model-file.js';

const FORMAT = 'FCL';
// the reader's names, the other way round (the first name wins where FCL has two: ASUM over PROBOR)
const T_NORMS = inverse(READ_T_NORMS);
const S_NORMS = inverse(READ_S_NORMS);
const METHODS = inverse(READ_METHODS) as Readonly<Record<DefuzzifierKind, string>>;

/** Reads an FCL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFcl(text: string): Model {
  return agentOfFile(readFclFile(text));
}

function termLine({ name, kind, parameters, height, expression }: FileTerm): string {
  const written = writableName(name, FORMAT);
  if (kind === 'constant') return `  TERM ${written} := ${show(parameters[0]!)};`;
  if (kind === 'discrete' && height === 1) {
    const points: string[] = [];
    for (let i = 0; i + 1 < parameters.length; i += 2) points.push(`(${show(parameters[i]!)}, ${show(parameters[i + 1]!)})`);
    return `  TERM ${written} := ${points.join(' ')};`;
  }
  const values = [...parameters, ...(height === 1 ? [] : [height])];
  return `  TERM ${written} := ${className(kind)} ${expression ?? values.map(show).join(' ')};`;
}

/** Writes an agent as FCL; throws FormatError for a name FCL cannot hold. */
export function writeFcl(model: Model): string {
  const file = fileOfAgent(model);
  const lines = [`FUNCTION_BLOCK ${file.name === '' ? 'fuzzbox' : writableName(file.name, FORMAT)}`, ''];
  for (const [heading, variables] of [
    ['VAR_INPUT', file.inputs],
    ['VAR_OUTPUT', file.outputs],
  ] as const) {
    lines.push(heading, ...variables.map((variable) => `  ${writableName(variable.name, FORMAT)} : REAL;`), 'END_VAR', '');
  }
  for (const [opening, closing, variables] of [
    ['FUZZIFY', 'END_FUZZIFY', file.inputs],
    ['DEFUZZIFY', 'END_DEFUZZIFY', file.outputs],
  ] as const) {
    for (const variable of variables) {
      lines.push(`${opening} ${variable.name}`, `  RANGE := (${show(variable.range![0])} .. ${show(variable.range![1])});`, ...variable.terms.map(termLine));
      if (variable.defuzzifier) {
        lines.push(
          `  METHOD : ${METHODS[variable.defuzzifier.name]};`,
          `  ACCU : ${variable.aggregation?.name ? S_NORMS[variable.aggregation.name] : 'NONE'};`,
          `  DEFAULT := ${Number.isNaN(variable.defaultValue ?? NaN) ? 'nan' : show(variable.defaultValue!)};`,
        );
      }
      lines.push(closing, '');
    }
  }
  for (const block of file.ruleBlocks) {
    const norm = (table: Readonly<Record<string, string>>, setting: { name: string | null } | undefined) => {
      if (!setting?.name) return 'NONE';
      if (!Object.hasOwn(table, setting.name)) throw new FormatError(0, setting.name, `FCL has no name for ${className(setting.name)}`);
      return table[setting.name];
    };
    lines.push(
      `RULEBLOCK ${block.name}`,
      `  AND : ${norm(T_NORMS, block.conjunction)};`,
      `  OR : ${norm(S_NORMS, block.disjunction)};`,
      `  ACT : ${norm(T_NORMS, block.implication)};`,
    );
    block.rules.forEach((rule, r) => lines.push(`  RULE ${r + 1} : ${writeRule(ruleOf(rule.text), FORMAT, true)};`));
    lines.push('END_RULEBLOCK', '');
  }
  lines.push('END_FUNCTION_BLOCK');
  return `${lines.join('\n')}\n`;
}
