import {
  buildSchema,
  execute,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
} from 'graphql';
import { isDeepStrictEqual } from 'node:util';
import type { SampleMode } from './openapi.ts';

/**
 * A GraphQL SDL as a judge of the documents a connector sends and the answers a fake gives, and a
 * source of sample answers. graphql-js does all of it: `validate` for documents, `getVariableValues`
 * for variables, and `execute` over the answer itself for answers (an answer is valid when executing
 * the document against it gives it back unchanged: same fields, non-null ones present, enums and
 * scalars as the schema serialises them).
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface GraphQLBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** Reads each field of the answer by the key the answer uses (the alias when there is one). */
const readAnswer: GraphQLFieldResolver<unknown, unknown> = (source, _args, _context, info) => (isObject(source) ? source[info.path.key as string] : undefined);

/**
 * An abstract type's member is told by the answer's `__typename`. A real answer carries it only when the
 * document asks for it; without it, the first member that has every field the answer holds stands in.
 */
const typeOfAnswer: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, abstractType) => {
  if (!isObject(value)) return undefined;
  if (typeof value.__typename === 'string') return value.__typename;
  const members = info.schema.getPossibleTypes(abstractType);
  const keys = Object.keys(value);
  return (members.find((member) => keys.every((key) => key in member.getFields())) ?? members[0])?.name;
};

/** Values for custom scalars by their usual names; any other scalar gets a string. */
const scalarSamples: Record<string, unknown> = {
  Int: 1,
  Float: 1.5,
  String: 'string',
  Boolean: false,
  ID: 'id-1',
  DateTime: '2026-01-01T00:00:00.000Z',
  DateTimeOrDuration: '2026-01-01T00:00:00.000Z',
  TimelessDate: '2026-01-01',
  TimelessDateOrDuration: '2026-01-01',
  Date: '2026-01-01',
  JSON: {},
  JSONObject: {},
};

export class GraphQLDescription {
  readonly schema: GraphQLSchema;

  constructor(
    readonly name: string,
    sdl: string,
  ) {
    this.schema = buildSchema(sdl, { assumeValidSDL: true });
  }

  private document(body: unknown): { document: DocumentNode; variables: Json; operationName: string | undefined } | string {
    const { query, variables, operationName } = (isObject(body) ? body : {}) as GraphQLBody;
    if (typeof query !== 'string') return 'the body has no `query` string';
    try {
      return {
        document: parse(query),
        variables: isObject(variables) ? variables : {},
        operationName: typeof operationName === 'string' ? operationName : undefined,
      };
    } catch (error) {
      return (error as GraphQLError).message;
    }
  }

  checkRequest(body: unknown): string[] {
    const parsed = this.document(body);
    if (typeof parsed === 'string') return [parsed];
    const errors = validate(this.schema, parsed.document);
    if (errors.length > 0) return errors.map((e) => e.message);
    const operation = getOperationAST(parsed.document, parsed.operationName);
    if (!operation) return ['the document names no single operation to run'];
    const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], parsed.variables);
    return coerced.errors?.map((e) => e.message) ?? [];
  }

  checkResponse(requestBody: unknown, answer: unknown): string[] {
    const parsed = this.document(requestBody);
    if (typeof parsed === 'string' || !isObject(answer)) return isObject(answer) ? [] : ['the answer is not a JSON object'];
    const problems: string[] = [];
    if (answer.errors !== undefined) {
      const errors = Array.isArray(answer.errors) ? answer.errors : [];
      if (errors.length === 0 || !errors.every((e) => isObject(e) && typeof e.message === 'string')) problems.push('`errors` is not a list of errors with a message');
    }
    if (answer.data === undefined || answer.data === null) {
      if (answer.errors === undefined) problems.push('the answer has neither `data` nor `errors`');
      return problems;
    }
    const result = execute({
      schema: this.schema,
      document: parsed.document,
      rootValue: answer.data,
      variableValues: parsed.variables,
      operationName: parsed.operationName,
      fieldResolver: readAnswer,
      typeResolver: typeOfAnswer,
    });
    if ('then' in result) return ['the schema resolved asynchronously'];
    problems.push(...(result.errors ?? []).map((e) => `${e.path?.join('.') ?? '(root)'}: ${e.message}`));
    if (problems.length === 0 && !isDeepStrictEqual(JSON.parse(JSON.stringify(result.data)), answer.data)) {
      problems.push(`the answer is not what the schema makes of it: it has fields the document did not ask for, or values of another type (${firstDifference(answer.data, result.data)})`);
    }
    return problems;
  }

  /** An answer to the document generated from the schema: nullable fields null (`minimal`) or all filled, lists of one. */
  sampleAnswer(requestBody: unknown, mode: SampleMode): unknown {
    const parsed = this.document(requestBody);
    if (typeof parsed === 'string') throw new Error(parsed);
    const value = (type: GraphQLOutputType): unknown => {
      if (!isNonNullType(type) && mode === 'minimal') return null;
      const inner = getNullableType(type);
      if (isListType(inner)) return [value(inner.ofType)];
      const named = getNamedType(inner);
      if (isScalarType(named)) return scalarSamples[named.name] ?? 'string';
      if (isEnumType(named)) return named.getValues()[0]?.value;
      // An object: its fields are filled by this same resolver one level down.
      if (isAbstractType(named)) return { __typename: this.schema.getPossibleTypes(named)[0]?.name };
      return isObjectType(named) ? { __typename: named.name } : {};
    };
    const result = execute({
      schema: this.schema,
      document: parsed.document,
      rootValue: {},
      variableValues: parsed.variables,
      operationName: parsed.operationName,
      fieldResolver: (_source, _args, _context, info) => (info.fieldName === '__typename' ? info.parentType.name : value(info.returnType)),
      typeResolver: typeOfAnswer,
    });
    if ('then' in result) throw new Error('the schema resolved asynchronously');
    if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '));
    return { data: JSON.parse(JSON.stringify(result.data)) as unknown };
  }
}

function firstDifference(given: unknown, expected: unknown, path = 'data'): string {
  if (isObject(given) && isObject(expected)) {
    for (const key of new Set([...Object.keys(given), ...Object.keys(expected)])) {
      if (!(key in expected)) return `${path}.${key} was not asked for`;
      if (!isDeepStrictEqual(given[key], JSON.parse(JSON.stringify(expected[key] ?? null)))) return firstDifference(given[key], expected[key], `${path}.${key}`);
    }
  }
  if (Array.isArray(given) && Array.isArray(expected)) {
    for (const [i, item] of given.entries()) {
      if (!isDeepStrictEqual(item, JSON.parse(JSON.stringify(expected[i] ?? null)))) return firstDifference(item, expected[i], `${path}.${i}`);
    }
  }
  return `${path}: ${JSON.stringify(given)?.slice(0, 60)} reads as ${JSON.stringify(expected)?.slice(0, 60)}`;
}
