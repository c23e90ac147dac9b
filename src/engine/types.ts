// The vocabulary of the engine (the glossary in docs/ENGINE.md maps each word to the REST interface's and to
// fuzzylite's): a variable has sets (fuzzylite: terms), a rule has a strength (activation degree),
// an output set is reached to its inferred degree, implied (clipped by min, or scaled by product),
// combined by max (aggregated) and defuzzified by the exact area centroid.

/** 2 points = shoulder (slope), 3 = triangle, 4 = trapezoid; finite and non-decreasing. */
export type SetDefinition = readonly number[];

/** set name → set definition */
export type VariableDefinition = Readonly<Record<string, SetDefinition>>;

/**
 * The operators of an agent's rules; each one left out is the default: AND = min, OR = max,
 * implication = min (clipping). `product` AND is a·b, `probabilisticSum` OR is a + b − a·b, and
 * `product` implication scales each output set by its inferred degree instead of clipping it.
 */
export interface Operators {
  readonly and?: 'min' | 'product';
  readonly or?: 'max' | 'probabilisticSum';
  readonly implication?: 'min' | 'product';
}

/** What an agent is made of, as the REST interface sends it. */
export interface AgentDefinition {
  readonly inputs: Readonly<Record<string, VariableDefinition>>;
  readonly outputs: Readonly<Record<string, VariableDefinition>>;
  readonly rules: readonly string[];
  /** absent: min / max / min, what agents had before operators could be chosen */
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

/** `variable IS set`: the degree of one input set (a condition) or the set an output reaches (a conclusion). */
export interface SetReference {
  readonly variable: string;
  readonly set: string;
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
