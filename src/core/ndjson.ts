import { ApiError } from '../schema/errors.js';

/** One line of a newline-delimited body, numbered from 1 as an editor shows it. */
export interface Line {
  number: number;
  text: string;
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
        yield { number: ++number, text: pending.slice(start, end).replace(/\r$/, '') };
        start = end + 1;
      }
      pending = pending.slice(start);
      // UTF-16 units bound UTF-8 bytes from below: a line this long in units is over in bytes
      if (pending.length > maxLineBytes) {
        throw new ApiError('PayloadTooLarge', `line ${number + 1} is over ${maxLineBytes} bytes; a backup line holds one record`);
      }
      if (done) break;
    }
    if (pending !== '') yield { number: ++number, text: pending.replace(/\r$/, '') };
  } finally {
    // stop the sender when a refusal ends the read early; some sources never settle a cancel
    void reader.cancel().catch(() => undefined);
  }
}
