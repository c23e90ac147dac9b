import { z } from 'zod';
import { errorStatus, type ErrorName } from './error-names.js';

export { errorStatus, type ErrorName } from './error-names.js';

/** Where a message sends its reader for more (the package holds no docs/): `docsURL('REST.md#a-full-disk')`. */
export const docsURL = (page: string) => `https://github.com/fuzzbox/fuzzbox/blob/main/docs/${page}`;

/** One invalid field, e.g. `{path: "inputs.temperature.hot", message: "…"}`. */
export interface Issue {
  path: string;
  message: string;
}

/** No error body exceeds this (docs/REST.md, "Errors"); the parts below are sized so that it holds by construction. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A message is cut to this many characters; JSON writes a character in at most 6 bytes (`\u001f`). */
const MAX_MESSAGE_CHARS = 2000;
const MAX_ISSUE_PATH_CHARS = 256;
const MAX_ISSUE_MESSAGE_CHARS = 1024;
/** What the issues of one body may take, as JSON; 48 KiB + 6 × 2000 bytes of message + the rest < 64 KiB. */
const ISSUES_BUDGET_BYTES = 48 * 1024;

/** `text`, cut to `max` characters with an ellipsis, never in the middle of a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/**
 * A path cut in the middle when long: its start says where, its end names the field, e.g.
 * `[0][0][0]…[0][0].__proto__` for a key 100,000 arrays deep.
 */
export function clipPath(path: string, max = MAX_ISSUE_PATH_CHARS): string {
  if (path.length <= max) return path;
  const head = clip(path, Math.floor(max / 3)).slice(0, -1);
  let tail = path.slice(path.length - (max - head.length - 1));
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}…${tail}`;
}

const utf8 = new TextEncoder();

/**
 * The issues of one error body, bounded: each path and message clipped, and once their JSON
 * reaches the budget further issues are only counted, so a request naming 4096 unknown inputs
 * costs a counter, not 4096 messages. `toArray()` ends with an "and N more" entry when any were cut.
 */
export class IssueList {
  readonly #issues: Issue[] = [];
  #bytes = 0;
  #omitted = 0;

  static from(issues: Iterable<Issue>): IssueList {
    const list = new IssueList();
    for (const issue of issues) list.add(() => issue);
    return list;
  }

  /** Every issue added so far, kept or not. */
  get count(): number {
    return this.#issues.length + this.#omitted;
  }

  /** Adds the issue `make` builds; once the list is full `make` is not called at all. */
  add(make: () => Issue): void {
    if (this.#omitted > 0) {
      this.#omitted++;
      return;
    }
    const { path, message } = make();
    const issue = { path: clipPath(path), message: clip(message, MAX_ISSUE_MESSAGE_CHARS) };
    const bytes = utf8.encode(JSON.stringify(issue)).byteLength + 1;
    if (this.#bytes + bytes > ISSUES_BUDGET_BYTES) {
      this.#omitted++;
      return;
    }
    this.#bytes += bytes;
    this.#issues.push(issue);
  }

  toArray(): Issue[] {
    if (this.#omitted === 0) return [...this.#issues];
    const more = `and ${this.#omitted} more issue${this.#omitted === 1 ? '' : 's'}, not listed to keep this answer small; fix these and retry to see them`;
    return [...this.#issues, { path: '', message: more }];
  }
}

export class ApiError extends Error {
  override readonly name: ErrorName;
  readonly status: number;
  /** at most ~48 KiB of them (see IssueList), so an error body stays under 64 KiB */
  readonly issues: Issue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(name: ErrorName, message: string, extra: { issues?: Iterable<Issue> | IssueList; headers?: Record<string, string> } = {}) {
    super(clip(message, MAX_MESSAGE_CHARS));
    this.name = name;
    this.status = errorStatus[name];
    const issues = extra.issues;
    this.issues = issues === undefined ? undefined : (issues instanceof IssueList ? issues : IssueList.from(issues)).toArray();
    this.headers = extra.headers ?? {};
  }
}

export const errorBodySchema = z.object({
  status: z.literal('error'),
  error: z.enum(Object.keys(errorStatus) as [ErrorName, ...ErrorName[]]),
  message: z.string().min(1),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The error of a `z.record`: for a key that fails its own schema (an empty or too long name), that
 * schema's message, not `message`, which says what the whole record should be.
 */
export function recordError(message: string) {
  return (issue: z.core.$ZodRawIssue): string =>
    issue.code === 'invalid_key' ? ((issue.issues as Array<{ message: string }> | undefined)?.[0]?.message ?? message) : message;
}

/** Zod's issue path `["inputs", "very low", 1]` as `inputs.very low[1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** A 400 from a failed zod parse, listing every issue by path. */
export function validationError(error: z.ZodError, what: string): ApiError {
  const issues = new IssueList();
  for (const issue of error.issues) issues.add(() => ({ path: formatPath(issue.path), message: issue.message }));
  return invalid(what, issues);
}

/** A ValidationError whose message names the first issue and how many more there are. */
export function invalid(what: string, issues: IssueList): ApiError {
  const listed = issues.toArray();
  const first = listed[0];
  const where = first && first.path ? `${clipPath(first.path, 200)}: ` : '';
  const others = issues.count - 1;
  const more = others > 0 ? ` (and ${others} more issue${others > 1 ? 's' : ''})` : '';
  return new ApiError('ValidationError', `invalid ${what}: ${where}${first?.message ?? 'invalid'}${more}`, { issues });
}
