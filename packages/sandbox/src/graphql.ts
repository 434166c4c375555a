/**
 * Just enough GraphQL for the fakes that speak it (Linear, Open Collective): one operation per
 * document, fields with aliases and arguments (literals or `$variables`), nested selections,
 * `__typename`. No fragments or directives: a document using them is answered with a syntax error,
 * as a stricter server would.
 */

export interface Field {
  name: string;
  /** The key the answer uses: the alias when there is one. */
  key: string;
  args: Record<string, unknown>;
  selections: Field[] | undefined;
}

export interface Operation {
  type: 'query' | 'mutation';
  name: string | undefined;
  selections: Field[];
}

/** A GraphQL error as Linear words it, with the code in `extensions`. */
export class GraphQLFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly type: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }
}

type Token = { kind: 'punct' | 'name' | 'number' | 'string'; value: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|,|#[^\n]*|(\.\.\.|[{}()[\]:$!=@])|([_A-Za-z][_0-9A-Za-z]*)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|("(?:[^"\\]|\\.)*")/y;
  let at = 0;
  while (at < source.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (!match) throw new GraphQLFailure(`Syntax Error: Unexpected character: "${source[at] ?? ''}".`, 'GRAPHQL_PARSE_FAILED', 'graphql error');
    at = pattern.lastIndex;
    const [, punct, name, number, string] = match;
    if (punct) tokens.push({ kind: 'punct', value: punct });
    else if (name) tokens.push({ kind: 'name', value: name });
    else if (number) tokens.push({ kind: 'number', value: number });
    else if (string) tokens.push({ kind: 'string', value: JSON.parse(string) as string });
  }
  return tokens;
}

/** Parses the document's first operation, with its arguments' variables already filled in. */
export function parseOperation(source: string, variables: Record<string, unknown>): Operation {
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i];
  const syntax = (expected: string): never => {
    const got = peek();
    throw new GraphQLFailure(`Syntax Error: Expected ${expected}, found ${got ? `"${got.value}"` : '<EOF>'}.`, 'GRAPHQL_PARSE_FAILED', 'graphql error');
  };
  const take = (value?: string): Token => {
    const token = peek();
    if (!token || (value !== undefined && token.value !== value)) return syntax(value ? `"${value}"` : 'a token');
    i++;
    return token;
  };
  const takeName = (): string => {
    const token = peek();
    if (token?.kind !== 'name') return syntax('Name');
    i++;
    return token.value;
  };
  const is = (value: string) => peek()?.value === value && peek()?.kind === 'punct';

  const declared = new Map<string, unknown>();

  function skipType() {
    if (is('[')) {
      take('[');
      skipType();
      take(']');
    } else takeName();
    if (is('!')) take('!');
  }

  function value(constant: boolean): unknown {
    const token = peek();
    if (!token) return syntax('Value');
    if (token.kind === 'punct' && token.value === '$' && !constant) {
      take('$');
      const name = takeName();
      if (!declared.has(name)) throw new GraphQLFailure(`Variable "$${name}" is not defined.`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
      return Object.hasOwn(variables, name) ? variables[name] : declared.get(name);
    }
    if (token.kind === 'punct' && token.value === '[') {
      take('[');
      const list: unknown[] = [];
      while (!is(']')) list.push(value(constant));
      take(']');
      return list;
    }
    if (token.kind === 'punct' && token.value === '{') {
      take('{');
      const object: Record<string, unknown> = {};
      while (!is('}')) {
        const key = takeName();
        take(':');
        object[key] = value(constant);
      }
      take('}');
      return object;
    }
    i++;
    if (token.kind === 'number') return Number(token.value);
    if (token.kind === 'string') return token.value;
    if (token.kind === 'name') return token.value === 'true' ? true : token.value === 'false' ? false : token.value === 'null' ? null : token.value;
    return syntax('Value');
  }

  function selectionSet(): Field[] {
    take('{');
    const fields: Field[] = [];
    while (!is('}')) {
      if (is('...')) throw new GraphQLFailure('Fragments are not supported by this server.', 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
      let name = takeName();
      const key = name;
      if (is(':')) {
        take(':');
        name = takeName();
      }
      const args: Record<string, unknown> = {};
      if (is('(')) {
        take('(');
        while (!is(')')) {
          const arg = takeName();
          take(':');
          args[arg] = value(false);
        }
        take(')');
      }
      fields.push({ name, key, args, selections: is('{') ? selectionSet() : undefined });
    }
    take('}');
    return fields;
  }

  let type: Operation['type'] = 'query';
  let name: string | undefined;
  if (peek()?.kind === 'name') {
    const keyword = takeName();
    if (keyword !== 'query' && keyword !== 'mutation') return syntax('"query" or "mutation"');
    type = keyword;
    if (peek()?.kind === 'name') name = takeName();
    if (is('(')) {
      take('(');
      while (!is(')')) {
        take('$');
        const variable = takeName();
        take(':');
        skipType();
        let fallback: unknown;
        if (is('=')) {
          take('=');
          fallback = value(true);
        }
        declared.set(variable, fallback);
      }
      take(')');
    }
  }
  const selections = selectionSet();
  return { type, name, selections };
}

/** A value from a query, as text: strings as they are, anything else as JSON. */
export const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const comparators = new Set(['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'null', 'eqIgnoreCase', 'neqIgnoreCase', 'containsIgnoreCase', 'startsWith']);

function compare(value: unknown, op: string, operand: unknown): boolean {
  const text = (v: unknown) => asText(v).toLowerCase();
  switch (op) {
    case 'eq':
      return value === operand;
    case 'neq':
      return value !== operand;
    case 'in':
      return Array.isArray(operand) && operand.includes(value);
    case 'nin':
      return Array.isArray(operand) && !operand.includes(value);
    case 'null':
      return (value === null || value === undefined) === operand;
    case 'eqIgnoreCase':
      return value !== null && text(value) === text(operand);
    case 'neqIgnoreCase':
      return value === null || text(value) !== text(operand);
    case 'containsIgnoreCase':
      return value !== null && text(value).includes(text(operand));
    case 'startsWith':
      return typeof value === 'string' && value.startsWith(asText(operand));
    default: {
      // Dates are ISO strings in UTC, numbers are numbers: both order as they compare.
      if (value === null || value === undefined) return false;
      const [a, b] = typeof value === 'number' ? [value, Number(operand)] : [asText(value), asText(operand)];
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
    }
  }
}

/**
 * Linear's filter objects (`IssueFilter` and friends): fields nest, comparators (`eq`, `in`, `gte`…)
 * test a value, `and`/`or` combine, `some`/`every` test a connection's nodes.
 */
export function matchesFilter(value: unknown, filter: unknown, type: string): boolean {
  if (filter === null || filter === undefined) return true;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw invalidFilter(type, asText(filter));
  for (const [key, condition] of Object.entries(filter as Record<string, unknown>)) {
    if (key === 'and' || key === 'or') {
      const parts = Array.isArray(condition) ? condition : [];
      const results = parts.map((part) => matchesFilter(value, part, type));
      if (key === 'and' ? !results.every(Boolean) : !results.some(Boolean)) return false;
    } else if (comparators.has(key)) {
      if (!compare(value, key, condition)) return false;
    } else if ((key === 'some' || key === 'every') && isConnection(value)) {
      const nodes = value.nodes;
      const test = (node: unknown) => matchesFilter(node, condition, type);
      if (key === 'some' ? !nodes.some(test) : !nodes.every(test)) return false;
    } else if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) {
      const field = (value as Record<string, unknown>)[key];
      if (field === null && typeof condition === 'object' && condition !== null && !('null' in condition)) return false;
      if (!matchesFilter(field, condition, key)) return false;
    } else {
      throw invalidFilter(type, key);
    }
  }
  return true;
}

function isConnection(value: unknown): value is { nodes: unknown[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { nodes?: unknown }).nodes);
}

function invalidFilter(type: string, key: string) {
  return new GraphQLFailure(`Field "${key}" is not defined by type "${type}Filter".`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
}

/** Picks the selected fields out of a resolved value, failing like GraphQL on a field the type lacks. */
export function project(value: unknown, selections: Field[] | undefined, typeName: string): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((item) => project(item, selections, typeName));
  if (typeof value !== 'object') {
    if (selections) throw new GraphQLFailure(`Field must not have a selection since type "${typeName}" has no subfields.`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
    return value;
  }
  const record = value as Record<string, unknown>;
  const ownType = typeof record.__typename === 'string' ? record.__typename : typeName;
  if (!selections) throw new GraphQLFailure(`Field of type "${ownType}" must have a selection of subfields.`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
  const out: Record<string, unknown> = {};
  for (const field of selections) {
    if (field.name === '__typename') {
      out[field.key] = ownType;
      continue;
    }
    if (!Object.hasOwn(record, field.name)) {
      throw new GraphQLFailure(`Cannot query field "${field.name}" on type "${ownType}".`, 'GRAPHQL_VALIDATION_FAILED', 'graphql error');
    }
    out[field.key] = project(record[field.name], field.selections, field.name);
  }
  return out;
}
