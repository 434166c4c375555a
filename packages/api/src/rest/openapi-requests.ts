import fc from 'fast-check';

/**
 * Requests written from the OpenAPI document with fast-check, for the property-based run: `valid` ones fill each
 * path and query parameter and the body from their schemas; `invalid` ones put something else in one place. Only
 * what the document says is used, so the run tests the document as much as the routes.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface GeneratedRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** The body's text, when there is one. */
  body?: string;
}

/** Deep enough for every shape of the document, shallow enough to stay fast. */
const MAX_DEPTH = 4;

function resolve(document: Json, schema: Json): Json {
  if (typeof schema.$ref !== 'string') return schema;
  let node: unknown = document;
  for (const segment of schema.$ref.slice(2).split('/')) node = (node as Json)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve(document, node as Json);
}

function stringOf(schema: Json): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(minLength, 20);
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
  }
  if (typeof schema.pattern === 'string') {
    try {
      // Lengths are left to chance here: filtering on them could leave fast-check nothing to keep.
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern fast-check cannot generate from (a lookahead): plain strings, mostly refused, still a fair try.
    }
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) });
}

function numberOf(schema: Json, integer: boolean): fc.Arbitrary<number> {
  const bound = (inclusive: unknown, exclusive: unknown, step: number) =>
    typeof exclusive === 'number' ? exclusive + step : typeof inclusive === 'number' ? inclusive : undefined;
  const min = bound(schema.minimum, schema.exclusiveMinimum, integer ? 1 : 1e-9) ?? -1e6;
  const max = bound(schema.maximum, schema.exclusiveMaximum, integer ? -1 : -1e-9) ?? 1e6;
  if (integer) return fc.integer({ min: Math.max(Math.ceil(min), -1e9), max: Math.min(Math.floor(max), 1e9) });
  return fc.double({ min: Math.max(min, -1e9), max: Math.min(max, 1e9), noNaN: true, noDefaultInfinity: true });
}

/** Values that fit a schema of the document (as far as fast-check can aim: a pattern may be missed). */
export function valueOf(document: Json, raw: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(union)) return fc.oneof(...union.map((s) => valueOf(document, s, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return valueOf(document, schema.allOf[0] as Json, depth + 1);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => valueOf(document, { ...schema, type }, depth)));
  switch (types[0]) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      if (depth > MAX_DEPTH || !isObject(schema.items)) return fc.constant([]);
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, minLength + 3);
      return fc.array(valueOf(document, schema.items, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectOf(document, schema, depth);
  }
  return isObject(schema.properties) ? objectOf(document, schema, depth) : fc.jsonValue({ maxDepth: 1 });
}

function objectOf(document: Json, schema: Json, depth: number): fc.Arbitrary<unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const optional = depth > MAX_DEPTH ? [] : Object.keys(properties).filter((key) => !required.includes(key));
  const record = fc.record(
    Object.fromEntries([...required, ...optional].map((key) => [key, valueOf(document, (properties[key] as Json | undefined) ?? {}, depth + 1)])),
    { requiredKeys: required },
  );
  if (!isObject(schema.additionalProperties) || Object.keys(properties).length > 0) return record;
  // A map (`{ "CAD": 1.38 }`): keys from its propertyNames, when it says.
  const key = isObject(schema.propertyNames) ? (valueOf(document, schema.propertyNames, depth + 1) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 12 });
  return fc.dictionary(key, valueOf(document, schema.additionalProperties, depth + 1), { maxKeys: depth > MAX_DEPTH ? 0 : 3 });
}

/** A parameter's value as it goes in a URL: text, whatever its schema's type. */
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

interface Parts {
  path: Record<string, string>;
  query: [string, string][];
  body: string | undefined;
}

const operationAt = (document: Json, method: string, template: string) =>
  ((document.paths as Record<string, Json>)[template] ?? {})[method.toLowerCase()] as Json;
const parametersOf = (operation: Json) => (Array.isArray(operation.parameters) ? operation.parameters : []) as Parameter[];

/** Every required part of a request from its schema, the optional ones or not. */
function validParts(document: Json, operation: Json): fc.Arbitrary<Parts> {
  const params = parametersOf(operation);
  const bodySchema = ((operation.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined;
  return fc.record({
    path: fc.record(Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, valueOf(document, p.schema ?? {}).map(asText)]))),
    query: fc
      .tuple(
        ...params
          .filter((p) => p.in === 'query')
          .map((p) => {
            const value = valueOf(document, p.schema ?? {}).map((v): [string, string][] => [[p.name, asText(v)]]);
            return p.required ? value : fc.option(value, { nil: undefined }).map((v) => v ?? []);
          }),
      )
      .map((lists) => lists.flat()),
    body: bodySchema ? valueOf(document, (bodySchema.schema as Json | undefined) ?? {}).map((v) => JSON.stringify(v)) : fc.constant(undefined),
  });
}

const requestOf = (method: string, template: string, { path, query, body }: Parts): GeneratedRequest => {
  // A segment of "." or ".." cannot be sent: URLs resolve it away (`/api/projects/.` is `/api/projects/`), so no
  // client can ask for it; it stands as `x`, like an empty one.
  const segment = (value: string | undefined) => (value === undefined || value === '.' || value === '..' ? 'x' : encodeURIComponent(value) || 'x');
  const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => segment(path[name]));
  const search = new URLSearchParams(query).toString();
  return { method: method.toUpperCase(), path: search ? `${filled}?${search}` : filled, ...(body === undefined ? {} : { body }) };
};

/** Requests an operation of the document should take. */
export function validRequests(document: Json, method: string, template: string): fc.Arbitrary<GeneratedRequest> {
  return validParts(document, operationAt(document, method, template)).map((parts) => requestOf(method, template, parts));
}

/** Requests with one part wrong: any JSON (or broken JSON) as the body, any text in a path or query parameter. */
export function invalidRequests(document: Json, method: string, template: string): fc.Arbitrary<GeneratedRequest> {
  const operation = operationAt(document, method, template);
  const valid = validParts(document, operation);
  const wrongs: fc.Arbitrary<Parts>[] = [];
  if (operation.requestBody) {
    const anyBody = fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 30 }));
    wrongs.push(fc.tuple(valid, anyBody).map(([parts, body]) => ({ ...parts, body })));
  }
  for (const { name, in: where } of parametersOf(operation)) {
    const text = fc.string({ maxLength: 30 });
    if (where === 'path') wrongs.push(fc.tuple(valid, text).map(([parts, value]) => ({ ...parts, path: { ...parts.path, [name]: value } })));
    if (where === 'query') wrongs.push(fc.tuple(valid, text).map(([parts, value]) => ({ ...parts, query: [...parts.query.filter(([n]) => n !== name), [name, value]] })));
  }
  return (wrongs.length > 0 ? fc.oneof(...wrongs) : valid).map((parts) => requestOf(method, template, parts));
}
