/**
 * Example answers copied from a provider's own documentation, for the providers that publish no
 * machine-readable API description (Better Stack, Umami, SendGrid's pages; see each
 * `<service>/documented.ts`). The fake of that provider is held to their shape, and its connector is
 * tested against them as printed.
 */
export interface DocumentedExample {
  /** Method and path as the documentation writes them. */
  endpoint: string;
  /** The documentation page that prints the example. */
  url: string;
  /** Where the text was read when not from the page itself (the page's source, at a commit). */
  source?: string;
  status: number;
  /** The printed JSON, parsed; undefined when the documented answer has no body. */
  body: unknown;
  /** Headers the documentation says the answer carries (it prints no values for them). */
  headerNames?: string[];
  /** Set when the body is less than the page prints: what is missing, and why. */
  partial?: string;
}

type JsonType = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' | 'undefined';

const jsonType = (value: unknown): JsonType => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'object' || type === 'string' || type === 'number' || type === 'boolean' ? type : 'undefined';
};

/**
 * Where `actual` is not shaped like `documented`, one line per difference (empty when alike): the same
 * keys at every level of an object, the same JSON type for each value, arrays compared by their first
 * item when both have one. A null on either side matches any type: the documentation prints null for
 * values that are only sometimes there, and a fake does the same for values it has none of.
 */
export function shapeDifferences(documented: unknown, actual: unknown, at = '$'): string[] {
  const want = jsonType(documented);
  const got = jsonType(actual);
  if (want === 'null' || got === 'null') return [];
  if (want !== got) return [`${at}: documented ${want}, got ${got}`];
  if (want === 'array') {
    const [first] = documented as unknown[];
    const [actualFirst] = actual as unknown[];
    return first === undefined || actualFirst === undefined ? [] : shapeDifferences(first, actualFirst, `${at}[0]`);
  }
  if (want !== 'object') return [];
  const wanted = documented as Record<string, unknown>;
  const have = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of Object.keys(wanted)) {
    if (!(key in have)) differences.push(`${at}.${key}: documented, missing`);
    else differences.push(...shapeDifferences(wanted[key], have[key], `${at}.${key}`));
  }
  for (const key of Object.keys(have)) if (!(key in wanted)) differences.push(`${at}.${key}: not documented`);
  return differences;
}
