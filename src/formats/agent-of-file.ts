// A model file as an agent: what each reader found (one form for FLL, FIS and FCL) turned into
// fuzzbox's agent definition (docs/ENGINE.md, "Term kinds, universes, operators"). Everything the
// agent cannot hold is refused here, once for all three formats, as a FormatError naming the
// construct and the line it is on; nothing is approximated.
//
// A variable whose terms are all straight-sided and whose declared range adds nothing keeps
// fuzzy.ai's arrays, exactly as before; any other variable gets every term as an object naming its
// kind, and its declared range in `operators.ranges`, so that no array shoulder changes direction
// against a universe it was not drawn for.

import { parseRule } from '../engine/index.js';
import { variableUniverse } from '../engine/variables.js';
import { TERM_PARAMETERS } from '../engine/terms.js';
import type { Aggregation, Condition, IfRule, Operators, OutputOperators, SNorm, TermDefinition, TNorm, VariableDefinition } from '../engine/types.js';
import { checkedModel, pointsTerm, readRule, resolveSets, type Model, type Term } from './model.js';
import { className, FormatError, isTakagiSugeno, type FileRuleBlock, type FileTerm, type FileVariable, type ModelFile } from './model-file.js';

function refuse(line: number, construct: string, what: string): never {
  throw new FormatError(line, construct, `${what} is not supported`);
}

export const T_NORMS: Readonly<Record<string, TNorm>> = {
  minimum: 'min',
  algebraicProduct: 'product',
  boundedDifference: 'boundedDifference',
  drasticProduct: 'drasticProduct',
  einsteinProduct: 'einsteinProduct',
  hamacherProduct: 'hamacherProduct',
  nilpotentMinimum: 'nilpotentMinimum',
};
export const S_NORMS: Readonly<Record<string, SNorm>> = {
  maximum: 'max',
  algebraicSum: 'probabilisticSum',
  boundedSum: 'boundedSum',
  normalizedSum: 'normalizedSum',
  drasticSum: 'drasticSum',
  einsteinSum: 'einsteinSum',
  hamacherSum: 'hamacherSum',
  nilpotentMaximum: 'nilpotentMaximum',
};

function norm<T>(table: Readonly<Record<string, T>>, role: string, setting: { name: string | null; line: number }): T {
  if (setting.name === null || !Object.hasOwn(table, setting.name))
    refuse(setting.line, `${role} ${setting.name ?? 'none'}`, `the ${role} ${setting.name === null ? 'none' : className(setting.name)}`);
  return table[setting.name]!;
}

/** The term as a straight-sided array term, when it is one (height 1, no plateau beyond its points). */
function straightTerm(term: FileTerm): Term | undefined {
  if (term.height !== 1) return undefined;
  const { name, line, parameters: p } = term;
  switch (term.kind) {
    case 'triangle':
    case 'trapezoid':
      return { name, line, kind: 'points', points: p };
    case 'ramp':
      return { name, line, kind: 'ramp', from: p[0]!, to: p[1]! };
    case 'discrete': {
      const points: Array<[number, number]> = [];
      for (let i = 0; i + 1 < p.length; i += 2) points.push([p[i]!, p[i + 1]!]);
      // a point list that is a triangle, trapezoid or ramp with nothing beyond its corners
      try {
        const shape = pointsTerm(name, line, points);
        const corners = shape.kind === 'ramp' ? 2 : shape.points.length;
        return corners === points.length ? shape : undefined;
      } catch (error) {
        if (error instanceof FormatError) return undefined;
        throw error;
      }
    }
    default:
      return undefined;
  }
}

/** The term as an object naming its kind, parameters named as fuzzylite's members. */
function termObject(term: FileTerm, inputs: readonly string[]): TermDefinition {
  const { name, line, kind, parameters: p } = term;
  const height = term.height === 1 ? {} : { height: term.height };
  switch (kind) {
    case 'function':
      return { type: 'function', formula: term.expression ?? '' };
    case 'discrete': {
      const points: Array<[number, number]> = [];
      for (let i = 0; i + 1 < p.length; i += 2) points.push([p[i]!, p[i + 1]!]);
      return { type: 'discrete', points, ...height };
    }
    case 'linear': {
      if (p.length > inputs.length + 1)
        throw new FormatError(line, 'Linear', `the Linear term "${name}" has ${p.length} coefficients; there are ${inputs.length} inputs (and a constant)`);
      const coefficients = Object.fromEntries(inputs.flatMap((input, i) => (p[i] === undefined ? [] : [[input, p[i]!]])));
      return { type: 'linear', coefficients, ...(p.length === inputs.length + 1 && p[inputs.length] !== 0 ? { constant: p[inputs.length]! } : {}) };
    }
    case 'constant':
      return { type: 'constant', value: p[0]! };
    default: {
      const names: readonly string[] = TERM_PARAMETERS[kind];
      return { type: kind, ...Object.fromEntries(names.map((member, i) => [member, p[i]!])), ...height } as TermDefinition;
    }
  }
}

interface Converted {
  readonly sets: VariableDefinition;
  readonly range?: readonly [number, number];
}

function variableOf(variable: FileVariable, output: boolean, inputs: readonly string[]): Converted {
  if (!variable.enabled) refuse(variable.line, 'enabled: false', `the disabled variable "${variable.name}"`);
  const straight = variable.terms.map(straightTerm);
  const declared = variable.range;
  // a weighted output (Tsukamoto) reads its ramps as ramps: arrays are fuzzy.ai's integrated sets
  const weighted = variable.defuzzifier?.name === 'weightedAverage' || variable.defuzzifier?.name === 'weightedSum';
  // sets reaching past a declared range are cut there (MATLAB and fuzzylite integrate over the range): terms, not arrays
  const reachesPast = (term: Term) =>
    declared !== undefined && (term.kind === 'ramp' ? [term.from, term.to] : term.points).some((x) => x < declared[0] || x > declared[1]);
  if (straight.every((term) => term !== undefined && !reachesPast(term)) && !weighted && straight.length > 0) {
    const sets = resolveSets(
      { name: variable.name, line: variable.line, ...(declared ? { range: [declared[0], declared[1]] as [number, number] } : {}), terms: straight as Term[] },
      output,
    );
    const inferred = variableUniverse(sets);
    // the universe the arrays imply is the declared one: the arrays say it all, exactly as before ranges existed
    if (declared === undefined || (declared[0] === inferred[0] && declared[1] === inferred[1])) return { sets };
    // else the declared universe is kept, and ramps become ramp terms, whose direction no universe changes
    return {
      sets: Object.fromEntries(
        variable.terms.map((term, i) => [term.name, term.kind === 'ramp' || straight[i]!.kind === 'ramp' ? termObject(term, inputs) : sets[term.name]!]),
      ),
      range: declared,
    };
  }
  const sets = Object.fromEntries(variable.terms.map((term) => [term.name, termObject(term, inputs)]));
  // terms with ends of their own imply a universe, and a declared one equal to it adds nothing; the others need it
  const bounded = variable.terms.every(
    (term) => term.kind === 'triangle' || term.kind === 'trapezoid' || term.kind === 'rectangle' || term.kind === 'discrete',
  );
  const inferred = variableUniverse(sets);
  const implied = bounded && declared !== undefined && declared[0] === inferred[0] && declared[1] === inferred[1];
  return { sets, ...(declared && !implied ? { range: declared } : {}) };
}

/** What an output chooses for itself, left out where it is what its kind of output has by default. */
function outputSettings(variable: FileVariable, sugeno: boolean): OutputOperators {
  // lock-previous (keep the last call's value when no rule fires) is read and not kept: an evaluation
  // depends only on its inputs, so such an output takes its default, or is left out (docs/FORMATS.md)
  const { aggregation, defuzzifier, defaultValue } = variable;
  const settings: { aggregation?: Aggregation; defuzzification?: OutputOperators['defuzzification']; default?: number } = {};
  const weighted = defuzzifier ? defuzzifier.name === 'weightedAverage' || defuzzifier.name === 'weightedSum' : sugeno;
  if (aggregation) {
    const chosen: Aggregation = aggregation.name === null ? 'none' : norm(S_NORMS, 'aggregation', aggregation);
    if (chosen === 'none' && !weighted) refuse(aggregation.line, 'aggregation none', `aggregation none on "${variable.name}", whose defuzzifier integrates`);
    if (chosen !== (weighted ? 'none' : 'max')) settings.aggregation = chosen;
  }
  if (defuzzifier && defuzzifier.name !== (sugeno ? 'weightedAverage' : 'centroid')) settings.defuzzification = defuzzifier.name;
  if (defaultValue !== undefined && Number.isFinite(defaultValue)) settings.default = defaultValue;
  return settings;
}

interface BlockOperators {
  and?: TNorm;
  or?: SNorm;
  implication?: TNorm;
}

function blockOperators(block: FileRuleBlock): BlockOperators {
  if (!block.enabled) refuse(block.line, 'enabled: false', 'a disabled rule block');
  if (block.activation && block.activation.name !== 'general')
    refuse(block.activation.line, `activation ${block.activation.name}`, `the activation ${className(block.activation.name)}`);
  const chosen: BlockOperators = {};
  if (block.conjunction?.name) chosen.and = norm(T_NORMS, 'conjunction', block.conjunction);
  if (block.disjunction?.name) chosen.or = norm(S_NORMS, 'disjunction', block.disjunction);
  // an implication left out is the default (minimum); `none` is none, for weighted outputs only
  if (block.implication === undefined) chosen.implication = 'min';
  else if (block.implication.name) chosen.implication = norm(T_NORMS, 'implication', block.implication);
  return chosen;
}

/** The agent a model file describes; a FormatError for anything it cannot hold. */
export function agentOfFile(file: ModelFile): Model {
  const inputNames = file.inputs.map((variable) => variable.name);
  const ranges: Record<string, readonly [number, number]> = {};
  const lines = new Map<string, number>();
  const convert = (list: readonly FileVariable[], kind: 'inputs' | 'outputs') =>
    Object.fromEntries(
      list.map((variable) => {
        lines.set(`${kind}.${variable.name}`, variable.line);
        for (const term of variable.terms) lines.set(`${kind}.${variable.name}.${term.name}`, term.line);
        const { sets, range } = variableOf(variable, kind === 'outputs', inputNames);
        if (range) ranges[variable.name] = range;
        return [variable.name, sets];
      }),
    );
  const inputs = convert(file.inputs, 'inputs');
  const outputs = convert(file.outputs, 'outputs');

  const weightedOutputs = new Set(
    file.outputs
      .filter((output) => isTakagiSugeno(output) || output.defuzzifier?.name === 'weightedAverage' || output.defuzzifier?.name === 'weightedSum')
      .map((output) => output.name),
  );
  // rules, and which outputs each block concludes (for an implication per output)
  const rules: string[] = [];
  const ruleLines: number[] = [];
  const agentOperators: BlockOperators = {};
  const implications = new Map<string, { implication: TNorm | undefined; line: number }>();
  for (const block of file.ruleBlocks) {
    const chosen = blockOperators(block);
    for (const role of ['and', 'or'] as const) {
      const mine = chosen[role];
      if (mine === undefined) continue;
      if (agentOperators[role] !== undefined && agentOperators[role] !== mine) {
        throw new FormatError(
          block.line,
          'rule block',
          `rule blocks with different ${role === 'and' ? 'conjunctions' : 'disjunctions'} are not supported: fuzzbox has one AND and one OR per agent`,
        );
      }
      (agentOperators as Record<string, string>)[role] = mine;
    }
    for (const rule of block.rules) {
      const text = readRule(rule.text, rule.line);
      rules.push(text);
      ruleLines.push(rule.line);
      const ast = parseRule(text) as IfRule;
      for (const { variable } of ast.conclusions) {
        // a weighted output implies nothing: its block's implication is no choice of its own
        if (weightedOutputs.has(variable)) continue;
        const before = implications.get(variable);
        if (before && before.implication !== chosen.implication) {
          throw new FormatError(
            rule.line,
            'rule block',
            `"${variable}" is concluded by rule blocks with different implications; fuzzbox has one implication per output`,
          );
        }
        implications.set(variable, { implication: chosen.implication, line: block.implication?.line ?? block.line });
      }
    }
  }

  // one implication for the agent when the Mamdani outputs agree, else each output its own
  const used = new Set([...implications.values()].flatMap(({ implication }) => (implication ? [implication] : [])));
  const oneImplication = used.size === 1 ? [...used][0] : undefined;
  const perOutput: Record<string, OutputOperators> = {};
  for (const variable of file.outputs) {
    const sugeno = isTakagiSugeno(variable);
    const settings: OutputOperators = outputSettings(variable, sugeno);
    const implied = implications.get(variable.name);
    if (implied && implied.implication === undefined) refuse(implied.line, 'implication none', `implication none for "${variable.name}", a Mamdani output`);
    const own = used.size > 1 && implied?.implication !== undefined && implied.implication !== 'min' ? { implication: implied.implication } : {};
    if (Object.keys(settings).length + Object.keys(own).length > 0) perOutput[variable.name] = { ...own, ...settings };
  }

  const operators: Operators = {
    ...(agentOperators.and && agentOperators.and !== 'min' ? { and: agentOperators.and } : {}),
    ...(agentOperators.or && agentOperators.or !== 'max' ? { or: agentOperators.or } : {}),
    ...(oneImplication && oneImplication !== 'min' ? { implication: oneImplication } : {}),
    ...(Object.keys(ranges).length > 0 ? { ranges } : {}),
    ...(Object.keys(perOutput).length > 0 ? { outputs: perOutput } : {}),
  };
  const definition = { inputs, outputs, rules, ...(Object.keys(operators).length > 0 ? { operators } : {}) };
  return checkedModel(file.name, definition, { variables: lines, rules: ruleLines, file: 1 });
}
