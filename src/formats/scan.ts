// The text primitives every model-file reader is built on. Each visits every character a bounded
// number of times and none backtracks: no regular expression runs over more than one token, so a
// reader's work grows with the bytes it is given (issue: a 172-byte FIS rule row once took hours in
// a backtracking regular expression, and unclosed comments or long lines took quadratic time).
// `readerWork` counts the characters these primitives visit, so a test can bound a reader's work
// relative to the size of its input without timing it.

import { FormatError } from './model-file.js';

/** Characters visited by the scanning primitives since the counter was last reset. */
export const readerWork = { steps: 0 };

export interface SourceLine {
  readonly text: string;
  /** 1-based */
  readonly line: number;
}

/** The lines of `text`, ended by CR LF, LF or a lone CR (old Mac files), in one pass. */
export function sourceLines(text: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 10 && code !== 13) continue;
    lines.push({ text: text.slice(start, i), line });
    line++;
    if (code === 13 && text.charCodeAt(i + 1) === 10) i++;
    start = i + 1;
  }
  lines.push({ text: text.slice(start), line });
  readerWork.steps += text.length;
  return lines;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 11 || code === 12 || code === 0xa0 || code === 0xfeff || code === 10 || code === 13;
}

/** `text` without leading and trailing blanks. */
export function trimmed(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  readerWork.steps += start + (text.length - end);
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The blank-separated words of `text`, in one pass. */
export function words(text: string): string[] {
  const found: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const blank = i === text.length || isSpace(text.charCodeAt(i));
    if (blank && start >= 0) {
      found.push(text.slice(start, i));
      start = -1;
    } else if (!blank && start < 0) start = i;
  }
  readerWork.steps += text.length;
  return found;
}

/** `text` split at every `separator` (one character), in one pass. */
export function splitAt(text: string, separator: string): string[] {
  readerWork.steps += text.length;
  return text.split(separator);
}

/** The position of the first `what` in `text` from `from`, or -1; `indexOf` scans once. */
export function find(text: string, what: string, from = 0): number {
  const at = text.indexOf(what, from);
  readerWork.steps += (at < 0 ? text.length : at + what.length) - from;
  return at;
}

/** Comment syntaxes of a format: block comments as [open, close] pairs, and line comments. */
export interface CommentSyntax {
  readonly blocks: ReadonlyArray<readonly [string, string]>;
  readonly lineStarts: readonly string[];
}

/**
 * `text` with its comments blanked out (line breaks kept, so every line keeps its number), in one
 * pass: a comment opener is looked for once per position, its closer once from there. A block
 * comment never closed is a FormatError at the line it opens on.
 */
export function withoutComments(text: string, syntax: CommentSyntax): string {
  const out: string[] = [];
  let line = 1;
  let copied = 0;
  let i = 0;
  const blank = (from: number, to: number) => {
    let kept = '';
    for (let k = from; k < to; k++) {
      const code = text.charCodeAt(k);
      if (code === 10 || code === 13) {
        kept += text[k];
        if (code === 10 || text.charCodeAt(k + 1) !== 10) line++;
      }
    }
    return kept;
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) {
      if (code === 10 || text.charCodeAt(i + 1) !== 10) line++;
      i++;
      continue;
    }
    const block = syntax.blocks.find(([open]) => text.startsWith(open, i));
    if (block) {
      const close = text.indexOf(block[1], i + block[0].length);
      if (close < 0) throw new FormatError(line, `comment ${block[0]}`, `the comment opened here with "${block[0]}" is never closed with "${block[1]}"`);
      out.push(text.slice(copied, i), blank(i, close + block[1].length));
      i = copied = close + block[1].length;
      continue;
    }
    if (syntax.lineStarts.some((start) => text.startsWith(start, i))) {
      let end = i;
      while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
      out.push(text.slice(copied, i));
      i = copied = end;
      continue;
    }
    i++;
  }
  out.push(text.slice(copied));
  readerWork.steps += text.length;
  return out.join('');
}

/** `text` after its first `count` words, trimmed: a `Function` term's expression, a rule's text. */
export function afterWords(text: string, count: number): string {
  let i = 0;
  for (let word = 0; word < count; word++) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
  }
  readerWork.steps += i;
  return trimmed(text.slice(i));
}
