import type { SandboxReply, SandboxRequest } from '../service.ts';
import type { Issue } from './issues.ts';
import { badRequest } from './replies.ts';

/**
 * Sentry's issue search: the `query` it matches issues by, its sort keys, and one page of its cursor pagination.
 */

const MAX_HITS = 1000;

/** Sort keys of the issue search, each a number the cursor carries (`value:offset:is_prev`). */
const scoreOf: Record<string, (issue: Issue) => number> = {
  date: (issue) => issue.lastSeenMs,
  new: (issue) => issue.firstSeenMs,
  freq: (issue) => issue.countN,
  user: (issue) => issue.body.userCount,
};

/** The search's `query`: `is:` status terms, `level:`, and free text on the title. An absent query means `is:unresolved`. */
export function matchesQuery(issue: Issue, query: string): boolean {
  for (const term of query.split(/\s+/).filter(Boolean)) {
    const [key, value] = term.includes(':') ? [term.slice(0, term.indexOf(':')), term.slice(term.indexOf(':') + 1)] : ['', term];
    if (key === 'is') {
      const status = value === 'archived' ? 'ignored' : value;
      if (['unresolved', 'resolved', 'ignored'].includes(status) && issue.body.status !== status) return false;
    } else if (key === 'level') {
      if (issue.body.level !== value) return false;
    } else if (key === '' && !issue.body.title.toLowerCase().includes(term.toLowerCase())) return false;
  }
  return true;
}

/**
 * One page of Sentry's cursor pagination: `Link` with `previous` and `next`, each marked
 * `results="true"` or `"false"`, and `X-Hits`, the total the search matched.
 */
export function issuePage(request: SandboxRequest, matching: Issue[]): SandboxReply {
  const { query } = request;
  const sort = query.get('sort') || 'date';
  const score = scoreOf[sort];
  if (!score) return badRequest(`Invalid sort: ${sort}`);
  const sorted = [...matching].sort((a, b) => score(b) - score(a) || a.body.id.localeCompare(b.body.id));
  const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? query.get('per_page') ?? 100) || 100));

  const firstAtOrBelow = (value: number) => {
    const index = sorted.findIndex((issue) => score(issue) <= value);
    return index === -1 ? sorted.length : index;
  };
  let start = 0;
  const raw = query.get('cursor');
  if (raw) {
    const match = /^(-?\d+(?:\.\d+)?):(\d+):([01])$/.exec(raw);
    if (!match) return badRequest('Invalid cursor parameter.');
    const at = firstAtOrBelow(Number(match[1])) + Number(match[2]);
    start = match[3] === '1' ? Math.max(0, at - limit) : at;
  }
  const page = sorted.slice(start, start + limit);
  const end = start + page.length;
  const first = page[0];
  const last = page.at(-1);
  const firstScore = first ? score(first) : 0;
  const lastScore = last ? score(last) : 0;
  const prevCursor = `${firstScore}:${start - firstAtOrBelow(firstScore)}:1`;
  const nextCursor = `${lastScore}:${end - firstAtOrBelow(lastScore)}:0`;

  const url = new URL(request.path, request.origin);
  for (const [name, value] of query) if (name !== 'cursor') url.searchParams.append(name, value);
  const base = url.search ? url.toString() : `${url.toString()}?`;
  const link = (rel: string, cursor: string, results: boolean) => `<${base}&cursor=${cursor}>; rel="${rel}"; results="${results}"; cursor="${cursor}"`;
  return {
    headers: {
      link: [link('previous', prevCursor, start > 0), link('next', nextCursor, end < sorted.length)].join(', '),
      'x-hits': String(Math.min(sorted.length, MAX_HITS)),
      'x-max-hits': String(MAX_HITS),
    },
    body: page.map((issue) => issue.body),
  };
}
