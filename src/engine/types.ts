// The vocabulary of the engine (the glossary in docs/ENGINE.md maps each word to the REST interface's and to
// fuzzylite's): a variable has sets (fuzzylite: terms), a rule has a strength (activation degree),
// an output set is reached to its inferred degree, implied (clipped by min, or scaled by product),
// combined by max (aggregated) and defuzzified by the exact area centroid.

/** 2 points = shoulder (slope), 3 = triangle, 4 = trapezoid; finite and non-decreasing (fuzzy.ai's form). */
export type SetDefinition = readonly number[];

/**
 * A term named by its kind: fuzzylite 7's class names in lowerCamelCase, each parameter named as
 * fuzzylite's member. `height` (default 1, 0 < height ≤ 1) scales its degrees. `constant`,
 * `linear` and `function` (a formula: Takagi–Sugeno) are output terms only. docs/ENGINE.md, "Term kinds, universes, operators".
 */
export type TermDefinition =
  | { readonly type: 'triangle'; readonly vertexA: number; readonly vertexB: number; readonly vertexC: number; readonly height?: number }
  | {
      readonly type: 'trapezoid';
      readonly vertexA: number;
      readonly vertexB: number;
      readonly vertexC: number;
      readonly vertexD: number;
      readonly height?: number;
    }
  | { readonly type: 'ramp'; readonly start: number; readonly end: number; readonly height?: number }
  | { readonly type: 'rectangle'; readonly start: number; readonly end: number; readonly height?: number }
  | { readonly type: 'gaussian'; readonly mean: number; readonly standardDeviation: number; readonly height?: number }
  | {
      readonly type: 'gaussianProduct';
      readonly meanA: number;
      readonly standardDeviationA: number;
      readonly meanB: number;
      readonly standardDeviationB: number;
      readonly height?: number;
    }
  | { readonly type: 'bell'; readonly center: number; readonly width: number; readonly slope: number; readonly height?: number }
  | { readonly type: 'sigmoid'; readonly inflection: number; readonly slope: number; readonly height?: number }
  | {
      readonly type: 'sigmoidDifference' | 'sigmoidProduct';
      readonly left: number;
      readonly rising: number;
      readonly falling: number;
      readonly right: number;
      readonly height?: number;
    }
  | { readonly type: 'sShape' | 'zShape'; readonly start: number; readonly end: number; readonly height?: number }
  | {
      readonly type: 'piShape';
      readonly bottomLeft: number;
      readonly topLeft: number;
      readonly topRight: number;
      readonly bottomRight: number;
      readonly height?: number;
    }
  | { readonly type: 'cosine' | 'spike'; readonly center: number; readonly width: number; readonly height?: number }
  | { readonly type: 'concave'; readonly inflection: number; readonly end: number; readonly height?: number }
  | { readonly type: 'binary'; readonly start: number; readonly direction: number; readonly height?: number }
  | { readonly type: 'discrete'; readonly points: ReadonlyArray<readonly [number, number]>; readonly height?: number }
  | { readonly type: 'constant'; readonly value: number }
  | { readonly type: 'linear'; readonly coefficients: Readonly<Record<string, number>>; readonly constant?: number }
  | { readonly type: 'function'; readonly formula: string };

export type TermKind = TermDefinition['type'];

/** set name → its definition: fuzzy.ai's points, or a term named by its kind */
export type VariableDefinition = Readonly<Record<string, SetDefinition | TermDefinition>>;

/** Conjunctions (AND) and implications: fuzzylite's t-norms. */
export type TNorm = 'min' | 'product' | 'boundedDifference' | 'drasticProduct' | 'einsteinProduct' | 'hamacherProduct' | 'nilpotentMinimum';

/** Disjunctions (OR) and aggregations: fuzzylite's s-norms. */
export type SNorm = 'max' | 'probabilisticSum' | 'boundedSum' | 'normalizedSum' | 'drasticSum' | 'einsteinSum' | 'hamacherSum' | 'nilpotentMaximum';

/**
 * How an output's aggregated degrees become its crisp value. The first five integrate a Mamdani
 * output over its universe; `weightedAverage` and `weightedSum` weigh Takagi–Sugeno values
 * (constant, linear) and Tsukamoto values (monotonic terms: the x where the term reaches the degree).
 */
export type Defuzzification = 'centroid' | 'bisector' | 'meanOfMaximum' | 'smallestOfMaximum' | 'largestOfMaximum' | 'weightedAverage' | 'weightedSum';

/** `none`: every rule's activation counts on its own (weighted defuzzifications only). */
export type Aggregation = SNorm | 'none';

/** What one output may set for itself, over the agent's choice. */
export interface OutputOperators {
  readonly implication?: TNorm;
  readonly aggregation?: Aggregation;
  readonly defuzzification?: Defuzzification;
  /** the crisp value when no rule reaches the output; absent or null: the output is left out */
  readonly default?: number | null;
}

/**
 * How an agent infers; each part left out is the default, and an agent without `operators`
 * evaluates exactly as before they existed. AND = min, OR = max, implication = min (clipping),
 * aggregation = max (`none` for Takagi–Sugeno outputs), defuzzification = centroid
 * (`weightedAverage` for Takagi–Sugeno outputs), a rule fires when its activation is above 0.
 */
export interface Operators {
  readonly and?: TNorm;
  readonly or?: SNorm;
  readonly implication?: TNorm;
  readonly aggregation?: Aggregation;
  readonly defuzzification?: Defuzzification;
  /** a rule fires only when its activation degree is at least this (fuzzylite: 1e-6); absent: above 0 (MATLAB) */
  readonly activationThreshold?: number;
  /** variable name → its universe [min, max] (FIS Range, FLL range, FCL RANGE); absent: min..max of its sets' points */
  readonly ranges?: Readonly<Record<string, readonly [number, number]>>;
  /** output name → what it chooses for itself (fuzzylite mixes Mamdani and Takagi–Sugeno outputs in one engine) */
  readonly outputs?: Readonly<Record<string, OutputOperators>>;
}

/** What an agent is made of, as the REST interface sends it. */
export interface AgentDefinition {
  readonly inputs: Readonly<Record<string, VariableDefinition>>;
  readonly outputs: Readonly<Record<string, VariableDefinition>>;
  readonly rules: readonly string[];
  /** absent: min / max / min, max, centroid, what agents had before operators could be chosen */
  readonly operators?: Operators;
}

/** input name → crisp value. A missing input is allowed; rules needing it do not fire. */
export type Inputs = Readonly<Record<string, number>>;

/** output name → crisp value; an output no rule reached is left out. */
export type Outputs = Record<string, number>;

/** A polygon from left to right, `[[x, y], …]`, starting and ending on y = 0. */
export type Polygon = Array<[number, number]>;

/** Every step of an evaluation, as `?meta` and the log show it. */
export interface Trace {
  /** input name → set name → degree, for every set of every given input */
  fuzzified: Record<string, Record<string, number>>;
  /** the text of every rule whose strength was above 0, in rule order */
  rules: string[];
  /** output name → set name → max strength over the rules reaching it (only sets reached) */
  inferred: Record<string, Record<string, number>>;
  /** output name → set name → the set's shape implied at its inferred degree: cut there (min), or scaled by it (product) */
  clipped: Record<string, Record<string, Polygon>>;
  /** output name → upper envelope of its clipped polygons (aggregation by max) */
  combined: Record<string, Polygon>;
  /** output name → [x, y] area centroid of the combined polygon */
  centroid: Record<string, [number, number]>;
  /** output name → centroid x */
  crisp: Outputs;
}

export interface EvaluateOptions {
  readonly trace?: boolean;
}

/** One problem found while compiling an agent, e.g. `{path: "rules[2]", message: "…"}`. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** fuzzylite's hedges besides NOT (a node of its own) and `any` (written `x IS any`, where x has no set named "any"). */
export type Hedge = 'very' | 'somewhat' | 'seldom' | 'extremely';

/**
 * `variable IS [hedges] set`: the degree of one input set (a condition) or the set an output
 * reaches (a conclusion). `hedges`, outermost first, is absent when the rule names none.
 */
export interface SetReference {
  readonly variable: string;
  readonly set: string;
  readonly hedges?: readonly Hedge[];
}

/**
 * A rule's condition. `x IS NOT s` and `NOT x IS s` parse to the same `not` node; nested ANDs
 * (and nested ORs) are flattened, so every way of writing one condition has one AST.
 */
export type Condition =
  | ({ readonly type: 'is' } & SetReference)
  | { readonly type: 'not'; readonly operand: Condition }
  | { readonly type: 'and'; readonly operands: readonly Condition[] }
  | { readonly type: 'or'; readonly operands: readonly Condition[] };

/** `IF condition THEN conclusion, … [WITH weight]`; weight is 1 when the rule has no WITH. */
export interface IfRule {
  readonly type: 'if';
  readonly condition: Condition;
  readonly conclusions: readonly SetReference[];
  readonly weight: number;
}

/** `input INCREASES output` / `input DECREASES output` — expanded into IF rules by compileAgent. */
export interface TrendRule {
  readonly type: 'increases' | 'decreases';
  readonly input: string;
  readonly output: string;
  readonly weight: number;
}

/** The parsed form of one rule string: plain JSON data (stored as a version's `parsed_rules`). */
export type RuleAst = IfRule | TrendRule;

/** A variable as the compiled agent describes it: its range (min..max over all points) and its set names. */
export interface VariableSummary {
  readonly range: readonly [number, number];
  readonly sets: readonly string[];
}

/** One expanded rule with its strength for given inputs (0 when it does not fire). */
export interface Activation {
  rule: string;
  strength: number;
}
