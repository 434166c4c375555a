import { type NotificationPreference, notificationRulesSchema, notificationSeverities, policyDecisionSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { evaluate } from './rules.ts';
import { rule, event, policy, production, preview } from './rules-testing.ts';

// evaluate: a notification rule's match and actions over an event, with the preferences, into a decision and its trace.

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
