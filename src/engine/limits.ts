// The size limits compileAgent enforces (docs/ENGINE.md, "Limits"). They are far above what real
// agents use, and they bound the work of one evaluation: the envelope of an interval where n sets
// overlap costs O(n³), every rule is walked once, and the parser and the code walking conditions
// recurse once per nesting level.

/** Variables per side: inputs, and outputs. */
export const MAX_VARIABLES = 100;
/** Sets per variable. */
export const MAX_SETS = 100;
/**
 * Sets of all outputs together: where n output sets overlap, integrating the envelope costs about
 * n³ per output, so this bounds an evaluation at about half a second (10 outputs × 100 overlapping sets).
 */
export const MAX_OUTPUT_SETS = 1000;
/** Rules, counting an INCREASES/DECREASES rule as the one rule per set of its input it stands for. */
export const MAX_RULES = 1000;
/** Conclusions of one rule. */
export const MAX_CONCLUSIONS = 100;
/** Characters of one rule's text. */
export const MAX_RULE_LENGTH = 2000;
/** How deep NOTs and parentheses may nest in one condition (each NOT and each "(" is one level). */
export const MAX_NESTING = 64;
/** Characters of one `function` term's formula. */
export const MAX_FORMULA_LENGTH = 1000;
/** Numbers, names and operations of one formula: each evaluation of it is that many steps. */
export const MAX_FORMULA_NODES = 256;
/** How deep parentheses, function calls and unary operators may nest in one formula. */
export const MAX_FORMULA_DEPTH = 32;
