import { ApiError } from '../schema/errors.js';

/** One line of a newline-delimited body, numbered from 1 as an editor shows it. */
export interface Line {
  number: number;
  text: string;
}

/** The bytes `text` takes in UTF-8, counted without encoding it (a lone surrogate is written as 3 bytes, U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 4 bytes for 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * The lines of a streamed body, decoded as UTF-8 as they arrive: memory holds one chunk and one
 * line, however long the body. A line over `maxLineBytes` (no newline in sight) is refused
 * rather than buffered. `\r\n` ends a line as `\n` does; a last line without a newline counts.
 */
export async function* readLines(body: ReadableStream<Uint8Array> | null, maxLineBytes: number): AsyncGenerator<Line> {
  if (!body) return;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const reader = body.getReader();
  let pending = '';
  let number = 0;
  const tooLong = () => new ApiError('PayloadTooLarge', `line ${number + 1} is over ${maxLineBytes} bytes of UTF-8; a backup line holds one record`);
  const line = (text: string): Line => {
    // a unit is 1 to 3 bytes: only a line of more than a third of the limit in units needs counting
    if (text.length * 3 > maxLineBytes && utf8Length(text) > maxLineBytes) throw tooLong();
    return { number: ++number, text };
  };
  const decode = (bytes?: Uint8Array) => {
    try {
      return decoder.decode(bytes, { stream: bytes !== undefined });
    } catch {
      throw new ApiError('InvalidRequest', `line ${number + 1}: the body is not valid UTF-8; send UTF-8 encoded NDJSON`);
    }
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += decode(done ? undefined : value);
      let start = 0;
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
        yield line(pending.slice(start, end).replace(/\r$/, ''));
        start = end + 1;
      }
      pending = pending.slice(start);
      // UTF-16 units bound UTF-8 bytes from below: a line this long in units is over in bytes
      if (pending.length > maxLineBytes) throw tooLong();
      if (done) break;
    }
    if (pending !== '') yield line(pending.replace(/\r$/, ''));
  } finally {
    // stop the sender when a refusal ends the read early; some sources never settle a cancel
    void reader.cancel().catch(() => undefined);
  }
}
