// fuzzylite's FLL (https://fuzzylite.com/fll-fld): read by fll-reader.ts, written here.

import { compileAgent } from '../engine/index.js';
import { agentOfFile } from './agent-of-file.js';
import { readFllFile } from './fll-reader.js';
import { setShapeOf, show, writableName, writeRule, type Model } from './model.js';

const FORMAT = 'FLL';

/** Reads an FLL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFll(text: string): Model {
  return agentOfFile(readFllFile(text));
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
