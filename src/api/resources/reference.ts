import { openApiDocument } from '../openapi.js';
import type { Context } from '../context.js';
import { jsonText } from '../http.js';

/** The document per base path, built on first use: it never changes while the service runs. */
const documents = new Map<string, string>();

/** GET /openapi.json: the interface as an OpenAPI 3.1 document (no key needed). */
export async function describeInterface({ service }: Context): Promise<Response> {
  let text = documents.get(service.basePath);
  if (text === undefined) documents.set(service.basePath, (text = JSON.stringify(openApiDocument(service.basePath))));
  return jsonText(text);
}
