// The engine's size limits, applied while a file is read: a reader stops at the first variable,
// term or rule past a limit, naming its line, so that no later step ever works on more than an
// agent can hold (12,000 terms once made a later step take quadratic time before any limit was met).

import { MAX_RULE_LENGTH, MAX_RULES, MAX_SETS, MAX_VARIABLES } from '../engine/limits.js';
import { FormatError, type FileRuleBlock, type FileTerm, type FileVariable } from './model-file.js';

export function addVariable(list: FileVariable[], variable: FileVariable, line: number): void {
  if (list.length >= MAX_VARIABLES)
    throw new FormatError(
      line,
      'variable limit',
      `more than ${MAX_VARIABLES} variables of one kind; an agent holds at most ${MAX_VARIABLES} inputs and ${MAX_VARIABLES} outputs`,
    );
  list.push(variable);
}

/**
 * fuzzylite lets two terms of a variable share a name (MATLAB's ANFIS output names every linear term
 * alike; its rules pick them by index, fuzzylite's text rules the first): a later one is renamed
 * `name_2`, `name_3`…, so that every term stays reachable and a rule by name still means the first.
 */
export function addTerm(variable: FileVariable, term: FileTerm, line: number): void {
  if (variable.terms.length >= MAX_SETS)
    throw new FormatError(line, 'term limit', `"${variable.name}" has more than ${MAX_SETS} terms; a variable holds at most ${MAX_SETS}`);
  const taken = (name: string) => variable.terms.some((other) => other.name === name);
  let name = term.name;
  for (let copy = 2; taken(name); copy++) name = `${term.name}_${copy}`;
  variable.terms.push(name === term.name ? term : { ...term, name });
}

/** `counted`: the rules of all the file's blocks before this one. */
export function addRule(block: FileRuleBlock, text: string, line: number, counted: number): void {
  if (counted >= MAX_RULES) throw new FormatError(line, 'rule limit', `more than ${MAX_RULES} rules; an agent holds at most ${MAX_RULES}`);
  if (text.length > MAX_RULE_LENGTH) throw new FormatError(line, 'rule length', `a rule of ${text.length} characters; a rule holds at most ${MAX_RULE_LENGTH}`);
  block.rules.push({ text, line });
}
