import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Holds every answer to the OpenAPI document: the status is one the operation lists, the content type one it
 * describes, the body valid against its schema (ajv, refs resolved inside the document), the headers present and
 * well formed. The REST tests' HTTP helpers call it on every answer, so a route that drifts from its description
 * fails the test that saw it.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

// ajv-formats is CommonJS with a default export; under NodeNext interop it arrives as the module.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (...segments: (string | number)[]) => segments.map((s) => escapePointer(String(s))).join('/');

/** The headers of an answer, whichever client read it. */
export type AnswerHeaders = Headers | Record<string, string | string[] | undefined>;

export interface AnswerSeen {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  headers: AnswerHeaders;
  /** The body as text. */
  body: string;
}

export interface FoundOperation {
  /** `GET /api/projects/{slug}` */
  name: string;
  template: string;
  method: string;
  operation: Json;
}

const headerOf = (headers: AnswerHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : ''}`)
    .join('; ');
}

export class OpenApiJudge {
  private readonly ajv: Ajv2020;
  private readonly routes: { template: string; regex: RegExp; literal: number }[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi');
    this.routes = Object.keys(document.paths as Json)
      .map((template) => {
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
        return { template, regex: new RegExp(`^${source}$`), literal: template.split('/').filter((s) => !s.startsWith('{')).length };
      })
      // `/api/notifications/unread` before a parameter in the same place would match it.
      .sort((a, b) => b.literal - a.literal);
  }

  /** The operation a request is for, or undefined when the document describes none (an unknown path, a wrong method). */
  find(method: string, path: string): FoundOperation | undefined {
    const pathname = path.split('?')[0] ?? '';
    for (const { template, regex } of this.routes) {
      if (!regex.test(pathname)) continue;
      const operation = (this.document.paths as Record<string, Json>)[template]?.[method.toLowerCase()];
      if (isObject(operation)) return { name: `${method.toUpperCase()} ${template}`, template, method: method.toLowerCase(), operation };
    }
    return undefined;
  }

  /** The statuses the operation lists. */
  statuses(found: FoundOperation): number[] {
    return Object.keys(found.operation.responses as Json).map(Number);
  }

  private response(found: FoundOperation, status: number): { response: Json; at: string } | undefined {
    const declared = (found.operation.responses as Json)[String(status)];
    if (!isObject(declared)) return undefined;
    if (typeof declared.$ref === 'string') {
      const name = declared.$ref.split('/').pop() ?? '';
      return { response: ((this.document.components as Json).responses as Record<string, Json>)[name] ?? {}, at: pointer('components', 'responses', name) };
    }
    return { response: declared, at: pointer('paths', found.template, found.method, 'responses', String(status)) };
  }

  private validator(at: string): ValidateFunction {
    let validate = this.validators.get(at);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#/${at}` });
      this.validators.set(at, validate);
    }
    return validate;
  }

  /** What is wrong with an answer, as sentences; none when it is what the document says (or no operation is described there). */
  check(answer: AnswerSeen): string[] {
    const found = this.find(answer.method, answer.path);
    if (!found) return [];
    const described = this.response(found, answer.status);
    if (!described) return [`${found.name} answered ${answer.status}, which its description does not list (${this.statuses(found).join(', ')})`];
    const problems: string[] = [];
    const where = `${found.name} → ${answer.status}`;

    const content = isObject(described.response.content) ? described.response.content : {};
    // SvelteKit's own form check (a 403) sends its sentence with no Content-Type at all: text, as described.
    const declaredType = headerOf(answer.headers, 'content-type') ?? (answer.body === '' ? '' : 'text/plain');
    const mediaType = declaredType.split(';')[0]?.trim().toLowerCase() ?? '';
    const types = Object.keys(content);
    if (types.length > 0 && !types.includes(mediaType)) problems.push(`${where}: content type "${mediaType}", described ${types.join(' or ')}`);
    else if (mediaType === 'application/json' && isObject(content[mediaType])) {
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        problems.push(`${where}: the body is not JSON`);
      }
      const validate = this.validator(`${described.at}/${pointer('content', mediaType, 'schema')}`);
      if (body !== undefined && !validate(body)) problems.push(`${where}: ${describeErrors(validate.errors)}`);
    }

    for (const [name, header] of Object.entries(isObject(described.response.headers) ? described.response.headers : {})) {
      const value = headerOf(answer.headers, name);
      if (value === undefined) {
        if (isObject(header) && header.required === true) problems.push(`${where}: the header ${name} is missing`);
        continue;
      }
      const validate = this.validator(`${described.at}/${pointer('headers', name, 'schema')}`);
      if (!validate(value)) problems.push(`${where}: the header ${name}: ${describeErrors(validate.errors)}`);
    }
    return problems;
  }

  /** Throws with every problem of an answer: what the HTTP helpers of the tests call. */
  assert(answer: AnswerSeen): void {
    const problems = this.check(answer);
    if (problems.length > 0) throw new Error(`The answer drifted from the OpenAPI document:\n${problems.join('\n')}\nbody: ${answer.body.slice(0, 500)}`);
  }
}
