import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { sample } from 'openapi-sampler';

/**
 * An OpenAPI 3.0 or 3.1 description as a judge of requests and answers, and a source of sample answers.
 * ajv validates every value against the operation's own schema (refs resolved by ajv, so only the
 * operations asked about are ever compiled), openapi-sampler writes the samples; this module only
 * finds the operation and tells each library where its schema is.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How much of a schema a sample fills: required fields only, every field with nullable ones null, or every field with a value. */
export type SampleMode = 'minimal' | 'maximal' | 'full';

export interface HttpExchange {
  method: string;
  /** Path and query as the fake received them. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  status: number;
  reply: { body: unknown };
}

export interface Found {
  /** `GET /projects/{project_id}/metrics/overview` */
  operation: string;
  template: string;
  method: string;
  params: Record<string, string>;
}

// ajv-formats is CommonJS with a default export; under NodeNext interop it arrives as the module.
export const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => void;

/** One pass over a whole description, turning OpenAPI 3.0's schema dialect into JSON Schema that ajv and the sampler read alike. */
/** Which of a schema's own examples a sample may use: all, only those of single values, or none. */
type Examples = 'all' | 'values' | 'none';

const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value === 'number' ? 'number' : typeof value;

/** Whether a value is of the schema's own type and in its enum, when it has them. */
function fits(value: unknown, schema: Json): boolean {
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]) as string[];
  const type = jsonType(value);
  if (types.length > 0 && !types.includes(type) && !(type === 'integer' && types.includes('number'))) return false;
  return !Array.isArray(schema.enum) || schema.enum.includes(value);
}

/** A correction of one schema object where its description contradicts itself (exceptions.ts lists each, with its reason). */
export type Repair = (schema: Json) => Json;

function normalise(node: unknown, nulls: 'union' | 'null', examples: Examples, repair: Repair = (schema) => schema): unknown {
  if (Array.isArray(node)) return node.map((item) => normalise(item, nulls, examples, repair));
  if (!isObject(node)) return node;
  let out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = normalise(value, nulls, examples, repair);
  out = repair(out);
  // OpenAPI 3.0's `nullable` (often beside a `$ref` or an `anyOf`, which ajv's own support refuses) as JSON Schema's null type.
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    } else if (out.type === undefined) {
      return nulls === 'null' ? { type: 'null' } : { anyOf: [out, { type: 'null' }] };
    }
  }
  // App Store Connect's description has a `format: null`, which ajv refuses to compile: no format is what it means.
  if ('format' in out && typeof out.format !== 'string') delete out.format;
  // OpenAPI 3.0's boolean exclusive bounds are JSON Schema draft 4's; ajv reads the numeric form.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  if (nulls === 'null') {
    const union = (out.anyOf ?? out.oneOf) as unknown[] | undefined;
    const nullable = (Array.isArray(out.type) && out.type.includes('null')) || union?.some((s) => isObject(s) && s.type === 'null');
    if (nullable) return { type: 'null' };
  }
  // A whole-object example would stand in for the sample (and bring fields a minimal answer has not).
  if (examples === 'none' || (examples === 'values' && (out.type === 'object' || out.type === 'array' || isObject(out.properties)))) {
    delete out.example;
    delete out.examples;
    delete out.default;
  } else if (examples === 'values') {
    // An example of another type than its own field's (Vercel gives a string's example as a whole map) is no value for it.
    if ('example' in out && !fits(out.example, out)) delete out.example;
    if (Array.isArray(out.examples)) out.examples = out.examples.filter((example) => fits(example, out));
    if ('default' in out && !fits(out.default, out)) delete out.default;
  }
  return out;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (...segments: (string | number)[]) => '#/' + segments.map((s) => escapePointer(String(s))).join('/');

function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local references are followed: ${ref}`);
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  }
  return node;
}

interface Route {
  template: string;
  regex: RegExp;
  names: string[];
  params: number;
}

function describeErrors(errors: ErrorObject[] | null | undefined, what: string): string[] {
  // The deepest, most specific complaints first; anyOf's summary line adds nothing to them.
  const specific = (errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  return (specific.length > 0 ? specific : (errors ?? [])).map((e) => {
    const where = `${what}${e.instancePath}`;
    const detail =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues).slice(0, 120)})`
          : '';
    return `${where} ${e.message ?? e.keyword}${detail}`;
  });
}

export class OpenApiDescription {
  private readonly document: Json;
  private readonly ajv: Ajv;
  /** Path and query parameters arrive as text: this one coerces them to the described types first. */
  private readonly paramsAjv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly samplingDocuments = new Map<string, Json>();
  /** The path part of the description's server URL (`/v2` for RevenueCat), which its paths leave out. */
  readonly serverPath: string;

  constructor(
    readonly name: string,
    private readonly source: Json,
    private readonly repair?: Repair,
  ) {
    this.document = normalise(source, 'union', 'all', repair) as Json;
    const version = typeof source.openapi === 'string' ? source.openapi : '';
    const AjvClass = version.startsWith('3.1') ? Ajv2020 : Ajv;
    const options = { strict: false, allErrors: true, validateSchema: false, logger: false, validateFormats: true } as const;
    this.ajv = new AjvClass(options);
    this.paramsAjv = new AjvClass({ ...options, coerceTypes: 'array' });
    for (const ajv of [this.ajv, this.paramsAjv]) {
      addFormats(ajv);
      ajv.addSchema(this.document, 'description');
    }
    const servers = (source.servers as { url: string }[] | undefined) ?? [];
    this.serverPath = servers[0] ? new URL(servers[0].url.replace(/\{[^}]+\}/g, 'x')).pathname.replace(/\/+$/, '') : '';
    this.routes = Object.keys((this.document.paths as Json | undefined) ?? {})
      .map((template) => {
        const names: string[] = [];
        // Sentry's paths end in a slash, which its API (like most) also answers without.
        const source = template
          .replace(/(.)\/$/, '$1')
          .split(/(\{[^}]+\})/)
          .map((part) => {
            const name = /^\{([^}]+)\}$/.exec(part)?.[1];
            if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
            names.push(name);
            return '([^/]+)';
          })
          .join('');
        return { template, regex: new RegExp(`^${source}/?$`), names, params: names.length };
      })
      // A literal segment wins over a parameter: `/releases/latest` before `/releases/{release_id}`.
      .sort((a, b) => a.params - b.params);
  }

  private pathItem(template: string): Json {
    return (this.document.paths as Record<string, Json>)[template] ?? {};
  }

  private operationObject(found: Found): Json {
    return this.pathItem(found.template)[found.method.toLowerCase()] as Json;
  }

  /** The operation a request path (as the fake received it) is for, or why there is none. */
  find(method: string, requestPath: string): Found | string {
    const pathname = requestPath.split('?')[0] ?? '';
    if (!pathname.startsWith(this.serverPath)) return `${method} ${pathname} is outside ${this.name}'s API (${this.serverPath || '/'})`;
    const path = pathname.slice(this.serverPath.length) || '/';
    let pathOnly: string | undefined;
    for (const route of this.routes) {
      const match = route.regex.exec(path);
      if (!match) continue;
      if (!isObject(this.pathItem(route.template)[method.toLowerCase()])) {
        pathOnly ??= route.template;
        continue;
      }
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? '')]));
      return { operation: `${method.toUpperCase()} ${route.template}`, template: route.template, method: method.toUpperCase(), params };
    }
    return pathOnly ? `${this.name} describes no ${method} at ${pathOnly}` : `${this.name} describes no operation at ${path}`;
  }

  private validator(schemaPointer: string, forParams = false): ValidateFunction {
    const key = `${forParams ? 'p' : 'v'}${schemaPointer}`;
    let validate = this.validators.get(key);
    if (!validate) {
      // Wrapped in a property so that ajv can coerce a parameter's text in place.
      const schema = forParams
        ? { type: 'object', properties: { value: { $ref: `description#${schemaPointer}` } } }
        : { $ref: `description#${schemaPointer}` };
      validate = (forParams ? this.paramsAjv : this.ajv).compile(schema);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The operation's parameters with where each lives in the document (path-level ones first, overridden by the operation's). */
  private parameters(found: Found): { parameter: Json; at: string }[] {
    const byKey = new Map<string, { parameter: Json; at: string }>();
    const base = ['paths', found.template];
    const lists: [unknown, (string | number)[]][] = [
      [this.pathItem(found.template).parameters, [...base, 'parameters']],
      [this.operationObject(found).parameters, [...base, found.method.toLowerCase(), 'parameters']],
    ];
    for (const [list, at] of lists) {
      if (!Array.isArray(list)) continue;
      list.forEach((entry: unknown, i) => {
        const ref = isObject(entry) && typeof entry.$ref === 'string' ? entry.$ref : undefined;
        const parameter = (ref ? resolvePointer(this.document, ref) : entry) as Json;
        byKey.set(`${String(parameter.in)}:${String(parameter.name)}`, { parameter, at: ref ?? pointer(...at, i) });
      });
    }
    return [...byKey.values()];
  }

  checkRequest(exchange: HttpExchange): string[] {
    const found = this.find(exchange.method, exchange.path);
    if (typeof found === 'string') return [found];
    const problems: string[] = [];
    const query = new URLSearchParams(exchange.path.split('?')[1] ?? '');
    const described = new Set<string>();
    for (const { parameter, at } of this.parameters(found)) {
      const name = String(parameter.name);
      const schema = isObject(parameter.schema) ? parameter.schema : {};
      const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
      let value: unknown;
      if (parameter.in === 'path') value = found.params[name];
      else if (parameter.in === 'header') value = exchange.headers[name.toLowerCase()];
      else if (parameter.in === 'query') {
        described.add(name);
        if (parameter.style === 'deepObject') {
          // `created[gte]=…`, `expand[]=…`: one described parameter over several query names.
          const entries = [...query.entries()].filter(([key]) => key.startsWith(`${name}[`));
          for (const [key] of entries) described.add(key);
          if (entries.length > 0) value = isArray ? entries.map(([, v]) => v) : Object.fromEntries(entries.map(([key, v]) => [key.slice(name.length + 1, -1), v]));
        } else if (query.has(name)) {
          const all = query.getAll(name);
          value = isArray ? (parameter.explode === false ? (all[0] ?? '').split(',') : all) : all.length > 1 ? all : all[0];
        }
      } else continue;
      if (value === undefined) {
        if (parameter.required === true) problems.push(`the required ${String(parameter.in)} parameter ${name} is missing`);
        continue;
      }
      if (!isObject(parameter.schema)) continue;
      const validate = this.validator(`${at.slice(1)}/schema`, true);
      if (!validate({ value })) problems.push(...describeErrors(validate.errors, `${String(parameter.in)} parameter ${name}`).map((p) => p.replace(`${name}/value`, name)));
    }
    for (const name of new Set(query.keys())) {
      if (!described.has(name)) problems.push(`the query parameter ${name} is not described`);
    }
    problems.push(...this.checkRequestBody(found, exchange));
    return problems.map((p) => `${found.operation}: ${p}`);
  }

  private checkRequestBody(found: Found, exchange: HttpExchange): string[] {
    const operation = this.operationObject(found);
    const declared = operation.requestBody as Json | undefined;
    const ref = typeof declared?.$ref === 'string' ? declared.$ref : undefined;
    const requestBody = (ref ? resolvePointer(this.document, ref) : declared) as Json | undefined;
    if (exchange.body === undefined) return requestBody?.required === true ? ['the required request body is missing'] : [];
    if (!requestBody) return ['it sends a body the operation does not take'];
    const contentType = String(exchange.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
    const content = requestBody.content as Json | undefined;
    if (!content || !isObject(content[contentType])) return [`the body is ${contentType}, which the operation does not take (${Object.keys(content ?? {}).join(', ')})`];
    const at = ref ? `${ref.slice(1)}/content/${escapePointer(contentType)}/schema` : `${pointer('paths', found.template, found.method.toLowerCase(), 'requestBody', 'content', contentType, 'schema').slice(1)}`;
    const validate = this.validator(at, contentType !== 'application/json');
    const value = contentType === 'application/json' ? exchange.body : { value: exchange.body };
    return validate(value) ? [] : describeErrors(validate.errors, 'the body');
  }

  /** Where the answer for a status is described: its own code, its class (`4XX`), or `default`. */
  private responseFor(found: Found, status: number): { response: Json; at: string } | undefined {
    const responses = (this.operationObject(found).responses ?? {}) as Json;
    const code = [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in responses);
    if (code === undefined) return undefined;
    const declared = responses[code] as Json;
    const ref = typeof declared.$ref === 'string' ? declared.$ref : undefined;
    return {
      response: (ref ? resolvePointer(this.document, ref) : declared) as Json,
      at: ref ? ref.slice(1) : pointer('paths', found.template, found.method.toLowerCase(), 'responses', code).slice(1),
    };
  }

  private jsonMediaType(response: Json): string | undefined {
    return Object.keys((response.content as Json | undefined) ?? {}).find((type) => /\bjson\b|\+json/.test(type));
  }

  checkResponse(exchange: HttpExchange): string[] {
    const found = this.find(exchange.method, exchange.path);
    if (typeof found === 'string') return [found];
    const described = this.responseFor(found, exchange.status);
    // An API may answer any error its description leaves out (a 401, a 503); an unlisted success is a fake's invention.
    if (!described) return exchange.status < 400 ? [`${found.operation}: ${exchange.status} is not an answer it describes`] : [];
    const mediaType = this.jsonMediaType(described.response);
    const { body } = exchange.reply;
    if (mediaType === undefined) return [];
    const schema = ((described.response.content as Json)[mediaType] as Json).schema;
    if (schema === undefined) return [];
    if (body === undefined || body === '') return [`${found.operation}: the ${exchange.status} answer has no body, and the description promises JSON`];
    if (typeof body === 'string') return [`${found.operation}: the ${exchange.status} answer is not JSON`];
    const validate = this.validator(`${described.at}/content/${escapePointer(mediaType)}/schema`);
    return validate(body) ? [] : describeErrors(validate.errors, `${found.operation} → ${exchange.status}`);
  }

  /**
   * A generated answer for a request: the operation's first success, filled as `mode` says. The
   * schema's own examples give the values where they fit; when one does not (an example of another
   * type than its field), the answer is generated again without examples. `problems` is what is
   * still wrong with it, when the description contradicts itself.
   */
  sampleAnswer(method: string, requestPath: string, mode: SampleMode): { status: number; body: unknown; problems: string[] } {
    const found = this.find(method, requestPath);
    if (typeof found === 'string') throw new Error(found);
    const responses = (this.operationObject(found).responses ?? {}) as Json;
    const code = Object.keys(responses).find((key) => /^2\d\d$/.test(key));
    if (code === undefined) throw new Error(`${found.operation} describes no success`);
    const status = Number(code);
    const described = this.responseFor(found, status);
    const mediaType = described && this.jsonMediaType(described.response);
    if (!described || mediaType === undefined) return { status, body: undefined, problems: [] };
    const at = `${described.at}/content/${escapePointer(mediaType)}/schema`;
    const generate = (examples: Examples) => {
      const document = this.samplingDocument(mode, examples);
      const body = sample(resolvePointer(document, `#${at}`) as Json, { skipNonRequired: mode === 'minimal', skipWriteOnly: true, quiet: true, enablePatterns: true }, document);
      const validate = this.validator(at);
      return { status, body, problems: validate(body) ? [] : describeErrors(validate.errors, `${found.operation} → ${status}`) };
    };
    const withExamples = generate('values');
    return withExamples.problems.length === 0 ? withExamples : generate('none');
  }

  private samplingDocument(mode: SampleMode, examples: Examples): Json {
    const key = `${mode}:${examples}`;
    let document = this.samplingDocuments.get(key);
    if (!document) {
      document = normalise(this.source, mode === 'maximal' ? 'null' : 'union', examples, this.repair) as Json;
      this.samplingDocuments.set(key, document);
    }
    return document;
  }
}
