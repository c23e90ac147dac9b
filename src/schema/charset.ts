// The charsets a body may name: UTF-8 under any of its labels, or none.

/** Every label the WHATWG Encoding Standard gives UTF-8; the 2015 Node client of fuzzy.ai sends `utf8`. */
const UTF8_LABELS = new Set(['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8']);

/** The `charset=` a Content-Type's parameters (lower-cased, trimmed) name, when it is not UTF-8; undefined when UTF-8 or none. */
export function otherCharset(parameters: readonly string[]): string | undefined {
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length);
  return charset !== undefined && !UTF8_LABELS.has(charset.replace(/^"(.*)"$/, '$1').trim()) ? charset : undefined;
}
