import { otherCharset } from '../schema/charset.js';
import { ApiError, clipPath } from '../schema/errors.js';
import { reservedKeyIn } from '../schema/reserved-keys.js';
import { agentBodyFromModel, modelFileHint, modelFormatOf } from './model-files.js';

/** 1 MiB (docs/REST.md, "Errors": PayloadTooLarge). */
export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new ApiError('PayloadTooLarge', `the body is over ${MAX_BODY_BYTES} bytes (1 MiB); split a large batch into several requests`);

/** Checks the Content-Type; returns the model format it names when `modelFiles` allows one. */
function checkContentType(contentType: string | null, modelFiles: boolean) {
  // A body without a Content-Type is read as JSON: some HTTP clients send none.
  if (contentType === null) return undefined;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const modelFormat = modelFiles ? modelFormatOf(mediaType) : undefined;
  if (!modelFormat && mediaType !== 'application/json' && !/^application\/[^/]+\+json$/.test(mediaType)) {
    const or = modelFiles ? ', or a model file as text/x-fcl, text/x-fll or text/x-fis' : '';
    throw new ApiError('InvalidRequest', `send the body as JSON with "Content-Type: application/json"${or} (got "${contentType}")`);
  }
  const charset = otherCharset(parameters);
  if (charset !== undefined) {
    throw new ApiError(
      'InvalidRequest',
      `the body must be UTF-8 ${modelFormat ? 'text' : 'JSON'}: send "charset=utf-8" or no charset (got charset "${charset}")`,
    );
  }
  return modelFormat;
}

/**
 * The request's body as a stream of bytes, null when there is none. Firefox's Request has no
 * `body` stream (only arrayBuffer(), blob(), text()): there the engine has the whole body already
 * (it sends no streamed request bodies), so it is read as a Blob, which the engine may keep out of
 * this heap, and streamed from that; callers bound what they take from the stream either way.
 */
export async function bodyStream(request: Request): Promise<ReadableStream<Uint8Array> | null> {
  if (request.body !== undefined) return request.body;
  const blob = await request.blob();
  return blob.size === 0 ? null : blob.stream();
}

async function readLimited(request: Request): Promise<Uint8Array> {
  const body = await bodyStream(request);
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => undefined); // some sources never settle a cancel
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The request's JSON body. Strict about what it accepts (JSON, UTF-8, at most 1 MiB), and every
 * refusal says what to send instead. `undefined` for an empty body when `optional`.
 */
export async function readJsonBody(request: Request, optional: boolean, modelFiles = false): Promise<unknown> {
  const declaredLength = Number(request.headers.get('content-length'));
  if (declaredLength > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readLimited(request);
  if (bytes.byteLength === 0) {
    if (optional) return undefined;
    throw new ApiError('InvalidRequest', 'the body is empty; send a JSON body with "Content-Type: application/json"');
  }
  const modelFormat = checkContentType(request.headers.get('content-type'), modelFiles);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('InvalidRequest', `the body is not valid UTF-8; send UTF-8 encoded ${modelFormat ? 'text' : 'JSON'}`);
  }
  let body: unknown;
  try {
    body = modelFormat ? agentBodyFromModel(modelFormat, text) : JSON.parse(text);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('InvalidRequest', `the body is not valid JSON (${(error as Error).message})${modelFiles ? modelFileHint(text) : ''}`);
  }
  const reserved = reservedKeyIn(text, body);
  if (reserved !== undefined) {
    const message = '"__proto__" cannot be a name (JavaScript objects reserve it); choose another name';
    throw new ApiError('ValidationError', `${clipPath(reserved, 200)}: ${message}`, { issues: [{ path: reserved, message }] });
  }
  return body;
}
