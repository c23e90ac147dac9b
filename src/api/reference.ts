// An OpenAPI document (GET /openapi.json) read back as a short reference: one row per endpoint and
// each named shape as a type expression. No dependencies, so the demo renders the document its
// worker serves with it, and docs/REST.md's table is rendered from it (src/api/openapi.ts).

type JsonSchema = Record<string, unknown>;

/** How to read the shapes, said once beside them. */
export const SHAPE_NOTATION = '`?` marks an optional field, `[name]: T` any number of named fields, `T[] (2..4)` an array of 2 to 4';

/** A JSON schema as a short type expression: `{id: string, name?: string}`, `Set[]`, `"a" | "b" | null`. */
function shape(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').at(-1)!;
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return union.map(shape).join(' | ');
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).map(shape).join(' & ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => shape({ ...schema, type })).join(' | ');
  switch (schema.type) {
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
      const required = new Set((schema.required ?? []) as string[]);
      const fields = properties.map(([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${shape(property)}`);
      if (typeof schema.additionalProperties === 'object') fields.push(`[name]: ${shape(schema.additionalProperties as JsonSchema)}`);
      return fields.length > 0 ? `{${fields.join(', ')}}` : 'object';
    }
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return `[${(schema.prefixItems as JsonSchema[]).map(shape).join(', ')}]`;
      const items = (schema.items ?? {}) as JsonSchema;
      const item = shape(items);
      const union = !items.$ref && (items.anyOf || items.oneOf || Array.isArray(items.type) || (Array.isArray(items.enum) && items.enum.length > 1));
      const counted = schema.minItems !== undefined || schema.maxItems !== undefined ? ` (${schema.minItems ?? 0}..${schema.maxItems ?? '∞'})` : '';
      return `${union ? `(${item})` : item}[]${counted}`;
    }
    case 'string':
      return schema.format === 'date-time' ? 'date-time' : 'string';
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return schema.type;
    default:
      return 'any';
  }
}

export interface ReferenceRow {
  /** `POST /agent/{id}` */
  endpoint: string;
  /** needs no API key */
  open: boolean;
  /** query parameters, then the body's shape or media type; `–` for none */
  request: string;
  answer: string;
  summary: string;
}

/** The endpoints of an OpenAPI 3.1 document as rows, and its named schemas as shapes. */
export function readReference(document: JsonSchema): { endpoints: ReferenceRow[]; shapes: Array<{ name: string; shape: string }> } {
  const { paths, components } = document as { paths: Record<string, Record<string, JsonSchema>>; components: { schemas: Record<string, JsonSchema> } };
  const endpoints: ReferenceRow[] = [];
  const described = (content: Record<string, { schema: JsonSchema }>) =>
    Object.entries(content).map(([type, { schema }]) => (type === 'application/json' ? shape(schema) : `\`${type}\``));
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const query = ((operation.parameters ?? []) as JsonSchema[]).filter((parameter) => parameter.in === 'query').map((parameter) => String(parameter.name));
      const body = operation.requestBody as { required: boolean; content: Record<string, { schema: JsonSchema }> } | undefined;
      const request = [...(query.length > 0 ? [`?${query.join('&')}`] : []), ...(body ? described(body.content) : [])].join(', ');
      const answer = (operation.responses as Record<string, { content: Record<string, { schema: JsonSchema }> }>)['200']!.content;
      endpoints.push({
        endpoint: `${method.toUpperCase()} ${path}`,
        open: Array.isArray(operation.security) && operation.security.length === 0,
        request: (request || '–') + (body && !body.required ? ' (optional)' : ''),
        answer: described(answer).join(', '),
        summary: String(operation.summary),
      });
    }
  }
  return { endpoints, shapes: Object.entries(components.schemas).map(([name, schema]) => ({ name, shape: shape(schema) })) };
}
