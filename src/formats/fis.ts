// MATLAB's FIS (Fuzzy Logic Toolbox, also written by fuzzylite): read by fis-reader.ts, written
// here. A FIS rule gives one set index per input and per output, a weight and its connective, so
// only flat rules can be written.

import { compileAgent, printRule } from '../engine/index.js';
import type { IfRule } from '../engine/types.js';
import { agentOfFile } from './agent-of-file.js';
import { readFisFile } from './fis-reader.js';
import { FormatError, setShapeOf, show, type Model } from './model.js';

const FORMAT = 'FIS';

/** Reads a FIS file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFis(text: string): Model {
  return agentOfFile(readFisFile(text));
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
