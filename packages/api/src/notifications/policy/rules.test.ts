import {
  type NotificationPreference,
  type NotificationRule,
  type NotificationSeverity,
  notificationPreferencesSchema,
  notificationRulesSchema,
  notificationSeverities,
  type PayloadCondition,
  policyDecisionSchema,
  type RuleActions,
  type RuleMatch,
  saveNotificationRulesSchema,
  webhookIntegrationSchema,
} from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { conditionHolds, evaluate, type Policy, type PolicyContext, type PolicyEvent, payloadValue } from './rules.ts';

let nextId = 0;
const rule = (match: RuleMatch, actions: RuleActions, extra: Partial<NotificationRule> = {}): NotificationRule => ({
  id: `rule-${++nextId}`,
  name: `Rule ${nextId}`,
  enabled: true,
  match,
  actions,
  stop: false,
  ...extra,
});

const event = (extra: Partial<PolicyEvent> = {}): PolicyEvent => ({
  integration: 'deploy_host',
  type: 'deploy.error',
  severity: 'warning',
  title: 'Deploy of shop failed',
  transition: 'trigger',
  ...extra,
});

/** A policy with the browser and email set up (push has its own tests below: it opens as email does). */
const policy = (rules: NotificationRule[], preferences: NotificationPreference[] = []): Policy => ({ rules, preferences, available: ['browser', 'email'] });
const production: PolicyContext = { projectSlug: 'shop', payload: { deployment: { target: 'production', meta: { attempts: 3 } } } };
const preview: PolicyContext = { projectSlug: 'shop', payload: { deployment: { target: 'preview' } } };

/** The issues of a failed parse as `path: message`. */
function issues(input: unknown): string[] {
  const result = saveNotificationRulesSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('evaluate', () => {
  it('R1: deploy.* with deployment.target eq production raises to error, bypasses quiet hours, and the trace names the rule', () => {
    const critical = rule(
      { type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] },
      { setSeverity: 'error', bypassQuietHours: true },
      { id: 'prod-deploys', name: 'Production deploys are critical' },
    );
    const decision = evaluate(event(), production, policy([critical]));
    expect(decision).toMatchObject({ severity: 'error', kind: 'alert', channels: ['inApp', 'browser', 'email'], bypassQuietHours: true, silenced: false, discarded: false });
    expect(decision.trace).toEqual([
      { stage: 'preference', id: 'default', name: 'Built-in defaults', verdict: 'applied', why: 'an alert at warning: in-app, browser' },
      {
        stage: 'rule',
        id: 'prod-deploys',
        name: 'Production deploys are critical',
        verdict: 'applied',
        why: 'matched deploy.*, deployment.target eq "production": severity error, bypass quiet hours',
      },
      { stage: 'preference', id: 'default', name: 'Built-in defaults', verdict: 'applied', why: 'read again at error: an alert at error: in-app, browser, email' },
    ]);
    expect(policyDecisionSchema.parse(decision)).toEqual(decision);

    const previewDecision = evaluate(event(), preview, policy([critical]));
    expect(previewDecision).toMatchObject({ severity: 'warning', channels: ['inApp', 'browser'], bypassQuietHours: false });
    expect(previewDecision.trace).toHaveLength(1);
  });

  it('R2: a discard rule leaves the event stored as done with no channel at all, even an error', () => {
    const discard = rule({ integrations: ['error_tracker'], projects: ['staging'] }, { discard: true });
    const decision = evaluate(event({ integration: 'error_tracker', type: 'error.issue_created', severity: 'error' }), { projectSlug: 'staging' }, policy([discard]));
    expect(decision).toMatchObject({ channels: [], discarded: true, silenced: false, bypassQuietHours: false });
    expect(decision.trace.at(-1)).toMatchObject({ stage: 'rule', id: discard.id, why: 'matched error_tracker, project staging: discard' });
    expect(evaluate(event({ integration: 'error_tracker', severity: 'error' }), { projectSlug: 'shop' }, policy([discard])).discarded).toBe(false);
    expect(evaluate(event({ integration: 'error_tracker', severity: 'error' }), {}, policy([discard])).discarded).toBe(false);
  });

  it('R3: of two matching rules, the first with stop keeps the second from applying', () => {
    const first = rule({ type: 'deploy.*' }, { setSeverity: 'info' }, { stop: true });
    const second = rule({ type: 'deploy.error' }, { setSeverity: 'error', addChannels: ['email'] });
    const stopped = evaluate(event(), production, policy([first, second]));
    expect(stopped).toMatchObject({ severity: 'info', channels: ['inApp'] });
    expect(stopped.trace.filter((entry) => entry.stage === 'rule').map((entry) => entry.id)).toEqual([first.id]);
    expect(stopped.trace[1]?.why).toMatch(/; stop$/);

    const both = evaluate(event(), production, policy([{ ...first, stop: false }, second]));
    expect(both).toMatchObject({ severity: 'error', channels: ['inApp', 'browser', 'email'] });
    expect(both.trace.filter((entry) => entry.stage === 'rule').map((entry) => entry.id)).toEqual([first.id, second.id]);
  });

  it('applies every matching rule in order, later scalar actions winning, and skips disabled ones', () => {
    const rules = [
      rule({}, { setSeverity: 'error', bypassQuietHours: true, silence: true }),
      rule({}, { setSeverity: 'info' }, { enabled: false }),
      rule({ type: 'deploy.*' }, { setSeverity: 'warning', silence: false }),
      rule({ type: 'pr.*' }, { setSeverity: 'success' }),
    ];
    const decision = evaluate(event({ severity: 'info' }), {}, policy(rules));
    expect(decision).toMatchObject({ severity: 'warning', silenced: false, channels: ['inApp', 'browser'], bypassQuietHours: true });
    expect(decision.trace.filter((entry) => entry.stage === 'rule').map((entry) => entry.id)).toEqual([rules[0]?.id, rules[2]?.id]);
  });

  it("matches a rule's minSeverity against the severity earlier rules left", () => {
    const raise = rule({ type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' });
    const errorsByEmailOnly = rule({ minSeverity: 'error' }, { removeChannels: ['browser'] });
    expect(evaluate(event(), production, policy([raise, errorsByEmailOnly])).channels).toEqual(['inApp', 'email']);
    expect(evaluate(event(), production, policy([errorsByEmailOnly, raise])).channels).toEqual(['inApp', 'browser', 'email']);
    expect(evaluate(event(), preview, policy([raise, errorsByEmailOnly])).channels).toEqual(['inApp', 'browser']);
  });

  it('recomputes channels from the preference at the raised severity, then applies add and remove wherever they sit', () => {
    const merges = event({ integration: 'code_host', type: 'pr.merged', severity: 'info', transition: null, title: 'Merge #12' });
    expect(evaluate(merges, {}, policy([]))).toMatchObject({ kind: 'change', channels: ['inApp'] });
    const raise = rule({ type: 'pr.merged', titleContains: 'HOTFIX' }, { setSeverity: 'error' });
    expect(evaluate({ ...merges, title: 'hotfix: checkout' }, {}, policy([raise]))).toMatchObject({ severity: 'error', kind: 'alert', channels: ['inApp', 'browser', 'email'] });
    const noEmail = rule({}, { removeChannels: ['email'] });
    expect(evaluate({ ...merges, title: 'Hotfix' }, {}, policy([noEmail, raise])).channels).toEqual(['inApp', 'browser']);
    // A preference with a minimum severity is read again at the new severity.
    const warningsUp: NotificationPreference = { integration: 'code_host', type: '*', enabled: true, minSeverity: 'warning', channels: { browser: false, email: true } };
    expect(evaluate(merges, {}, policy([], [warningsUp])).trace[0]).toMatchObject({ verdict: 'below_min_severity' });
    const raised = evaluate({ ...merges, title: 'HOTFIX' }, {}, policy([raise], [warningsUp]));
    expect(raised.channels).toEqual(['inApp', 'email']);
    expect(raised.trace.map((entry) => entry.verdict)).toEqual(['below_min_severity', 'applied', 'applied']);
  });

  it('adds and removes channels, the last rule to name a channel deciding it', () => {
    const merges = event({ integration: 'code_host', type: 'pr.merged', severity: 'info', transition: null });
    const add = rule({ integrations: ['code_host'] }, { addChannels: ['browser', 'email'] });
    const remove = rule({ type: 'pr.*' }, { removeChannels: ['email'] });
    expect(evaluate(merges, {}, policy([add])).channels).toEqual(['inApp', 'browser', 'email']);
    expect(evaluate(merges, {}, policy([add, remove])).channels).toEqual(['inApp', 'browser']);
    expect(evaluate(merges, {}, policy([remove, add])).channels).toEqual(['inApp', 'browser', 'email']);
    // A channel the preference turned off can be added back by a rule, and one it opened removed.
    const off: NotificationPreference = { integration: '*', type: '*', enabled: false, minSeverity: 'info', channels: { browser: true, email: true } };
    expect(evaluate(event({ severity: 'error' }), {}, policy([rule({}, { addChannels: ['email'] })], [off])).channels).toEqual(['inApp', 'email']);
    expect(evaluate(event({ severity: 'error' }), {}, policy([rule({}, { removeChannels: ['browser', 'email'] })])).channels).toEqual(['inApp']);
  });

  it('keeps in-app on whatever the preference says, unless discarded', () => {
    const off: NotificationPreference = { integration: '*', type: '*', enabled: false, minSeverity: 'error', channels: { browser: false, email: false } };
    for (const severity of notificationSeverities) expect(evaluate(event({ severity }), {}, policy([], [off])).channels).toEqual(['inApp']);
  });

  it('silences: in-app only, never bypassing quiet hours, even for an error', () => {
    const silence = rule({ titleContains: 'flaky' }, { silence: true, bypassQuietHours: true });
    const decision = evaluate(event({ severity: 'error', title: 'FLAKY test deploy failed' }), {}, policy([silence]));
    expect(decision).toMatchObject({ severity: 'error', channels: ['inApp'], silenced: true, discarded: false, bypassQuietHours: false });
  });

  it('lets an error through quiet hours without a rule, and a rule can not hold it back', () => {
    expect(evaluate(event({ severity: 'error' }), {}, policy([])).bypassQuietHours).toBe(true);
    expect(evaluate(event({ severity: 'error' }), {}, policy([rule({}, { bypassQuietHours: false })])).bypassQuietHours).toBe(true);
    expect(evaluate(event({ severity: 'warning' }), {}, policy([rule({}, { bypassQuietHours: true }), rule({}, { bypassQuietHours: false })])).bypassQuietHours).toBe(false);
  });

  it('matches integrations, projects and title words (case-insensitive), all of them at once', () => {
    const match = rule({ integrations: ['deploy_host', 'code_host'], projects: ['shop', 'blog'], titleContains: 'SHOP', minSeverity: 'warning' }, { silence: true });
    expect(evaluate(event(), { projectSlug: 'shop' }, policy([match])).silenced).toBe(true);
    expect(evaluate(event({ integration: 'uptime_monitor' }), { projectSlug: 'shop' }, policy([match])).silenced).toBe(false);
    expect(evaluate(event(), { projectSlug: 'other' }, policy([match])).silenced).toBe(false);
    expect(evaluate(event(), { projectSlug: null }, policy([match])).silenced).toBe(false);
    expect(evaluate(event({ title: 'Deploy failed' }), { projectSlug: 'shop' }, policy([match])).silenced).toBe(false);
    expect(evaluate(event({ severity: 'success' }), { projectSlug: 'shop' }, policy([match])).silenced).toBe(false);
  });

  it('matches a 10,000-character title and type in linear time', () => {
    const long = 'a'.repeat(10_000);
    const rules = [
      rule({ type: `${'a*'.repeat(40)}b`, titleContains: `${'a'.repeat(199)}b` }, { discard: true }),
      rule({ type: '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*', titleContains: 'a'.repeat(200) }, { silence: true }),
    ];
    const started = performance.now();
    const decision = evaluate(event({ type: long, title: long }), {}, policy(notificationRulesSchema.parse(rules)));
    expect(performance.now() - started).toBeLessThan(100);
    expect(decision).toMatchObject({ discarded: false, silenced: true });
  });

  it('never opens a channel that cannot deliver, neither by default nor by a preference or a rule, and does not name it', () => {
    const emailAll: NotificationPreference = { integration: '*', type: '*', enabled: true, minSeverity: 'info', channels: { browser: true, email: true } };
    const browserOnly = { available: ['browser'] as const };
    const byDefault = evaluate(event({ severity: 'error' }), production, { ...policy([]), ...browserOnly });
    expect(byDefault.channels).toEqual(['inApp', 'browser']);
    expect(byDefault.trace[0]?.why).toBe('an alert at error: in-app, browser');
    const asked = evaluate(event(), production, { ...policy([rule({}, { addChannels: ['email'] })], [emailAll]), ...browserOnly });
    expect(asked.channels).toEqual(['inApp', 'browser']);
    // With both available, the same policy opens email.
    expect(evaluate(event(), production, policy([rule({}, { addChannels: ['email'] })], [emailAll])).channels).toEqual(['inApp', 'browser', 'email']);
  });

  it('opens push as email opens (a preference saved before push existed, and the defaults), unless a switch or a rule says otherwise', () => {
    const every = { available: ['browser', 'email', 'push'] as const };
    // Without a preference: browser for a warning, email and push for an error.
    expect(evaluate(event({ severity: 'warning' }), production, { ...policy([]), ...every }).channels).toEqual(['inApp', 'browser']);
    expect(evaluate(event({ severity: 'error' }), production, { ...policy([]), ...every }).channels).toEqual(['inApp', 'browser', 'email', 'push']);
    // A preference without a push switch follows its email switch; one with it, its own.
    const old: NotificationPreference = { integration: '*', type: '*', enabled: true, minSeverity: 'info', channels: { browser: true, email: true } };
    expect(evaluate(event(), production, { ...policy([], [old]), ...every }).channels).toEqual(['inApp', 'browser', 'email', 'push']);
    const pushOnly: NotificationPreference = { ...old, channels: { browser: false, email: false, push: true } };
    expect(evaluate(event(), production, { ...policy([], [pushOnly]), ...every }).channels).toEqual(['inApp', 'push']);
    // A rule adds or removes it like any channel; with no device subscribed, nothing opens it.
    expect(evaluate(event(), production, { ...policy([rule({}, { removeChannels: ['push'] })], [old]), ...every }).channels).toEqual(['inApp', 'browser', 'email']);
    expect(evaluate(event(), production, policy([rule({}, { addChannels: ['push'] })], [old])).channels).toEqual(['inApp', 'browser', 'email']);
  });

  it('does not change its inputs', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value && typeof value === 'object') {
        for (const child of Object.values(value)) deepFreeze(child);
        Object.freeze(value);
      }
      return value;
    };
    const rules = deepFreeze([rule({ type: 'deploy.*' }, { setSeverity: 'error', addChannels: ['email'], removeChannels: ['browser'] })]);
    const input = deepFreeze({ event: event(), context: production });
    expect(() => evaluate(input.event, input.context, policy(rules))).not.toThrow();
  });
});

describe('payload conditions', () => {
  const payload = {
    deployment: { target: 'production', meta: { attempts: 3, branch: 'main', empty: null } },
    labels: ['urgent', 'backend'],
    commits: [{ id: 'abc' }],
  };
  const holds = (condition: PayloadCondition) => conditionHolds(condition, payload);

  it('compares without coercion', () => {
    expect(holds({ path: 'deployment.target', op: 'eq', value: 'production' })).toBe(true);
    expect(holds({ path: 'deployment.meta.attempts', op: 'eq', value: '3' })).toBe(false);
    expect(holds({ path: 'deployment.target', op: 'neq', value: 'preview' })).toBe(true);
    expect(holds({ path: 'deployment.missing', op: 'neq', value: 'preview' })).toBe(true);
    expect(holds({ path: 'deployment.target', op: 'in', value: ['preview', 'production'] })).toBe(true);
    expect(holds({ path: 'deployment.target', op: 'in', value: ['preview'] })).toBe(false);
    expect(holds({ path: 'deployment.meta.branch', op: 'contains', value: 'ai' })).toBe(true);
    expect(holds({ path: 'deployment.meta.branch', op: 'contains', value: 'AI' })).toBe(false);
    expect(holds({ path: 'labels', op: 'contains', value: 'urgent' })).toBe(true);
    expect(holds({ path: 'labels', op: 'contains', value: 'urg' })).toBe(false);
    expect(holds({ path: 'deployment.meta.attempts', op: 'gt', value: 2 })).toBe(true);
    expect(holds({ path: 'deployment.meta.attempts', op: 'lt', value: 3 })).toBe(false);
    expect(holds({ path: 'deployment.target', op: 'gt', value: 0 })).toBe(false);
    expect(holds({ path: 'commits.0.id', op: 'eq', value: 'abc' })).toBe(true);
    expect(holds({ path: 'deployment.meta.empty', op: 'exists' })).toBe(true);
    expect(holds({ path: 'deployment.meta.empty', op: 'eq', value: null })).toBe(true);
    expect(holds({ path: 'deployment.nope', op: 'exists' })).toBe(false);
    expect(holds({ path: 'deployment.nope', op: 'exists', value: false })).toBe(true);
    expect(conditionHolds({ path: 'a', op: 'exists' }, undefined)).toBe(false);
  });

  it('never follows a prototype, even for a rule that skipped validation', () => {
    const polluted = JSON.parse('{"__proto__": {"admin": true}, "a": {"b": 1}}') as unknown;
    expect(payloadValue(polluted, '__proto__.admin')).toBeUndefined();
    expect(payloadValue(payload, 'constructor')).toBeUndefined();
    expect(payloadValue(payload, 'constructor.name')).toBeUndefined();
    expect(payloadValue(payload, 'deployment.constructor.prototype')).toBeUndefined();
    expect(payloadValue(payload, 'toString')).toBeUndefined();
    expect(payloadValue(payload, 'labels.map')).toBeUndefined();
    expect(payloadValue(polluted, 'a.b')).toBe(1);
    expect(conditionHolds({ path: 'constructor', op: 'exists' }, {})).toBe(false);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('notificationRulesSchema', () => {
  const valid = rule({ type: 'deploy.*', payload: [{ path: 'deployment.target', op: 'eq', value: 'production' }] }, { setSeverity: 'error' }, { id: 'r' });

  it('accepts a valid rule list and keeps it the same through a JSON round trip', () => {
    expect(issues({ rules: [valid] })).toEqual([]);
    expect(notificationRulesSchema.parse(JSON.parse(JSON.stringify([valid])))).toEqual([valid]);
  });

  it('R5: a bad op, a path with regex characters and a 101st rule are errors naming the field', () => {
    const withCondition = (condition: unknown) => ({ rules: [{ ...valid, match: { payload: [condition] } }] });
    expect(issues(withCondition({ path: 'deployment.target', op: 'matches', value: 'prod.*' }))).toEqual([
      'rules.0.match.payload.0.op: op is one of eq, neq, in, contains, gt, lt, exists',
    ]);
    expect(issues(withCondition({ path: 'deployment.(target|env)', op: 'eq', value: 'x' }))).toEqual([
      'rules.0.match.payload.0.path: path is a dot path such as deployment.target: letters, digits, _ and - between dots, no patterns',
    ]);
    expect(issues(withCondition({ path: 'deployment.*', op: 'exists' }))).toEqual([expect.stringMatching(/^rules\.0\.match\.payload\.0\.path: /)]);
    expect(issues({ rules: Array.from({ length: 101 }, (_, index) => ({ ...valid, id: `r${index}` })) })).toEqual(['rules: rules has at most 100 entries']);
    expect(issues({ rules: Array.from({ length: 100 }, (_, index) => ({ ...valid, id: `r${index}` })) })).toEqual([]);
  });

  it('names the field of other bad input', () => {
    expect(
      issues({
        rules: [
          { ...valid, name: '' },
          { ...valid, id: 'r2', match: { type: 'deploy.[a-z]+', titleContains: 'x'.repeat(201) } },
          { ...valid, id: 'r3', match: { payload: [{ path: 'a.b.c.d.e.f.g.h.i', op: 'gt', value: 'ten' }] } },
          { ...valid, id: 'r4', actions: { addChannels: ['email'], removeChannels: ['email'] } },
          { ...valid, id: 'r5', actions: { addChannels: ['sms'] } },
          { ...valid, id: 'r6', match: { payload: Array.from({ length: 11 }, () => ({ path: 'a', op: 'exists' })) } },
          { ...valid, id: 'r7', match: { integrations: ['slack'] }, extra: true },
        ],
      }).map((issue) => issue.split(':')[0]),
    ).toEqual([
      'rules.0.name',
      'rules.1.match.type',
      'rules.1.match.titleContains',
      'rules.2.match.payload.0.path',
      'rules.2.match.payload.0.value',
      'rules.3.actions.removeChannels',
      'rules.4.actions.addChannels.0',
      'rules.5.match.payload',
      'rules.6.match.integrations.0',
      'rules.6',
    ]);
    expect(issues({ rules: [valid, { ...valid, name: 'Another' }] })).toEqual(['rules.1.id: id r is used by an earlier rule']);
  });

  it('refuses prototype segments in a payload path', () => {
    for (const path of ['__proto__', 'a.__proto__.b', 'constructor.prototype', 'prototype']) {
      expect(issues({ rules: [{ ...valid, match: { payload: [{ path, op: 'exists' }] } }] })).toEqual([
        'rules.0.match.payload.0.path: path may not use __proto__, constructor or prototype',
      ]);
    }
  });
});

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const maybe = <T>(chance: number, make: () => T): T | undefined => (next() < chance ? make() : undefined);
  return { next, pick, maybe };
}

describe('R6: evaluate is deterministic and survives storage', () => {
  it('gives the same decision twice, and after a JSON round trip of the policy, for 1,000 random events', () => {
    const random = seeded(20_260_329);
    const integrations = webhookIntegrationSchema.options;
    const types = ['pr.merged', 'pr.opened', 'deploy.error', 'deploy.succeeded', 'error.issue_created', 'error.issue_resolved', 'issue.created', 'monitor.down', 'monitor.up'];
    const globs = [...types, '*', 'deploy.*', 'error.*', '*.created', 'pr.*', 'monitor.*', '*.*', 'de*y.*'];
    const projects = ['shop', 'blog', 'api'];
    const targets = ['production', 'preview', 'staging'];
    const severities: readonly NotificationSeverity[] = notificationSeverities;
    const channels = ['browser', 'email'] as const;
    const subset = <T>(items: readonly T[]) => items.filter(() => random.next() < 0.5);
    const condition = (): PayloadCondition =>
      random.pick<() => PayloadCondition>([
        () => ({ path: 'deployment.target', op: random.pick(['eq', 'neq'] as const), value: random.pick(targets) }),
        () => ({ path: 'deployment.target', op: 'in', value: [random.pick(targets), random.pick(targets)] }),
        () => ({ path: 'labels', op: 'contains', value: random.pick(['urgent', 'low']) }),
        () => ({ path: 'attempts', op: random.pick(['gt', 'lt'] as const), value: Math.floor(random.next() * 5) }),
        () => ({ path: random.pick(['deployment', 'labels', 'missing.deep']), op: 'exists', value: random.maybe(0.5, () => random.next() < 0.5) }),
      ])();

    const rules = Array.from({ length: 20 }, (_, index): NotificationRule => ({
      id: `r${index}`,
      name: `Random rule ${index}`,
      enabled: random.next() < 0.9,
      stop: random.next() < 0.1,
      match: JSON.parse(
        JSON.stringify({
          integrations: random.maybe(0.3, () => [random.pick(integrations)]),
          type: random.maybe(0.6, () => random.pick(globs)),
          minSeverity: random.maybe(0.3, () => random.pick(severities)),
          projects: random.maybe(0.2, () => [random.pick(projects)]),
          titleContains: random.maybe(0.2, () => random.pick(['fail', 'SHOP', 'hotfix'])),
          payload: random.maybe(0.4, () => Array.from({ length: 1 + Math.floor(random.next() * 3) }, condition)),
        }),
      ) as RuleMatch,
      actions: JSON.parse(
        JSON.stringify({
          setSeverity: random.maybe(0.4, () => random.pick(severities)),
          addChannels: random.maybe(0.3, () => [random.pick(channels)]),
          bypassQuietHours: random.maybe(0.2, () => random.next() < 0.7),
          silence: random.maybe(0.2, () => random.next() < 0.7),
          discard: random.maybe(0.15, () => random.next() < 0.7),
        }),
      ) as RuleActions,
    }));
    const preferences: NotificationPreference[] = [];
    for (let index = 0; index < 8; index++) {
      const candidate: NotificationPreference = {
        integration: random.next() < 0.4 ? '*' : random.pick(integrations),
        type: random.pick(globs),
        enabled: random.next() < 0.8,
        minSeverity: random.pick(severities),
        channels: { browser: random.next() < 0.5, email: random.next() < 0.5 },
      };
      if (!preferences.some((preference) => preference.integration === candidate.integration && preference.type === candidate.type)) preferences.push(candidate);
    }
    const live = policy(notificationRulesSchema.parse(rules), notificationPreferencesSchema.parse(preferences));
    const stored = policy(
      notificationRulesSchema.parse(JSON.parse(JSON.stringify(live.rules))),
      notificationPreferencesSchema.parse(JSON.parse(JSON.stringify(live.preferences))),
    );

    const seen = { discarded: 0, silenced: 0, bypass: 0, raised: 0, rulesApplied: 0 };
    for (let index = 0; index < 1000; index++) {
      const incoming: PolicyEvent = {
        integration: random.pick(integrations),
        type: random.pick(types),
        severity: random.pick(severities),
        title: `${random.pick(['Deploy', 'Hotfix', 'PR'])} ${random.pick(['failed', 'merged', 'created'])} for ${random.pick(['shop', 'blog'])}`,
        transition: random.pick(['trigger', 'resolve', null, undefined] as const),
      };
      const context: PolicyContext = {
        projectSlug: random.pick([...projects, null]),
        payload: random.maybe(0.8, () => ({ deployment: { target: random.pick(targets) }, labels: subset(['urgent', 'low']), attempts: Math.floor(random.next() * 5) })),
      };
      const decision = evaluate(incoming, context, live);
      expect(evaluate(incoming, context, live)).toEqual(decision);
      expect(evaluate(JSON.parse(JSON.stringify(incoming)) as PolicyEvent, JSON.parse(JSON.stringify(context)) as PolicyContext, stored)).toEqual(decision);
      expect(policyDecisionSchema.parse(decision)).toEqual(decision);

      // The invariants every decision keeps.
      if (decision.discarded) expect(decision.channels).toEqual([]);
      else if (decision.silenced) expect(decision.channels).toEqual(['inApp']);
      else expect(decision.channels[0]).toBe('inApp');
      if (decision.bypassQuietHours) expect(decision.channels.length).toBeGreaterThan(1);
      const applied = decision.trace.filter((entry) => entry.stage === 'rule').map((entry) => Number(entry.id.slice(1)));
      expect(applied).toEqual([...applied].sort((a, b) => a - b));
      expect(decision.trace[0]?.stage).toBe('preference');

      seen.discarded += Number(decision.discarded);
      seen.silenced += Number(decision.silenced);
      seen.bypass += Number(decision.bypassQuietHours);
      seen.raised += Number(decision.severity !== incoming.severity);
      seen.rulesApplied += applied.length;
    }
    // The random policy exercised every outcome, so the agreement above means something.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(10);
  });
});
