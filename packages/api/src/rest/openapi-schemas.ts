import { z } from 'zod';
import { errorBodySchema, notConfiguredSchema } from '@dash/contracts';

/**
 * zod schemas as OpenAPI 3.1 schema objects for the REST API's document (zod's `toJSONSchema`, whose 2020-12 dialect
 * is OpenAPI 3.1's): the named ones written once under components.schemas, and recursive shapes hoisted there.
 */

export type Json = Record<string, unknown>;
type Io = 'input' | 'output';

/** Schemas written once under components.schemas and referred to wherever a procedure's schema uses them. */
const namedSchemas = new Map<z.ZodType, string>([
  [errorBodySchema, 'Error'],
  [notConfiguredSchema, 'NotConfigured'],
]);

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod schemas as OpenAPI 3.1 schema objects; named ones become `$ref`s into components.schemas. */
export class SchemaWriter {
  readonly components: Record<string, Json> = {};
  /** Each recursive shape written so far (its self-reference as `#self`) and its component's name. */
  private readonly shapes = new Map<string, string>();

  write(schema: z.ZodType, io: Io): Json {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // A `z.custom` or a transform's output has no JSON Schema: it is described as "any value".
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema, path }) => {
        const name = namedSchemas.get(zodSchema as unknown as z.ZodType);
        if (name === undefined || path.length === 0) return;
        this.component(name, zodSchema as unknown as z.ZodType);
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
        (jsonSchema as Json).$ref = `#/components/schemas/${name}`;
      },
    }) as Json;
    delete json.$schema;
    return this.hoistDefs(json);
  }

  /** A named schema, written once; a reference to it. */
  ref(schema: z.ZodType): Json {
    const name = namedSchemas.get(schema);
    if (name === undefined) throw new Error('not a named schema');
    this.component(name, schema);
    return { $ref: `#/components/schemas/${name}` };
  }

  private component(name: string, schema: z.ZodType) {
    if (name in this.components) return;
    this.components[name] = {};
    this.components[name] = this.write(schema, 'output');
  }

  /**
   * A recursive schema's `$defs` refer to the schema's own root (`#/$defs/…`), which inside the document would be the
   * document's: they move to components.schemas, one component per distinct shape (z.json(), the only recursive one
   * today, becomes `JsonValue`), so a generated client gets one type for it, not one per route.
   */
  private hoistDefs(json: Json): Json {
    const defs = json.$defs;
    if (!isObject(defs)) return json;
    delete json.$defs;
    const renamed = new Map<string, string>();
    for (const [key, def] of Object.entries(defs)) {
      const shape = JSON.stringify(rewriteRefs(def, new Map([[`#/$defs/${key}`, '#self']])));
      let name = this.shapes.get(shape);
      if (name === undefined) {
        name = shape === jsonValueShape() ? 'JsonValue' : `Recursive${this.shapes.size + 1}`;
        this.shapes.set(shape, name);
      }
      renamed.set(`#/$defs/${key}`, `#/components/schemas/${name}`);
    }
    for (const [key, def] of Object.entries(defs)) {
      const name = (renamed.get(`#/$defs/${key}`) ?? '').split('/').pop() ?? key;
      this.components[name] ??= rewriteRefs(def, renamed) as Json;
    }
    return rewriteRefs(json, renamed) as Json;
  }
}

/** A schema with its `$ref`s renamed as the map says. */
function rewriteRefs(node: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, renamed));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === '$ref' && typeof value === 'string' ? (renamed.get(value) ?? value) : rewriteRefs(value, renamed);
  return out;
}

/** The shape of z.json() as zod writes it, its self-reference written `#self`: what `JsonValue` names. */
let jsonValue: string | undefined;
function jsonValueShape(): string {
  if (jsonValue === undefined) {
    const written = z.toJSONSchema(z.object({ value: z.json() }), { target: 'draft-2020-12' }) as Json;
    const [key, def] = Object.entries((written.$defs ?? {}) as Json)[0] ?? ['', {}];
    jsonValue = JSON.stringify(rewriteRefs(def, new Map([[`#/$defs/${key}`, '#self']])));
  }
  return jsonValue;
}
