import { startSandbox, type Sandbox } from '@dash/sandbox';
import { holdToDescriptions } from '@dash/sandbox/contract';
import { ideaSchema, shippedItemSchema, type Idea } from '@dash/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../errors.ts';
import { sandboxContext, testClock } from '../testing.ts';
import { linear } from './index.ts';
import { categorise, defaultBugWords, defaultIdeaWords, labelHasWord, priorityLevel } from './map.ts';

let sandbox: Sandbox;
const observe = holdToDescriptions();
beforeAll(async () => {
  sandbox = await startSandbox({ observe });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());
// A test that lowers the fake's limit must not leave it low for the next one.
afterEach(() => sandbox.limit('linear', { limit: 2500, windowMs: 3_600_000 }));

const pocketLedger = { teamIds: ['6b0f3a52-1c7e-4d0a-9f1b-2d8e5c4a7b10'] };
const allTeams = { teamIds: [...pocketLedger.teamIds, '9d4c2e71-5a3b-4f8e-b6d2-7c1a0e9f3b24', '2a7e9c13-8b4d-4e6f-a0c5-3f1d7b2e9a46'] };
const rank = (idea: Idea) => (idea.priority === 0 ? 5 : idea.priority);
const shippedSchema = shippedItemSchema.omit({ project: true });
const DAY = 86_400_000;

describe('Linear label words', () => {
  it('matches a word or phrase standing on its own in a label, in any case', () => {
    expect(labelHasWord('Feature Request', 'feature request')).toBe(true);
    expect(labelHasWord('bug: iOS', 'Bug')).toBe(true);
    expect(labelHasWord('Debugger', 'bug')).toBe(false);
    expect(labelHasWord('Errors', 'error')).toBe(false);
  });

  it('calls an issue a bug when its labels say both bug and idea, and leaves out one that says neither', () => {
    expect(categorise(['Feature', 'Regression'], defaultIdeaWords, defaultBugWords)).toBe('bug');
    expect(categorise(['Feedback'], defaultIdeaWords, defaultBugWords)).toBe('idea');
    expect(categorise(['Design', 'Docs'], defaultIdeaWords, defaultBugWords)).toBeUndefined();
  });

  it('reads a priority outside Linear’s five levels (its schema types it Float) as no priority', () => {
    expect([0, 1, 4].map(priorityLevel)).toEqual([0, 1, 4]);
    expect([1.5, -1, 5].map(priorityLevel)).toEqual([0, 0, 0]);
  });
});

describe('Linear connector', () => {
  it('lists a team’s open ideas and bugs, urgent first, no priority last, oldest first within a priority', async () => {
    const ideas = await linear.ideas(sandboxContext(sandbox, 'linear'), { config: pocketLedger, limit: 100 });
    for (const idea of ideas) expect(ideaSchema.parse(idea)).toEqual(idea);
    // The two urgent bugs, the older one first; the one being worked on says so.
    expect(ideas.slice(0, 2).map((i) => [i.title, i.type, i.priority, i.status])).toEqual([
      ['Crash when deleting a category that has split transactions', 'bug', 1, 'open'],
      ['Sync duplicates transactions after an offline edit', 'bug', 1, 'in_progress'],
    ]);
    for (const [a, b] of ideas.slice(1).map((idea, i) => [ideas[i] as Idea, idea] as const)) {
      expect(rank(a) < rank(b) || (rank(a) === rank(b) && a.createdAt <= b.createdAt)).toBe(true);
    }
    expect(ideas.at(-1)?.priority).toBe(0);
    const titles = ideas.map((i) => i.title);
    // Design, docs, infra and unlabelled work is neither an idea nor a bug; finished and canceled work is not open.
    expect(titles).not.toContain('Redesign the onboarding screens');
    expect(titles).not.toContain('Upgrade sync-api to Node 22');
    expect(titles).not.toContain('Reorder categories by drag and drop');
    expect(titles).not.toContain('Fix rounding in yearly totals');
    expect(titles).not.toContain('Android version');
    expect(ideas.find((i) => i.title === 'Dark app icon')).toMatchObject({ type: 'idea', labels: ['Design', 'Idea'], priority: 4 });
    expect(ideas.find((i) => i.title === 'Export transactions to CSV')).toMatchObject({
      type: 'idea',
      id: expect.stringMatching(/^PKT-\d+$/),
      url: expect.stringMatching(/^https:\/\/linear\.app\/demo-founder\/issue\/PKT-\d+\/export-transactions-to-csv$/),
    });
    expect(ideas).toHaveLength(17);
  });

  it('uses the project’s own label words instead of the defaults, and honours the limit', async () => {
    const ideas = await linear.ideas(sandboxContext(sandbox, 'linear'), {
      config: { ...pocketLedger, ideaLabels: ['design'], bugLabels: ['performance'] },
      limit: 3,
    });
    expect(ideas.map((i) => [i.title, i.type])).toEqual([
      ['Sync API answers 500 for accounts with 10k+ transactions', 'bug'],
      ['Redesign the onboarding screens', 'idea'],
      ['Dark app icon', 'idea'],
    ]);
  });

  it('follows Linear’s cursor to the second page when the teams have more than 50 open issues', async () => {
    const ideas = await linear.ideas(sandboxContext(sandbox, 'linear'), { config: allTeams, limit: 250 });
    expect(sandbox.requestsTo('linear', '/graphql')).toHaveLength(2);
    expect(new Set(ideas.map((i) => i.id.split('-')[0]))).toEqual(new Set(['PKT', 'FOX', 'TDL']));
    expect(ideas).toHaveLength(17 + 18 + 17);
  });

  it('lists completed issues as shipped work, newest first, without canceled ones', async () => {
    const now = Date.now();
    const shipped = await linear.shipped(sandboxContext(sandbox, 'linear'), { config: pocketLedger, limit: 20, now });
    for (const item of shipped) expect(shippedSchema.parse(item)).toEqual(item);
    expect(shipped).toHaveLength(9);
    expect(shipped.map((s) => s.shippedAt)).toEqual(shipped.map((s) => s.shippedAt).sort().reverse());
    expect(shipped.map((s) => s.title)).toContain('Fix rounding in yearly totals');
    expect(shipped.map((s) => s.title)).not.toContain('Android version');
    for (const item of shipped) {
      expect(item.source).toBe('issue_tracker');
      expect(Date.parse(item.shippedAt)).toBeGreaterThan(now - 36 * DAY);
      expect(item.url).toMatch(/^https:\/\/linear\.app\/demo-founder\/issue\/PKT-\d+\//);
    }
    const newestTwo = await linear.shipped(sandboxContext(sandbox, 'linear'), { config: allTeams, limit: 2, now });
    expect(newestTwo).toHaveLength(2);
  });

  it('says the key was rejected, with Linear’s reason and without the key', async () => {
    const ctx = sandboxContext(sandbox, 'linear', { credentials: { apiKey: 'lin_api_wrongKey123' } });
    const error = await linear.ideas(ctx, { config: pocketLedger, limit: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth', retryable: false, message: 'Linear rejected the credentials (401): You need to authenticate to access this operation.' });
    expect((error as Error).message).not.toContain('lin_api_wrongKey123');
  });

  it('backs off until Linear’s rate limit resets when it answers 400 RATELIMITED, then succeeds', async () => {
    const start = 1_800_000_000_000;
    const clock = testClock(start);
    sandbox.inject('linear', {
      status: 400,
      headers: { 'X-RateLimit-Requests-Remaining': '0', 'X-RateLimit-Requests-Reset': String(start + 3000) },
      body: { errors: [{ message: 'Rate limit exceeded', extensions: { type: 'ratelimited', code: 'RATELIMITED', statusCode: 429, userError: true } }] },
      times: 1,
    });
    await linear.test(sandboxContext(sandbox, 'linear', { clock }));
    expect(clock.slept).toContain(3000);
    expect(sandbox.requestsTo('linear').map((r) => r.status)).toEqual([400, 200]);
  });

  it('gives up at once with a rate_limited error when Linear’s budget resets later than we wait', async () => {
    sandbox.limit('linear', { limit: 1, windowMs: 3_600_000 });
    await linear.test(sandboxContext(sandbox, 'linear'));
    const error = await linear.test(sandboxContext(sandbox, 'linear')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limited', retryable: true });
    expect((error as ConnectorError).message).toMatch(/^Linear is rate limiting us \(400\): /);
    expect((error as ConnectorError).retryAfterMs).toBeGreaterThan(3_000_000);
    expect(sandbox.requestsTo('linear')).toHaveLength(2);
  });

  it('retries a 5xx a bounded number of times, then fails as a retryable upstream error', async () => {
    sandbox.inject('linear', { status: 502, body: 'Bad gateway' });
    const error = await linear.test(sandboxContext(sandbox, 'linear')).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', retryable: true });
    expect(sandbox.requestsTo('linear')).toHaveLength(3);
  });

  it('turns a body that is not JSON into a clear bad_response error', async () => {
    sandbox.inject('linear', { malformed: true });
    await expect(linear.test(sandboxContext(sandbox, 'linear'))).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Linear answered 200 with something that is not JSON',
    });
  });

  it('reads GraphQL errors even on a 200, and rejects data of an unexpected shape', async () => {
    sandbox.inject('linear', {
      status: 200,
      body: { data: null, errors: [{ message: 'Cannot query field "priority" on type "Issue".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] },
      times: 1,
    });
    await expect(linear.ideas(sandboxContext(sandbox, 'linear'), { config: pocketLedger, limit: 5 })).rejects.toMatchObject({
      kind: 'bad_response',
      message: 'Linear could not answer our query (200): Cannot query field "priority" on type "Issue".',
    });
    sandbox.inject('linear', { status: 200, body: { data: { issues: { nodes: [{ id: 'x' }] } } }, times: 1 });
    await expect(linear.ideas(sandboxContext(sandbox, 'linear'), { config: pocketLedger, limit: 5 })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('checks credentials with the viewer query: ok with the demo key, auth error with another', async () => {
    await expect(linear.test(sandboxContext(sandbox, 'linear'))).resolves.toBeUndefined();
    await expect(linear.test(sandboxContext(sandbox, 'linear', { credentials: { apiKey: 'lin_api_nope' } }))).rejects.toMatchObject({ kind: 'auth' });
    expect(sandbox.requestsTo('linear').map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/graphql', 200],
      ['POST', '/graphql', 401],
    ]);
  });
});
