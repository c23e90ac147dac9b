// fuzzylite's FLL (https://fuzzylite.com/fll-fld): read by fll-reader.ts, written here from the
// one model-file form (file-of-agent.ts).

import { agentOfFile } from './agent-of-file.js';
import { fileOfAgent, ruleOf } from './file-of-agent.js';
import { readFllFile } from './fll-reader.js';
import { show, writableName, writeRule, type Model } from './model.js';
import { className, type FileTerm } from './model-file.js';

const FORMAT = 'FLL';

/** Reads an FLL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFll(text: string): Model {
  return agentOfFile(readFllFile(text));
}

function termLine({ name, kind, parameters, height, expression }: FileTerm): string {
  const values = [...parameters, ...(height === 1 ? [] : [height])];
  return `  term: ${writableName(name, FORMAT)} ${className(kind)} ${expression ?? values.map(show).join(' ')}`;
}

/** Writes an agent as FLL; throws FormatError for a name FLL cannot hold or a rule it cannot express. */
export function writeFll(model: Model): string {
  const file = fileOfAgent(model);
  const lines = [`Engine: ${file.name === '' ? 'fuzzbox' : writableName(file.name, FORMAT)}`];
  for (const [heading, variables] of [
    ['InputVariable', file.inputs],
    ['OutputVariable', file.outputs],
  ] as const) {
    for (const variable of variables) {
      lines.push(
        `${heading}: ${writableName(variable.name, FORMAT)}`,
        '  enabled: true',
        `  range: ${show(variable.range![0])} ${show(variable.range![1])}`,
        '  lock-range: false',
      );
      if (variable.defuzzifier) {
        const weighted = variable.defuzzifier.name === 'weightedAverage' || variable.defuzzifier.name === 'weightedSum';
        lines.push(
          `  aggregation: ${variable.aggregation?.name ? className(variable.aggregation.name) : 'none'}`,
          // fuzzbox integrates exactly: the resolution is what fuzzylite samples at when it reads the file
          `  defuzzifier: ${className(variable.defuzzifier.name)} ${weighted ? 'Automatic' : 200}`,
          `  default: ${Number.isNaN(variable.defaultValue ?? NaN) ? 'nan' : show(variable.defaultValue!)}`,
          '  lock-previous: false',
        );
      }
      for (const term of variable.terms) lines.push(termLine(term));
    }
  }
  for (const block of file.ruleBlocks) {
    const norm = (setting: { name: string | null } | undefined) => (setting?.name ? className(setting.name) : 'none');
    lines.push(
      `RuleBlock: ${block.name}`,
      '  enabled: true',
      `  conjunction: ${norm(block.conjunction)}`,
      `  disjunction: ${norm(block.disjunction)}`,
      `  implication: ${norm(block.implication)}`,
      '  activation: General',
    );
    for (const rule of block.rules) lines.push(`  rule: ${writeRule(ruleOf(rule.text), FORMAT, false)}`);
  }
  return `${lines.join('\n')}\n`;
}
