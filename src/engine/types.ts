// The vocabulary of the engine, named as fuzzylite names it: a variable has terms (here "sets"),
// a rule has an activation degree ("strength"), output sets are clipped (implication = min),
// aggregated by max into the combined polygon, and defuzzified by the exact area centroid.

/** 2 points = shoulder (slope), 3 = triangle, 4 = trapezoid; finite and non-decreasing. */
export type SetDefinition = readonly number[];

/** set name → set definition */
export type VariableDefinition = Readonly<Record<string, SetDefinition>>;

/** What an agent is made of, as the REST interface sends it. */
export interface AgentDefinition {
  readonly inputs: Readonly<Record<string, VariableDefinition>>;
  readonly outputs: Readonly<Record<string, VariableDefinition>>;
  readonly rules: readonly string[];
}

/** input name → crisp value. A missing input is allowed; rules needing it do not fire. */
export type Inputs = Readonly<Record<string, number>>;

/** output name → crisp value; an output no rule reached is left out. */
export type Outputs = Record<string, number>;

/** A polygon from left to right, `[[x, y], …]`, starting and ending on y = 0. */
export type Polygon = Array<[number, number]>;

/** Everything SPEC section 4 names, step by step. */
export interface Trace {
  /** input name → set name → degree, for every set of every given input */
  fuzzified: Record<string, Record<string, number>>;
  /** the text of every rule whose strength was above 0, in rule order */
  rules: string[];
  /** output name → set name → max strength over the rules reaching it (only sets reached) */
  inferred: Record<string, Record<string, number>>;
  /** output name → set name → the set's shape cut at its inferred degree */
  clipped: Record<string, Record<string, Polygon>>;
  /** output name → upper envelope of its clipped polygons */
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
