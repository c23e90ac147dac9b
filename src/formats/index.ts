// fuzzbox/formats: model files in and out. FCL (IEC 61131-7, as jFuzzyLogic and fuzzylite write it),
// fuzzylite's FLL and MATLAB's FIS, for everything fuzzbox's agents express; what they cannot
// (Gaussian or bell terms, Sugeno outputs, hedges, other defuzzifiers…) is a FormatError naming it and its line.

import { readFcl, writeFcl } from './fcl.js';
import { readFis, writeFis } from './fis.js';
import { readFll, writeFll } from './fll.js';
import type { Model } from './model.js';
import { sourceLines, trimmed } from './scan.js';

export { readFcl, writeFcl, readFis, writeFis, readFll, writeFll };
export { FormatError, type Model } from './model.js';
export type {
  AgentDefinition,
  Aggregation,
  Defuzzification,
  Operators,
  OutputOperators,
  SetDefinition,
  SNorm,
  TermDefinition,
  TNorm,
  VariableDefinition,
} from '../engine/types.js';

export type ModelFormat = 'fcl' | 'fll' | 'fis';

/** Each format's media type, as the REST interface takes and gives it (docs/REST.md, "Model files"). */
export const MEDIA_TYPES: Readonly<Record<ModelFormat, string>> = { fcl: 'text/x-fcl', fll: 'text/x-fll', fis: 'text/x-fis' };

const readers: Record<ModelFormat, (text: string) => Model> = { fcl: readFcl, fll: readFll, fis: readFis };
const writers: Record<ModelFormat, (model: Model) => string> = { fcl: writeFcl, fll: writeFll, fis: writeFis };

/**
 * The format a text looks like, from its first statement: FLL opens with `Engine:`, FIS with
 * `[System]`, FCL with `FUNCTION_BLOCK` (comments before them skipped); undefined for anything else.
 * Only the first 4 KiB are looked at.
 */
export function modelFormatOfText(text: string): ModelFormat | undefined {
  const head = text.slice(0, 4096);
  for (const { text: line } of sourceLines(head)) {
    const content = trimmed(line);
    if (
      content === '' ||
      content.startsWith('#') ||
      content.startsWith('%') ||
      content.startsWith('//') ||
      content.startsWith('(*') ||
      content.startsWith('/*')
    )
      continue;
    if (content.startsWith('Engine:')) return 'fll';
    if (content.startsWith('[System]')) return 'fis';
    if (content.toUpperCase().startsWith('FUNCTION_BLOCK')) return 'fcl';
    return undefined;
  }
  return undefined;
}

export function readModel(format: ModelFormat, text: string): Model {
  return readers[format](text);
}

export function writeModel(format: ModelFormat, model: Model): string {
  return writers[format](model);
}
