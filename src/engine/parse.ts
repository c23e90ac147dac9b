// The rule language (docs/ENGINE.md, "Rule grammar"), read by a small recursive-descent parser, and its printer.
// Keywords are case-insensitive; an unquoted name is one word; a name with spaces, punctuation or a
// keyword in it is written in double quotes (with \" and \\ as escapes).

import { RuleSyntaxError } from './errors.js';
import { MAX_NESTING } from './limits.js';
import { MAX_HEDGES } from './norms.js';
import type { Condition, Hedge, IfRule, RuleAst, SetReference } from './types.js';

const KEYWORDS = new Set(['IF', 'THEN', 'IS', 'NOT', 'AND', 'OR', 'WITH', 'INCREASES', 'DECREASES']);
const PLAIN_NAME = /^[^\s(),"\\]+$/;
const HEDGES: ReadonlySet<string> = new Set<Hedge>(['very', 'somewhat', 'seldom', 'extremely']);
const WEIGHT = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

type TokenKind = 'keyword' | 'name' | '(' | ')' | ',' | 'end';

interface Token {
  kind: TokenKind;
  /** the keyword in upper case, the name unquoted, or the punctuation itself */
  value: string;
  column: number;
}

function tokenize(rule: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < rule.length) {
    const ch = rule[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: ch, value: ch, column: i + 1 });
      i++;
    } else if (ch === '"') {
      const start = i;
      let name = '';
      i++;
      while (i < rule.length && rule[i] !== '"') {
        if (rule[i] === '\\' && i + 1 < rule.length) i++;
        name += rule[i];
        i++;
      }
      if (i >= rule.length) {
        throw new RuleSyntaxError(rule, start + 1, 'expected a closing " for the quoted name that starts here');
      }
      if (name === '') throw new RuleSyntaxError(rule, start + 1, 'expected a name between the quotes');
      tokens.push({ kind: 'name', value: name, column: start + 1 });
      i++;
    } else {
      const start = i;
      while (i < rule.length && !/[\s(),"]/.test(rule[i]!)) i++;
      const word = rule.slice(start, i);
      const upper = word.toUpperCase();
      if (KEYWORDS.has(upper)) tokens.push({ kind: 'keyword', value: upper, column: start + 1 });
      else tokens.push({ kind: 'name', value: word, column: start + 1 });
    }
  }
  tokens.push({ kind: 'end', value: '', column: rule.length + 1 });
  return tokens;
}

function describe(token: Token | undefined): string {
  if (!token) return 'at the start of the rule';
  if (token.kind === 'keyword') return `after ${token.value}`;
  return `after ${JSON.stringify(token.value)}`;
}

/** The columns of the names in a reference: [variable, set] for IS, [input, output] for a trend rule. */
export type NameColumns = Map<object, readonly [number, number]>;

class Parser {
  private position = 0;
  /** how many NOTs and "(" enclose the term being parsed: bounded, because the parser recurses once per level */
  private nesting = 0;
  /** where each reference's names were written, so that compileAgent can point at an unknown one */
  readonly columns: NameColumns = new Map();

  constructor(
    private readonly rule: string,
    private readonly tokens: Token[],
  ) {}

  parse(): RuleAst {
    const ast = this.isKeyword('IF') ? this.ifRule() : this.trendRule();
    if (this.current.kind !== 'end') this.fail('the end of the rule');
    return ast;
  }

  private get current(): Token {
    return this.tokens[this.position]!;
  }

  private fail(expectation: string): never {
    throw new RuleSyntaxError(this.rule, this.current.column, `expected ${expectation} ${describe(this.tokens[this.position - 1])}`);
  }

  private isKeyword(keyword: string): boolean {
    return this.current.kind === 'keyword' && this.current.value === keyword;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.isKeyword(keyword)) return false;
    this.position++;
    return true;
  }

  private expectKeyword(keyword: string): void {
    if (!this.acceptKeyword(keyword)) this.fail(keyword);
  }

  private name(what: string): string {
    if (this.current.kind !== 'name') this.fail(what);
    return this.tokens[this.position++]!.value;
  }

  /**
   * The hedges before a set name, outermost first: a word is a hedge only where another name follows
   * it, so a set named "very" keeps working; absent when there are none.
   */
  private hedges(): { hedges?: Hedge[] } {
    const hedges: Hedge[] = [];
    while (this.current.kind === 'name' && HEDGES.has(this.current.value.toLowerCase()) && this.tokens[this.position + 1]!.kind === 'name') {
      const word = this.current.value.toLowerCase();
      if (hedges.length === MAX_HEDGES) throw new RuleSyntaxError(this.rule, this.current.column, `at most ${MAX_HEDGES} hedges qualify one set`);
      hedges.push(word as Hedge);
      this.position++;
    }
    return hedges.length > 0 ? { hedges } : {};
  }

  private ifRule(): IfRule {
    this.position++;
    const condition = this.condition();
    this.expectKeyword('THEN');
    const conclusions = [this.conclusion()];
    while (this.current.kind === ',') {
      this.position++;
      conclusions.push(this.conclusion());
    }
    if (!this.isKeyword('WITH') && this.current.kind !== 'end') this.fail('",", WITH or the end of the rule');
    return { type: 'if', condition, conclusions, weight: this.weight() };
  }

  private trendRule(): RuleAst {
    const inputColumn = this.current.column;
    const input = this.name('IF or a variable name');
    const trend = this.current;
    if (!this.acceptKeyword('INCREASES') && !this.acceptKeyword('DECREASES')) this.fail('INCREASES or DECREASES');
    const outputColumn = this.current.column;
    const output = this.name('an output variable name');
    const type = trend.value === 'INCREASES' ? 'increases' : 'decreases';
    if (!this.isKeyword('WITH') && this.current.kind !== 'end') this.fail('WITH or the end of the rule');
    const rule: RuleAst = { type, input, output, weight: this.weight() };
    this.columns.set(rule, [inputColumn, outputColumn]);
    return rule;
  }

  private weight(): number {
    if (!this.acceptKeyword('WITH')) return 1;
    const token = this.current;
    if (token.kind !== 'name' || !WEIGHT.test(token.value)) this.fail('a weight (a number from 0 to 1)');
    const weight = Number(token.value);
    if (weight > 1) throw new RuleSyntaxError(this.rule, token.column, `expected a weight from 0 to 1, got ${token.value}`);
    this.position++;
    return weight;
  }

  /** A condition ends at THEN, or at the ")" matching `open` when it is inside parentheses. */
  private condition(open?: Token): Condition {
    const operands = [this.conjunction(open)];
    while (this.acceptKeyword('OR')) operands.push(this.conjunction(open));
    return operands.length === 1 ? operands[0]! : { type: 'or', operands: flatten('or', operands) };
  }

  private conjunction(open?: Token): Condition {
    const operands = [this.term()];
    while (this.acceptKeyword('AND')) operands.push(this.term());
    const closes = open ? this.current.kind === ')' : this.isKeyword('THEN');
    if (!closes && !this.isKeyword('OR')) {
      this.fail(open ? `AND, OR or ")" to close the "(" at column ${open.column}` : 'AND, OR or THEN');
    }
    return operands.length === 1 ? operands[0]! : { type: 'and', operands: flatten('and', operands) };
  }

  private term(): Condition {
    if (this.isKeyword('NOT') || this.current.kind === '(') {
      const opening = this.current;
      if (this.nesting === MAX_NESTING) {
        throw new RuleSyntaxError(this.rule, opening.column, `conditions nest deeper than ${MAX_NESTING} levels (NOT and "(" count one level each)`);
      }
      this.nesting++;
      this.position++;
      const condition: Condition = opening.kind === '(' ? this.condition(opening) : { type: 'not', operand: this.term() };
      if (opening.kind === '(') this.position++;
      this.nesting--;
      return condition;
    }
    const variableColumn = this.current.column;
    const variable = this.name('a variable name, NOT or "("');
    this.expectKeyword('IS');
    const negated = this.acceptKeyword('NOT');
    const hedges = this.hedges();
    const setColumn = this.current.column;
    const set = this.name(negated ? 'a set name' : 'a set name or NOT');
    const is: Condition = { type: 'is', variable, set, ...hedges };
    this.columns.set(is, [variableColumn, setColumn]);
    return negated ? { type: 'not', operand: is } : is;
  }

  private conclusion(): SetReference {
    const variableColumn = this.current.column;
    const variable = this.name('an output variable name');
    this.expectKeyword('IS');
    if (this.isKeyword('NOT')) this.fail('a set name (a conclusion cannot be negated)');
    const hedges = this.hedges();
    const setColumn = this.current.column;
    const conclusion = { variable, set: this.name('a set name'), ...hedges };
    this.columns.set(conclusion, [variableColumn, setColumn]);
    return conclusion;
  }
}

function flatten(type: 'and' | 'or', operands: Condition[]): Condition[] {
  return operands.flatMap((operand) => (operand.type === type ? operand.operands : [operand]));
}

/** Parses one rule string into its AST; throws RuleSyntaxError with the 1-based column of the fault. */
export function parseRule(text: string): RuleAst {
  return parseRuleWithColumns(text).ast;
}

/** parseRule, plus the column of every name in the AST's references (see NameColumns). */
export function parseRuleWithColumns(text: string): { ast: RuleAst; columns: NameColumns } {
  const parser = new Parser(text, tokenize(text));
  return { ast: parser.parse(), columns: parser.columns };
}

/** `variable IS [hedges] set`, or with NOT after IS. */
function printReference({ variable, set, hedges }: SetReference, negated = false): string {
  const words = [printName(variable), 'IS', ...(negated ? ['NOT'] : []), ...(hedges ?? []), printName(set)];
  return words.join(' ');
}

function printName(name: string): string {
  if (PLAIN_NAME.test(name) && !KEYWORDS.has(name.toUpperCase())) return name;
  return `"${name.replace(/["\\]/g, '\\$&')}"`;
}

type Parent = 'and' | 'or' | 'not' | undefined;

/**
 * A condition's canonical text, with parentheses only where precedence needs them (an OR inside AND
 * or NOT, an AND inside NOT). Built with an explicit stack, not recursion: printRule takes any AST,
 * however deep, without overflowing the call stack.
 */
function printCondition(root: Condition): string {
  const parts: string[] = [];
  // what is left to print, last first: text, or a condition inside its parent
  const pending: Array<string | { condition: Condition; parent: Parent }> = [{ condition: root, parent: undefined }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next === 'string') {
      parts.push(next);
      continue;
    }
    const { condition, parent } = next;
    const parenthesised = (condition.type === 'or' && parent !== 'or' && parent !== undefined) || (condition.type === 'and' && parent === 'not');
    if (parenthesised) pending.push(')');
    switch (condition.type) {
      case 'is':
        pending.push(printReference(condition));
        break;
      case 'not':
        if (condition.operand.type === 'is') {
          pending.push(printReference(condition.operand, true));
        } else {
          pending.push({ condition: condition.operand, parent: 'not' }, 'NOT ');
        }
        break;
      case 'and':
      case 'or': {
        const separator = condition.type === 'and' ? ' AND ' : ' OR ';
        for (let i = condition.operands.length - 1; i >= 0; i--) {
          pending.push({ condition: condition.operands[i]!, parent: condition.type });
          if (i > 0) pending.push(separator);
        }
        break;
      }
    }
    if (parenthesised) pending.push('(');
  }
  return parts.join('');
}

/** The canonical text of a rule: upper-case keywords, names quoted only when needed, WITH only when not 1. */
export function printRule(ast: RuleAst): string {
  const weight = ast.weight === 1 ? '' : ` WITH ${ast.weight}`;
  if (ast.type === 'if') {
    const conclusions = ast.conclusions.map((c) => printReference(c));
    return `IF ${printCondition(ast.condition)} THEN ${conclusions.join(', ')}${weight}`;
  }
  return `${printName(ast.input)} ${ast.type.toUpperCase()} ${printName(ast.output)}${weight}`;
}
