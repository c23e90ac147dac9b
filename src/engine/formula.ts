// The formulas of `function` terms (fuzzylite's Function term; docs/ENGINE.md, "Function terms"): a
// small arithmetic language read by its own tokenizer and precedence-climbing parser into postfix
// steps, so that nothing is ever evaluated as code (no eval, no new Function) and an evaluation is
// one pass over at most MAX_FORMULA_NODES steps. The operators and functions are fuzzylite 7's
// (FunctionFactory), each computed as fuzzylite computes it (Operation.h), comparisons with its
// tolerance of 1e-6.

import { MAX_FORMULA_DEPTH, MAX_FORMULA_LENGTH, MAX_FORMULA_NODES } from './limits.js';

/** A formula that cannot be read; `column` is 1-based. */
export class FormulaError extends Error {
  override readonly name = 'FormulaError';
  readonly column: number;

  constructor(column: number, message: string) {
    super(`column ${column}: ${message}`);
    this.column = column;
  }
}

/** fuzzylite's macheps: two numbers this close are equal to its comparisons and logic. */
const TOLERANCE = 1e-6;
const isEq = (a: number, b: number) => a === b || Math.abs(a - b) < TOLERANCE || (a !== a && b !== b);
const isLt = (a: number, b: number) => !isEq(a, b) && a < b;
const isGt = (a: number, b: number) => !isEq(a, b) && a > b;
const truth = (value: boolean) => (value ? 1 : 0);
/** fuzzylite's Op::min and Op::max: NaN when either is. */
const nanMin = (a: number, b: number) => (a !== a || b !== b ? NaN : Math.min(a, b));
const nanMax = (a: number, b: number) => (a !== a || b !== b ? NaN : Math.max(a, b));
/** C's pow: 1 to any power is 1, and so is −1 to ±∞ (JavaScript's is NaN for both). */
const pow = (a: number, b: number) => (a === 1 || (a === -1 && (b === Infinity || b === -Infinity)) ? 1 : a ** b);

/** fuzzylite's functions (FunctionFactory::registerFunctions, with the four it has on Unix), by name. */
const FUNCTIONS: Readonly<Record<string, ((a: number) => number) | ((a: number, b: number) => number)>> = {
  abs: Math.abs,
  acos: Math.acos,
  acosh: Math.acosh,
  asin: Math.asin,
  asinh: Math.asinh,
  atan: Math.atan,
  atan2: Math.atan2,
  atanh: Math.atanh,
  ceil: Math.ceil,
  cos: Math.cos,
  cosh: Math.cosh,
  eq: (a: number, b: number) => truth(isEq(a, b)),
  exp: Math.exp,
  fabs: Math.abs,
  floor: Math.floor,
  fmod: (a: number, b: number) => a % b,
  ge: (a: number, b: number) => truth(!isLt(a, b)),
  gt: (a: number, b: number) => truth(isGt(a, b)),
  le: (a: number, b: number) => truth(!isGt(a, b)),
  log: Math.log,
  log10: Math.log10,
  log1p: Math.log1p,
  lt: (a: number, b: number) => truth(isLt(a, b)),
  max: nanMax,
  min: nanMin,
  neq: (a: number, b: number) => truth(!isEq(a, b)),
  pow,
  round: (a: number) => (a > 0 ? Math.floor(a + 0.5) : Math.ceil(a - 0.5)),
  sin: Math.sin,
  sinh: Math.sinh,
  sqrt: Math.sqrt,
  tan: Math.tan,
  tanh: Math.tanh,
};

/** The names a formula reads besides its variables: `x` (the term's argument) and two constants. */
export const ARGUMENT = 'x';
const CONSTANTS: Readonly<Record<string, number>> = { nan: NaN, inf: Infinity };

/**
 * Binary operators: fuzzylite's precedences (`^` binds tightest and to the right; `and` and `or`
 * are its logic: 1 when both (either) are 1 within 1e-6, else 0).
 */
const BINARY: Readonly<Record<string, { precedence: number; right: boolean; apply: (a: number, b: number) => number }>> = {
  '^': { precedence: 90, right: true, apply: pow },
  '*': { precedence: 80, right: false, apply: (a, b) => a * b },
  '/': { precedence: 80, right: false, apply: (a, b) => a / b },
  '%': { precedence: 80, right: false, apply: (a, b) => a % b },
  '+': { precedence: 70, right: false, apply: (a, b) => a + b },
  '-': { precedence: 70, right: false, apply: (a, b) => a - b },
  and: { precedence: 60, right: false, apply: (a, b) => truth(isEq(a, 1) && isEq(b, 1)) },
  or: { precedence: 50, right: false, apply: (a, b) => truth(isEq(a, 1) || isEq(b, 1)) },
};

/** Unary operators: fuzzylite's `!` (1 unless the operand is 1) and `~` bind tightest; `-` and `+` below `^`, as in mathematics (−x^2 = −(x^2)). */
const negate = (a: number) => -a;
const UNARY: Readonly<Record<string, { precedence: number; apply: (a: number) => number }>> = {
  '!': { precedence: 100, apply: (a) => truth(!isEq(a, 1)) },
  '~': { precedence: 100, apply: negate },
  '-': { precedence: 90, apply: negate },
  '+': { precedence: 90, apply: (a) => a },
};

/** What a formula's names refer to: a variable's place among the inputs or the outputs, or undefined for none. */
export interface FormulaNames {
  input(name: string): number | undefined;
  output(name: string): number | undefined;
}

/** The names of an agent's inputs and outputs, by their order in the agent. */
export function formulaNames(inputs: readonly string[], outputs: readonly string[]): FormulaNames {
  const place = (names: readonly string[], name: string) => {
    const index = names.indexOf(name);
    return index < 0 ? undefined : index;
  };
  return { input: (name) => place(inputs, name), output: (name) => place(outputs, name) };
}

export const CONSTANT = 0;
export const ARGUMENT_VALUE = 1;
export const INPUT_VALUE = 2;
export const OUTPUT_VALUE = 3;
export const UNARY_STEP = 4;
export const BINARY_STEP = 5;

/** A formula as postfix steps: constants and variables pushed, operators and functions applied to the top of the stack. */
export interface Formula {
  readonly text: string;
  readonly kinds: Int32Array;
  /** per step: a constant's value, or an input's or output's index */
  readonly values: Float64Array;
  readonly unary: ReadonlyArray<((a: number) => number) | undefined>;
  readonly binary: ReadonlyArray<((a: number, b: number) => number) | undefined>;
  /** the outputs it reads, by index */
  readonly outputs: readonly number[];
}

type Token = { kind: 'number'; value: number; column: number } | { kind: 'name' | 'symbol' | 'end'; text: string; column: number };

const DIGIT = /[0-9]/;
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_.]/;

/** The tokens of a formula, in one pass. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const column = i + 1;
    if (ch === ' ' || ch === '\t') {
      i++;
    } else if (DIGIT.test(ch) || (ch === '.' && DIGIT.test(text[i + 1] ?? ''))) {
      const start = i;
      while (i < text.length && DIGIT.test(text[i]!)) i++;
      if (text[i] === '.') for (i++; i < text.length && DIGIT.test(text[i]!); ) i++;
      if ((text[i] === 'e' || text[i] === 'E') && (DIGIT.test(text[i + 1] ?? '') || (/[+-]/.test(text[i + 1] ?? '') && DIGIT.test(text[i + 2] ?? '')))) {
        for (i += 2; i < text.length && DIGIT.test(text[i]!); ) i++;
      }
      tokens.push({ kind: 'number', value: Number(text.slice(start, i)), column });
    } else if (NAME_START.test(ch)) {
      const start = i;
      while (i < text.length && NAME_PART.test(text[i]!)) i++;
      tokens.push({ kind: 'name', text: text.slice(start, i), column });
    } else if ('+-*/%^!~(),'.includes(ch)) {
      tokens.push({ kind: 'symbol', text: ch, column });
      i++;
    } else {
      throw new FormulaError(column, `unexpected ${JSON.stringify(ch)}: a formula holds numbers, names, + - * / % ^ ! ~, parentheses and commas`);
    }
  }
  tokens.push({ kind: 'end', text: '', column: text.length + 1 });
  return tokens;
}

const describe = (token: Token) => (token.kind === 'end' ? 'the end' : token.kind === 'number' ? `the number ${token.value}` : JSON.stringify(token.text));

/**
 * Reads a formula into postfix steps, resolving each name among the inputs and outputs (an output
 * read where an input of the same name exists, as fuzzylite's, and `x` over both); throws
 * FormulaError naming the column of the first problem.
 */
export function compileFormula(text: string, names: FormulaNames): Formula {
  if (text.length > MAX_FORMULA_LENGTH)
    throw new FormulaError(MAX_FORMULA_LENGTH + 1, `a formula has at most ${MAX_FORMULA_LENGTH} characters, got ${text.length}`);
  const tokens = tokenize(text);
  const kinds: number[] = [];
  const values: number[] = [];
  const unary: Array<((a: number) => number) | undefined> = [];
  const binary: Array<((a: number, b: number) => number) | undefined> = [];
  const outputs = new Set<number>();
  let at = 0;
  const step = (kind: number, value: number, one?: (a: number) => number, two?: (a: number, b: number) => number) => {
    if (kinds.length >= MAX_FORMULA_NODES)
      throw new FormulaError(tokens[at]!.column, `a formula has at most ${MAX_FORMULA_NODES} numbers, names and operations`);
    kinds.push(kind);
    values.push(value);
    unary.push(one);
    binary.push(two);
  };
  const expect = (symbol: string, what: string) => {
    const token = tokens[at]!;
    if (token.kind !== 'symbol' || token.text !== symbol) throw new FormulaError(token.column, `expected ${what}, got ${describe(token)}`);
    at++;
  };
  const deeper = (depth: number) => {
    if (depth > MAX_FORMULA_DEPTH) throw new FormulaError(tokens[at]!.column, `a formula nests at most ${MAX_FORMULA_DEPTH} levels deep`);
    return depth + 1;
  };

  const primary = (depth: number): void => {
    const token = tokens[at]!;
    if (token.kind === 'number') {
      at++;
      step(CONSTANT, token.value);
      return;
    }
    if (token.kind === 'symbol' && Object.hasOwn(UNARY, token.text)) {
      at++;
      const operator = UNARY[token.text]!;
      // `!` and `~` take the next operand alone; `-` and `+` take a power with it
      if (operator.precedence > BINARY['^']!.precedence) primary(deeper(depth));
      else expression(operator.precedence, deeper(depth));
      step(UNARY_STEP, 0, operator.apply);
      return;
    }
    if (token.kind === 'symbol' && token.text === '(') {
      at++;
      expression(0, deeper(depth));
      expect(')', '")"');
      return;
    }
    if (token.kind !== 'name') throw new FormulaError(token.column, `expected a number, a name or "(", got ${describe(token)}`);
    at++;
    const name = token.text;
    const call = tokens[at]!.kind === 'symbol' && (tokens[at] as { text: string }).text === '(';
    if (Object.hasOwn(FUNCTIONS, name)) {
      const apply = FUNCTIONS[name]!;
      if (!call) throw new FormulaError(token.column, `${name} is a function: write ${name}(…)`);
      at++;
      expression(0, deeper(depth));
      for (let given = 1; given < apply.length; given++) {
        expect(',', `"," and the ${apply.length} arguments of ${name}`);
        expression(0, deeper(depth));
      }
      expect(')', `")" after the ${apply.length === 1 ? 'argument' : `${apply.length} arguments`} of ${name}`);
      if (apply.length === 1) step(UNARY_STEP, 0, apply as (a: number) => number);
      else step(BINARY_STEP, 0, undefined, apply as (a: number, b: number) => number);
      return;
    }
    if (call) throw new FormulaError(token.column, `unknown function ${JSON.stringify(name)} (functions: ${Object.keys(FUNCTIONS).join(', ')})`);
    const output = names.output(name);
    const input = names.input(name);
    if (name === ARGUMENT) step(ARGUMENT_VALUE, 0);
    else if (Object.hasOwn(CONSTANTS, name)) step(CONSTANT, CONSTANTS[name]!);
    else if (output !== undefined) {
      outputs.add(output);
      step(OUTPUT_VALUE, output);
    } else if (input !== undefined) step(INPUT_VALUE, input);
    else throw new FormulaError(token.column, `unknown name ${JSON.stringify(name)}: a formula reads x, the agent's inputs and outputs, nan and inf`);
  };

  /** Precedence climbing: an operand, then every binary operator binding at least `lowest`, with its right operand. */
  const expression = (lowest: number, depth: number): void => {
    primary(depth);
    for (;;) {
      const token = tokens[at]!;
      const symbol = token.kind === 'symbol' || token.kind === 'name' ? token.text : '';
      const operator = Object.hasOwn(BINARY, symbol) ? BINARY[symbol]! : undefined;
      if (!operator || operator.precedence < lowest) return;
      at++;
      expression(operator.right ? operator.precedence : operator.precedence + 1, deeper(depth));
      step(BINARY_STEP, 0, undefined, operator.apply);
    }
  };

  if (tokens.length === 1) throw new FormulaError(1, 'a formula must not be empty');
  expression(0, 0);
  const rest = tokens[at]!;
  if (rest.kind !== 'end') throw new FormulaError(rest.column, `expected an operator or the end of the formula, got ${describe(rest)}`);
  return {
    text,
    kinds: Int32Array.from(kinds),
    values: Float64Array.from(values),
    unary,
    binary,
    outputs: [...outputs],
  };
}

/** The stack a formula evaluates on: its depth is at most its steps' count, and no evaluation runs inside another. */
const stack = new Float64Array(MAX_FORMULA_NODES);

/** The formula's value for argument x, these input values and output values (NaN where missing). */
export function evaluateFormula(formula: Formula, x: number, inputs: Float64Array, outputs: Float64Array): number {
  const { kinds, values, unary, binary } = formula;
  let top = 0;
  for (let k = 0; k < kinds.length; k++) {
    switch (kinds[k]) {
      case CONSTANT:
        stack[top++] = values[k]!;
        break;
      case ARGUMENT_VALUE:
        stack[top++] = x;
        break;
      case INPUT_VALUE:
        stack[top++] = inputs[values[k]!]!;
        break;
      case OUTPUT_VALUE:
        stack[top++] = outputs[values[k]!]!;
        break;
      case UNARY_STEP:
        stack[top - 1] = unary[k]!(stack[top - 1]!);
        break;
      default:
        top--;
        stack[top - 1] = binary[k]!(stack[top - 1]!, stack[top]!);
    }
  }
  return stack[0]!;
}
