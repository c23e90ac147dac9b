// IEC 61131-7 FCL, as jFuzzyLogic and fuzzylite write it: read by fcl-reader.ts, written here.

import { compileAgent } from '../engine/index.js';
import { agentOfFile } from './agent-of-file.js';
import { readFclFile } from './fcl-reader.js';
import { setShapeOf, show, writableName, writeRule, type Model } from './model.js';

const FORMAT = 'FCL';

/** Reads an FCL file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFcl(text: string): Model {
  return agentOfFile(readFclFile(text));
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
