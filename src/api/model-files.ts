// Model files over REST (docs/REST.md, "Model files"): POST /agent and PUT /agent/:id take FCL, FLL and FIS bodies by
// their Content-Type, and GET /agent/:id and GET /version/:id answer in them when Accept prefers one.

import { FormatError, MEDIA_TYPES, modelFormatOfText, readModel, writeModel, type Model, type ModelFormat } from '../formats/index.js';
import { ApiError } from '../schema/errors.js';

const FORMATS = Object.entries(MEDIA_TYPES).map(([format, mediaType]) => ({ format: format as ModelFormat, mediaType }));

/** The model format a (lower-case, parameterless) media type names, if any. */
export function modelFormatOf(mediaType: string): ModelFormat | undefined {
  return FORMATS.find((entry) => entry.mediaType === mediaType)?.format;
}

/** A model file's text as the body a JSON request would have sent; a FormatError is a 400 naming line and construct. */
export function agentBodyFromModel(format: ModelFormat, text: string): unknown {
  try {
    const { name, definition } = readModel(format, text);
    return { name, ...definition };
  } catch (error) {
    const looksLike = modelFormatOfText(text);
    if (looksLike !== undefined && looksLike !== format) {
      throw new ApiError(
        'InvalidRequest',
        `this is ${looksLike === 'fll' ? 'an' : 'a'} ${looksLike.toUpperCase()} file, not ${format.toUpperCase()}: send it with "Content-Type: ${MEDIA_TYPES[looksLike]}"`,
      );
    }
    // a reader's own failure is still a fault of the file as far as the sender can act on it: say so, with no line
    if (!(error instanceof FormatError)) throw new ApiError('ValidationError', `the ${format.toUpperCase()} file cannot be read: ${(error as Error).message}`);
    const where = error.line > 0 ? `line ${error.line}` : format.toUpperCase();
    throw new ApiError('ValidationError', `the ${format.toUpperCase()} file cannot be read: ${error.message}`, {
      issues: [{ path: where, message: `${error.construct}: ${error.message}` }],
    });
  }
}

/** The hint for a body that is no JSON: a model file sent as JSON names the Content-Type it needs. */
export function modelFileHint(text: string): string {
  const format = modelFormatOfText(text);
  return format === undefined
    ? ''
    : `; this is ${format === 'fll' ? 'an' : 'a'} ${format.toUpperCase()} file: send it with "Content-Type: ${MEDIA_TYPES[format]}"`;
}

/**
 * The model format an Accept header prefers over JSON: the media range of highest q (the first
 * of equal ones) among those fuzzbox answers in; `*\/*`, `application/*` and anything unknown leave
 * the answer JSON, as every earlier client gets it.
 */
export function preferredModelFormat(accept: string | null): ModelFormat | undefined {
  if (!accept) return undefined;
  let best: { q: number; format: ModelFormat | undefined } | undefined;
  for (const range of accept.split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    if (!(q > 0)) continue;
    const format = modelFormatOf(type);
    const json = type === 'application/json' || type === 'application/*' || type === '*/*';
    if (!format && !json) continue;
    if (!best || q > best.q) best = { q, format };
  }
  return best?.format;
}

/** The agent written in `format`; what the format cannot hold (a name, a rule) is a 406 saying why. */
export function modelResponse(format: ModelFormat, model: Model): Response {
  let text: string;
  try {
    text = writeModel(format, model);
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    throw new ApiError(
      'NotAcceptable',
      `this agent cannot be written as ${format.toUpperCase()}: ${error.message}; ask for application/json or another format`,
    );
  }
  return new Response(text, { headers: { 'Content-Type': `${MEDIA_TYPES[format]}; charset=utf-8`, Vary: 'Accept' } });
}
