// fuzzbox/formats: model files in and out. FCL (IEC 61131-7, as jFuzzyLogic and fuzzylite write it),
// fuzzylite's FLL and MATLAB's FIS, for everything fuzzbox's agents express; what they cannot
// (Gaussian or bell terms, Sugeno outputs, hedges, other defuzzifiers…) is a FormatError naming it and its line.

import { readFcl, writeFcl } from './fcl.js';
import { readFis, writeFis } from './fis.js';
import { readFll, writeFll } from './fll.js';
import type { Model } from './model.js';

export { readFcl, writeFcl, readFis, writeFis, readFll, writeFll };
export { FormatError, type Model } from './model.js';
export type { AgentDefinition, Operators, SetDefinition, VariableDefinition } from '../engine/types.js';

export type ModelFormat = 'fcl' | 'fll' | 'fis';

/** Each format's media type, as the REST interface takes and gives it (docs/REST.md, "Model files"). */
export const MEDIA_TYPES: Readonly<Record<ModelFormat, string>> = { fcl: 'text/x-fcl', fll: 'text/x-fll', fis: 'text/x-fis' };

const readers: Record<ModelFormat, (text: string) => Model> = { fcl: readFcl, fll: readFll, fis: readFis };
const writers: Record<ModelFormat, (model: Model) => string> = { fcl: writeFcl, fll: writeFll, fis: writeFis };

export function readModel(format: ModelFormat, text: string): Model {
  return readers[format](text);
}

export function writeModel(format: ModelFormat, model: Model): string {
  return writers[format](model);
}
