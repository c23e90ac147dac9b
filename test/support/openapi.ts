// Checks a real answer of the service against the OpenAPI document it serves: the document's 200
// schema for a success, its error schema for anything else. test/support/service.ts runs every
// answer of the conformance suite (test/api) through it, so the reference cannot drift from what
// the service answers.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { openApiDocument, openApiPath } from '../../src/api/openapi.js';
import { createRouter } from '../../src/api/router.js';
import { routes } from '../../src/api/routes.js';

export const document = openApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'openapi', components: document.components });

const match = createRouter(routes);
const validators = new Map<string, ValidateFunction>();

function validator(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    // $refs point into the components: resolve them against the document registered above
    const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
    validators.set(key, (validate = ajv.compile(resolved)));
  }
  return validate;
}

/**
 * What is wrong with an answer to `method path` (path relative to the base path, e.g.
 * `agent/01J…`), as the document describes it; undefined when it fits, or when the path is no
 * route (a 404 the service made up, checked as an error).
 */
export function answerProblems(method: string, path: string, status: number, body: unknown): string | undefined {
  let schema: object | undefined;
  let key: string;
  const found = match(method, `/${path.replace(/^\//, '').split('?')[0]}`);
  if (status >= 200 && status < 300 && found.kind === 'route') {
    const operation = document.paths[openApiPath(found.route.path)]?.[method.toLowerCase()];
    if (!operation) return `${method} ${found.route.path} is not in the document`;
    const content = operation.responses['200']?.content ?? {};
    // an NDJSON answer (GET /export, GET /sync/pull) is lines, not one JSON value: its records are
    // read and checked by the import and sync tests
    if (!content['application/json'] && content['application/x-ndjson']) return undefined;
    schema = content['application/json']?.schema;
    if (!schema)
      return `${method} ${found.route.path} answers JSON, but the document says it answers ${Object.keys(operation.responses['200']?.content ?? {}).join(', ')}`;
    key = `${method} ${found.route.path}`;
  } else {
    schema = { $ref: '#/components/schemas/Error' };
    key = 'error';
  }
  const validate = validator(key, schema);
  if (validate(body)) return undefined;
  return `${method} /${path} answered ${status} with a body the OpenAPI document does not allow: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
}
