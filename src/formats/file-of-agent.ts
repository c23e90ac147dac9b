// An agent as a model file says it: the inverse of agent-of-file.ts, into the same one form the
// readers produce, so that each writer (FLL, FCL, FIS) only spells it. Ranges are the compiled
// agent's universes; every setting an output or rule block has is written out, defaults included.

import { compileAgent, parseRule, printRule } from '../engine/index.js';
import { SUGENO_KINDS, TERM_PARAMETERS } from '../engine/terms.js';
import type { Defuzzification, IfRule, SetDefinition, TermDefinition, TNorm } from '../engine/types.js';
import { S_NORMS, T_NORMS } from './agent-of-file.js';
import { setShapeOf, type Model } from './model.js';
import { FormatError, type FileRuleBlock, type FileTerm, type FileVariable, type ModelFile } from './model-file.js';

const FILE_T_NORMS = Object.fromEntries(Object.entries(T_NORMS).map(([file, engine]) => [engine, file]));
const FILE_S_NORMS = Object.fromEntries(Object.entries(S_NORMS).map(([file, engine]) => [engine, file]));

function termOf(name: string, set: SetDefinition | TermDefinition, range: readonly [number, number], inputs: readonly string[]): FileTerm {
  if (Array.isArray(set)) {
    const shape = setShapeOf(set as SetDefinition, range);
    return shape.kind === 'ramp'
      ? { name, line: 0, kind: 'ramp', parameters: [shape.from, shape.to], height: 1 }
      : { name, line: 0, kind: shape.kind, parameters: shape.points, height: 1 };
  }
  const term = set as TermDefinition;
  switch (term.type) {
    case 'discrete':
      return { name, line: 0, kind: 'discrete', parameters: term.points.flat(), height: term.height ?? 1 };
    case 'constant':
      return { name, line: 0, kind: 'constant', parameters: [term.value], height: 1 };
    case 'linear':
      return { name, line: 0, kind: 'linear', parameters: [...inputs.map((input) => term.coefficients[input] ?? 0), term.constant ?? 0], height: 1 };
    case 'function':
      return { name, line: 0, kind: 'function', parameters: [], height: 1, expression: term.formula };
    default: {
      const members: readonly string[] = TERM_PARAMETERS[term.type];
      return {
        name,
        line: 0,
        kind: term.type,
        parameters: members.map((member) => (term as unknown as Record<string, number>)[member]!),
        height: term.height ?? 1,
      };
    }
  }
}

/** The model file an agent is: every variable with its universe, every output's settings, rule blocks by implication. */
export function fileOfAgent(model: Model): ModelFile {
  const agent = compileAgent(model.definition);
  const operators = model.definition.operators ?? {};
  if (operators.activationThreshold !== undefined) {
    throw new FormatError(
      0,
      'activationThreshold',
      'an activation threshold cannot be written in a model file (fuzzylite fires rules above 1e-6, MATLAB above 0); remove it, or keep the agent as JSON',
    );
  }
  const inputs = Object.keys(model.definition.inputs);
  const weightedOutputs = new Set<string>();
  const variables = (kind: 'inputs' | 'outputs'): FileVariable[] =>
    Object.entries(model.definition[kind]).map(([name, sets]) => {
      const range = agent[kind][name]!.range;
      const terms = Object.entries(sets).map(([set, definition]) => termOf(set, definition, range, inputs));
      const variable: FileVariable = { name, line: 0, range: [range[0], range[1]], enabled: true, terms };
      if (kind === 'outputs') {
        const own = operators.outputs?.[name] ?? {};
        const sugeno = terms.length > 0 && terms.every((term) => SUGENO_KINDS.has(term.kind as never));
        const defuzzification: Defuzzification = own.defuzzification ?? operators.defuzzification ?? (sugeno ? 'weightedAverage' : 'centroid');
        const weighted = defuzzification === 'weightedAverage' || defuzzification === 'weightedSum';
        if (weighted) weightedOutputs.add(name);
        const aggregation = own.aggregation ?? operators.aggregation ?? (weighted ? 'none' : 'max');
        variable.defuzzifier = { name: defuzzification, line: 0 };
        variable.aggregation = { name: aggregation === 'none' ? null : FILE_S_NORMS[aggregation]!, line: 0 };
        variable.defaultValue = own.default ?? NaN;
        variable.lockPrevious = { value: false, line: 0 };
        variable.lockRange = false;
      }
      return variable;
    });
  const file: ModelFile = { name: model.name, inputs: variables('inputs'), outputs: variables('outputs'), ruleBlocks: [] };

  // one block per implication: a weighted output implies nothing (none)
  const implicationOf = (output: string): TNorm | null =>
    weightedOutputs.has(output) ? null : (operators.outputs?.[output]?.implication ?? operators.implication ?? 'min');
  const blocks = new Map<TNorm | null, FileRuleBlock>();
  const blockOf = (implication: TNorm | null) => {
    let block = blocks.get(implication);
    if (!block) {
      block = {
        name: blocks.size === 0 ? 'rules' : `rules${blocks.size + 1}`,
        line: 0,
        enabled: true,
        conjunction: { name: FILE_T_NORMS[operators.and ?? 'min']!, line: 0 },
        disjunction: { name: FILE_S_NORMS[operators.or ?? 'max']!, line: 0 },
        implication: { name: implication === null ? null : FILE_T_NORMS[implication]!, line: 0 },
        activation: { name: 'general', line: 0 },
        rules: [],
      };
      blocks.set(implication, block);
    }
    return block;
  };
  for (const rule of agent.expandedRules) {
    // a rule whose conclusions are implied differently is the same condition once per block
    const byImplication = new Map<TNorm | null, IfRule['conclusions'][number][]>();
    for (const conclusion of rule.conclusions) {
      const implication = implicationOf(conclusion.variable);
      byImplication.set(implication, [...(byImplication.get(implication) ?? []), conclusion]);
    }
    for (const [implication, conclusions] of byImplication) blockOf(implication).rules.push({ text: printRule({ ...rule, conclusions }), line: 0 });
  }
  if (blocks.size === 0) blockOf(operators.implication ?? 'min');
  file.ruleBlocks.push(...blocks.values());
  return file;
}

/** A rule block's rule (fuzzbox's canonical text) as its AST. */
export function ruleOf(text: string): IfRule {
  return parseRule(text) as IfRule;
}
