// MATLAB's FIS (Fuzzy Logic Toolbox, also written by fuzzylite): read by fis-reader.ts, written here
// from the one model-file form (file-of-agent.ts). A FIS file names one method of each kind for the
// whole system and a rule row gives one term index per variable, so it holds less than FLL and FCL:
// what it cannot hold is a FormatError saying why.

import { printRule } from '../engine/index.js';
import type { Condition, IfRule, SetReference } from '../engine/types.js';
import { agentOfFile } from './agent-of-file.js';
import { DEFUZZIFIERS, HEDGE_CODES, MEMBERSHIP_FUNCTIONS, readFisFile, S_NORMS, T_NORMS } from './fis-reader.js';
import { fileOfAgent, ruleOf } from './file-of-agent.js';
import { show, type Model } from './model.js';
import { FormatError, inverse, isTakagiSugeno, type FileTerm, type FileVariable } from './model-file.js';

const FORMAT = 'FIS';
const FIS_T_NORMS = inverse(T_NORMS);
const FIS_S_NORMS = inverse(S_NORMS);
const FIS_DEFUZZIFIERS = inverse(DEFUZZIFIERS);
const HEDGE_FRACTIONS = new Map(HEDGE_CODES.map(([fraction, hedges]) => [hedges, fraction]));

/** Reads a FIS file; throws FormatError naming the line and construct of anything fuzzbox cannot express. */
export function readFis(text: string): Model {
  return agentOfFile(readFisFile(text));
}

function cannot(why: string): FormatError {
  return new FormatError(0, FORMAT, `this agent cannot be written as FIS: ${why}`);
}

function quoted(name: string): string {
  if (/['\n\r]/.test(name))
    throw new FormatError(0, 'name', `the name ${JSON.stringify(name)} cannot be written in ${FORMAT}: it holds a quote or a line break`);
  return `'${name}'`;
}

/** A term as `'name':'type',[parameters]`, in MATLAB's order of parameters. */
function membershipFunction(term: FileTerm): string {
  const [type, known] = Object.entries(MEMBERSHIP_FUNCTIONS).find(([, entry]) => entry.kind === term.kind)!;
  const parameters = [...term.parameters];
  if (known.order) known.order.forEach((matlab, i) => (parameters[matlab] = term.parameters[i]!));
  if (term.height !== 1) parameters.push(term.height);
  return `${quoted(term.name)}:'${type}',[${term.expression ?? parameters.map(show).join(' ')}]`;
}

/** One variable's term index with its hedges and NOT: fuzzylite's code (`-2.3`: not extremely the second). */
function code(reference: SetReference, negated: boolean, variable: FileVariable): number {
  const hedges = (reference.hedges ?? []).join(' ');
  const any = reference.set === 'any' && !variable.terms.some((term) => term.name === 'any');
  const fraction = any ? 0.99 : hedges === '' ? 0 : HEDGE_FRACTIONS.get(hedges);
  if (fraction === undefined) throw cannot(`its codes hold one hedge (or "very very"), not "${hedges}"`);
  const index = any ? 0 : variable.terms.findIndex((term) => term.name === reference.set) + 1;
  return (negated ? -1 : 1) * (index + fraction);
}

function ruleRow(rule: IfRule, inputs: readonly FileVariable[], outputs: readonly FileVariable[]): string {
  const refuse = (why: string) => cannot(`the rule "${printRule(rule)}": ${why}`);
  const literals: readonly Condition[] = rule.condition.type === 'and' || rule.condition.type === 'or' ? rule.condition.operands : [rule.condition];
  const antecedent = inputs.map(() => 0);
  for (const literal of literals) {
    const negated = literal.type === 'not';
    const is = negated ? literal.operand : literal;
    if (is.type !== 'is') throw refuse('its rules are one AND or one OR of conditions, without nesting');
    const i = inputs.findIndex((input) => input.name === is.variable);
    if (i < 0) throw refuse(`its condition names the output "${is.variable}", and FIS rows have a column per input only`);
    if (antecedent[i] !== 0) throw refuse(`it names input "${is.variable}" twice`);
    antecedent[i] = code(is, negated, inputs[i]!);
  }
  const consequent = outputs.map(() => 0);
  for (const conclusion of rule.conclusions) {
    const o = outputs.findIndex((output) => output.name === conclusion.variable);
    const value = code(conclusion, false, outputs[o]!);
    if (consequent[o] !== 0 && consequent[o] !== value) throw refuse(`it concludes output "${conclusion.variable}" twice`);
    consequent[o] = value;
  }
  return `${antecedent.join(' ')}, ${consequent.join(' ')} (${show(rule.weight)}) : ${rule.condition.type === 'or' ? 2 : 1}`;
}

/** The one value every variable of `list` has for `setting`, or a FormatError saying FIS has one. */
function single<T>(list: readonly T[], what: string): T | undefined {
  const distinct = [...new Set(list)];
  if (distinct.length > 1) throw cannot(`FIS names one ${what} for the whole system, and this agent has ${distinct.join(', ')}`);
  return distinct[0];
}

/** Writes an agent as FIS; throws FormatError for what FIS cannot hold (nested rules, one method per system). */
export function writeFis(model: Model): string {
  const file = fileOfAgent(model);
  const mamdani = file.outputs.filter((output) => output.defuzzifier!.name !== 'weightedAverage' && output.defuzzifier!.name !== 'weightedSum');
  const weighted = file.outputs.filter((output) => !mamdani.includes(output));
  const sugeno = weighted.filter(isTakagiSugeno);
  const blocks = file.ruleBlocks;
  const and = single(
    blocks.map((block) => block.conjunction?.name ?? 'minimum'),
    'AND method',
  );
  const or = single(
    blocks.map((block) => block.disjunction?.name ?? 'maximum'),
    'OR method',
  );
  const implication =
    single(
      blocks.flatMap((block) => (block.implication?.name ? [block.implication.name] : [])),
      'implication',
    ) ?? 'minimum';
  const aggregation =
    single(
      mamdani.map((output) => output.aggregation?.name ?? 'none'),
      'aggregation',
    ) ?? 'maximum';
  const defuzzification =
    single(
      mamdani.map((output) => output.defuzzifier!.name),
      'defuzzification',
    ) ??
    single(
      weighted.map((output) => output.defuzzifier!.name),
      'defuzzification',
    ) ??
    'centroid';
  if (mamdani.length > 0 && weighted.some((output) => output.defuzzifier!.name !== 'weightedAverage'))
    throw cannot('beside integrated outputs, its weighted outputs can only be weighted averages');
  const aggregated = weighted.find((output) => output.aggregation?.name);
  if (aggregated)
    throw cannot(`MATLAB weighs each rule of a weighted output on its own, and "${aggregated.name}" aggregates them by ${aggregated.aggregation!.name}`);
  if (aggregation === 'none' || !Object.hasOwn(FIS_S_NORMS, aggregation)) throw cannot(`FIS has no aggregation ${aggregation}`);
  const type = weighted.length === 0 ? 'mamdani' : mamdani.length > 0 ? 'hybrid' : sugeno.length === weighted.length ? 'sugeno' : 'tsukamoto';
  const rows = blocks.flatMap((block) => block.rules.map((rule) => ruleRow(ruleOf(rule.text), file.inputs, file.outputs)));
  const lines = [
    '[System]',
    `Name=${quoted(file.name)}`,
    `Type='${type}'`,
    'Version=2.0',
    `NumInputs=${file.inputs.length}`,
    `NumOutputs=${file.outputs.length}`,
    `NumRules=${rows.length}`,
    `AndMethod='${FIS_T_NORMS[and!]}'`,
    `OrMethod='${FIS_S_NORMS[or!]}'`,
    `ImpMethod='${FIS_T_NORMS[implication]}'`,
    `AggMethod='${FIS_S_NORMS[aggregation]}'`,
    `DefuzzMethod='${FIS_DEFUZZIFIERS[defuzzification]}'`,
  ];
  for (const [heading, variables] of [
    ['Input', file.inputs],
    ['Output', file.outputs],
  ] as const) {
    variables.forEach((variable, v) => {
      lines.push(
        '',
        `[${heading}${v + 1}]`,
        `Name=${quoted(variable.name)}`,
        `Range=[${show(variable.range![0])} ${show(variable.range![1])}]`,
        `NumMFs=${variable.terms.length}`,
      );
      if (variable.defuzzifier && !Number.isNaN(variable.defaultValue ?? NaN)) lines.push(`Default=${show(variable.defaultValue!)}`);
      variable.terms.forEach((term, t) => lines.push(`MF${t + 1}=${membershipFunction(term)}`));
    });
  }
  lines.push('', '[Rules]', ...rows);
  return `${lines.join('\n')}\n`;
}
