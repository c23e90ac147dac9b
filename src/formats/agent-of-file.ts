// A model file as an agent: what each reader found (one form for FLL, FIS and FCL) turned into
// fuzzbox's agent definition. Everything the agent cannot hold is refused here, once for all three
// formats, as a FormatError naming the construct and the line it is on; nothing is approximated.

import type { Operators } from '../engine/types.js';
import { buildModel, pointsTerm, readRule, type Model, type Term, type Variable } from './model.js';
import { FormatError, type FileRuleBlock, type FileTerm, type FileVariable, type ModelFile } from './model-file.js';

const HELD = 'fuzzbox holds triangles, trapezoids, ramps, rectangles and point lists of degrees 0 and 1; Minimum or AlgebraicProduct conjunction and implication; Maximum or AlgebraicSum disjunction; Maximum aggregation; Centroid';

function refuse(line: number, construct: string, what: string): never {
  throw new FormatError(line, construct, `${what} is not supported (${HELD})`);
}

const CLASS_NAME = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** A term as fuzzbox's piecewise-linear sets hold it. */
function termOf(term: FileTerm): Term {
  const { name, line, kind, parameters: p } = term;
  if (term.height !== 1 && kind !== 'discrete') refuse(line, 'term height', `term "${name}" with height ${term.height}`);
  switch (kind) {
    case 'triangle':
    case 'trapezoid':
      return { name, line, kind: 'points', points: p };
    case 'ramp':
      return { name, line, kind: 'ramp', from: p[0]!, to: p[1]! };
    case 'rectangle':
      return { name, line, kind: 'points', points: [p[0]!, p[0]!, p[1]!, p[1]!] };
    case 'discrete': {
      if (term.height !== 1) refuse(line, 'term height', `term "${name}" with height ${term.height}`);
      const points: Array<[number, number]> = [];
      for (let i = 0; i + 1 < p.length; i += 2) points.push([p[i]!, p[i + 1]!]);
      return pointsTerm(name, line, points);
    }
    case 'constant':
      return refuse(line, 'Constant', `the Constant term "${name}" (a Takagi-Sugeno output)`);
    default:
      return refuse(line, CLASS_NAME(kind), `the ${CLASS_NAME(kind)} term "${name}"`);
  }
}

function variableOf(variable: FileVariable, output: boolean): Variable {
  if (!variable.enabled) refuse(variable.line, 'enabled: false', `the disabled variable "${variable.name}"`);
  const terms = variable.terms.map(termOf);
  if (output) {
    const { aggregation, defuzzifier, lockPrevious } = variable;
    if (aggregation && aggregation.name !== 'maximum') refuse(aggregation.line, `aggregation ${aggregation.name ?? 'none'}`, `the aggregation ${aggregation.name ?? 'none'}`);
    if (defuzzifier && defuzzifier.name !== 'centroid') refuse(defuzzifier.line, `defuzzifier ${defuzzifier.name}`, `the defuzzifier ${CLASS_NAME(defuzzifier.name)}`);
    if (lockPrevious?.value) refuse(lockPrevious.line, 'lock-previous', 'lock-previous: true');
  }
  return { name: variable.name, line: variable.line, ...(variable.range ? { range: [variable.range[0], variable.range[1]] as [number, number] } : {}), terms };
}

const AND: Readonly<Record<string, NonNullable<Operators['and']>>> = { minimum: 'min', algebraicProduct: 'product' };
const OR: Readonly<Record<string, NonNullable<Operators['or']>>> = { maximum: 'max', algebraicSum: 'probabilisticSum' };

function operatorsOf(block: FileRuleBlock): Required<Operators> {
  const pick = <T>(table: Readonly<Record<string, T>>, role: string, setting: { name: string | null; line: number } | undefined, fallback: T): T => {
    if (setting === undefined || (setting.name === null && role !== 'implication')) return fallback;
    if (setting.name === null || !Object.hasOwn(table, setting.name)) refuse(setting.line, `${role} ${setting.name ?? 'none'}`, `the ${role} ${setting.name ?? 'none'}`);
    return table[setting.name]!;
  };
  if (block.activation && block.activation.name !== 'general') refuse(block.activation.line, `activation ${block.activation.name}`, `the activation ${block.activation.name}`);
  return {
    and: pick(AND, 'conjunction', block.conjunction, 'min'),
    or: pick(OR, 'disjunction', block.disjunction, 'max'),
    implication: pick(AND as Readonly<Record<string, NonNullable<Operators['implication']>>>, 'implication', block.implication, 'min'),
  };
}

/** The agent a model file describes; a FormatError for anything it cannot hold. */
export function agentOfFile(file: ModelFile): Model {
  const inputs = file.inputs.map((variable) => variableOf(variable, false));
  const outputs = file.outputs.map((variable) => variableOf(variable, true));
  const rules: string[] = [];
  const ruleLines: number[] = [];
  let operators: Required<Operators> | undefined;
  for (const block of file.ruleBlocks) {
    if (!block.enabled) refuse(block.line, 'enabled: false', 'a disabled rule block');
    const chosen = operatorsOf(block);
    if (operators && (operators.and !== chosen.and || operators.or !== chosen.or || operators.implication !== chosen.implication)) {
      throw new FormatError(block.line, 'rule block', 'rule blocks with different operators are not supported: fuzzbox has one set of operators per agent');
    }
    operators = chosen;
    for (const rule of block.rules) {
      rules.push(readRule(rule.text, rule.line));
      ruleLines.push(rule.line);
    }
  }
  return buildModel(file.name, inputs, outputs, rules, ruleLines, operators ?? { and: 'min', or: 'max', implication: 'min' });
}
