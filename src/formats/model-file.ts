// What a model file says, before fuzzbox decides what it can hold: the readers of FLL, FIS and FCL
// all produce this one form, in fuzzylite's vocabulary (its class names in lowerCamelCase), so
// that turning a file into an agent, and refusing what an agent cannot hold, is written once.

/** A model file fuzzbox cannot read (or an agent it cannot write in a format): `line` is 1-based, 0 for the whole file. */
export class FormatError extends Error {
  override readonly name = 'FormatError';
  readonly line: number;
  readonly construct: string;

  constructor(line: number, construct: string, message: string) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.line = line;
    this.construct = construct;
  }
}

/** fuzzylite's term classes, lowerCamelCase, with how many parameters each takes (a height may follow). */
export const TERM_PARAMETERS = {
  triangle: 3,
  trapezoid: 4,
  ramp: 2,
  rectangle: 2,
  gaussian: 2,
  gaussianProduct: 4,
  bell: 3,
  sigmoid: 2,
  sigmoidDifference: 4,
  sigmoidProduct: 4,
  sShape: 2,
  zShape: 2,
  piShape: 4,
  cosine: 2,
  spike: 2,
  concave: 2,
  binary: 2,
  constant: 1,
  /** x y pairs */
  discrete: -2,
  /** one coefficient per input, then a constant */
  linear: -1,
  /** an expression */
  function: 0,
} as const;

export type TermKind = keyof typeof TERM_PARAMETERS;

export interface FileTerm {
  readonly name: string;
  readonly line: number;
  readonly kind: TermKind;
  /** in fuzzylite's order (FIS's own orders are translated by its reader) */
  readonly parameters: readonly number[];
  /** fuzzylite's optional height; 1 when the file gives none */
  readonly height: number;
  /** a `function` term's expression text */
  readonly expression?: string;
}

/** fuzzylite's defuzzifier classes, lowerCamelCase. */
export type DefuzzifierKind = 'centroid' | 'bisector' | 'meanOfMaximum' | 'smallestOfMaximum' | 'largestOfMaximum' | 'weightedAverage' | 'weightedSum';

export interface FileVariable {
  name: string;
  readonly line: number;
  /** the declared range (FLL `range`, FIS `Range`, FCL `RANGE`), when the file gives one */
  range?: readonly [number, number];
  enabled: boolean;
  readonly terms: FileTerm[];
  /** outputs: the aggregation s-norm, `null` for `none`; undefined when the file names none */
  aggregation?: { readonly name: string | null; readonly line: number };
  /** outputs: how the aggregated set becomes a number; `resolution` is fuzzylite's sampling count */
  defuzzifier?: { readonly name: DefuzzifierKind; readonly resolution?: number; readonly line: number };
  /** outputs: the value when no rule fires (NaN: none) */
  defaultValue?: number;
  lockPrevious?: { readonly value: boolean; readonly line: number };
  lockRange?: boolean;
}

/** fuzzylite's norms by role; `null` is `none`. */
export interface FileRuleBlock {
  readonly name: string;
  readonly line: number;
  enabled: boolean;
  conjunction?: { readonly name: string | null; readonly line: number };
  disjunction?: { readonly name: string | null; readonly line: number };
  implication?: { readonly name: string | null; readonly line: number };
  activation?: { readonly name: string; readonly line: number };
  /** rule text in fuzzylite's syntax (`if a is very x and b is not y then c is z with 0.5`) */
  readonly rules: Array<{ readonly text: string; readonly line: number }>;
}

export interface ModelFile {
  name: string;
  readonly inputs: FileVariable[];
  readonly outputs: FileVariable[];
  readonly ruleBlocks: FileRuleBlock[];
}

/** An output whose terms are all Takagi–Sugeno values (constant, linear, function): weighted, not integrated. */
export function isTakagiSugeno(variable: FileVariable): boolean {
  return variable.terms.length > 0 && variable.terms.every((term) => term.kind === 'constant' || term.kind === 'linear' || term.kind === 'function');
}

/** fuzzylite's class name of a kind, norm or defuzzifier (lowerCamelCase here): `sShape` → `SShape`. */
export function className(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A table of names the other way round; the first key wins where two name one value; `null` values are left out. */
export function inverse(table: Readonly<Record<string, string | null>>): Readonly<Record<string, string>> {
  const inverted: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) if (value !== null && !Object.hasOwn(inverted, value)) inverted[value] = key;
  return inverted;
}

export function newVariable(name: string, line: number): FileVariable {
  return { name, line, enabled: true, terms: [] };
}

export function newRuleBlock(name: string, line: number): FileRuleBlock {
  return { name, line, enabled: true, rules: [] };
}

/** Numbers in one term (a Discrete term's points, a Linear term's coefficients): far above what real models use. */
export const MAX_TERM_NUMBERS = 2000;

/** fuzzylite's class names (FLL, fuzzylite's FCL) and jFuzzyLogic's FCL keywords, as term kinds. */
const CLASS_NAMES: Readonly<Record<string, TermKind>> = {
  Triangle: 'triangle',
  Trapezoid: 'trapezoid',
  Ramp: 'ramp',
  Rectangle: 'rectangle',
  Gaussian: 'gaussian',
  GaussianProduct: 'gaussianProduct',
  Bell: 'bell',
  Sigmoid: 'sigmoid',
  SigmoidDifference: 'sigmoidDifference',
  SigmoidProduct: 'sigmoidProduct',
  SShape: 'sShape',
  ZShape: 'zShape',
  PiShape: 'piShape',
  Cosine: 'cosine',
  Spike: 'spike',
  Concave: 'concave',
  Binary: 'binary',
  Constant: 'constant',
  Discrete: 'discrete',
  Linear: 'linear',
  Function: 'function',
  TRIAN: 'triangle',
  TRAPE: 'trapezoid',
  GAUSS: 'gaussian',
};

/** The term kind a class name or keyword names, if any. */
export function termKindOf(word: string): TermKind | undefined {
  return Object.hasOwn(CLASS_NAMES, word) ? CLASS_NAMES[word] : undefined;
}

/** A number as the formats write it (`nan`, `inf` and `-inf` as fuzzylite writes them too); NaN for anything else. */
export function number(text: string | undefined): number {
  if (text === undefined || text.length > 400) return NaN;
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  // a sign, digits with at most one point, an exponent: each digit run can be matched one way only, so no backtracking
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return NaN;
  return Number(text);
}

/** Finite numbers, or a FormatError naming the first word that is none. */
export function numbers(texts: readonly string[], line: number, what: string): number[] {
  return texts.map((text) => {
    const value = number(text);
    if (!Number.isFinite(value)) throw new FormatError(line, what, `expected a number in ${what}, got ${JSON.stringify(text.slice(0, 40))}`);
    return value;
  });
}

/**
 * A term from its kind and parameter words in fuzzylite's order; a trailing extra number is
 * fuzzylite's height. Counts are checked here, so that every format reports them alike.
 */
export function fileTerm(name: string, kind: TermKind, parameterWords: readonly string[], line: number): FileTerm {
  const expected: number = TERM_PARAMETERS[kind];
  const values = numbers(parameterWords, line, `term "${name}"`);
  if (values.length > MAX_TERM_NUMBERS)
    throw new FormatError(line, 'term size', `term "${name}" has ${values.length} numbers; a term holds at most ${MAX_TERM_NUMBERS}`);
  if (kind === 'discrete') {
    const height = values.length % 2 === 1 ? values.pop()! : 1;
    if (values.length < 4)
      throw new FormatError(line, 'Discrete', `a Discrete term takes at least two x y pairs, got ${values.length} numbers in term "${name}"`);
    return { name, line, kind, parameters: values, height };
  }
  if (kind === 'linear') return { name, line, kind, parameters: values, height: 1 };
  if (values.length !== expected && values.length !== expected + 1) {
    throw new FormatError(
      line,
      kind,
      `a ${kind} term takes ${expected} numbers${kind === 'constant' ? '' : ' (and an optional height)'}, got ${values.length} in term "${name}"`,
    );
  }
  return { name, line, kind, parameters: values.slice(0, expected), height: values[expected] ?? 1 };
}
