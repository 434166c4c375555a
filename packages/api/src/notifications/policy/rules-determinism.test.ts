import { type NotificationPreference, type NotificationRule, type NotificationSeverity, notificationPreferencesSchema, notificationRulesSchema, notificationSeverities, type PayloadCondition, policyDecisionSchema, type RuleActions, type RuleMatch, webhookIntegrationSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { evaluate, type PolicyContext, type PolicyEvent } from './rules.ts';
import { policy } from './rules-testing.ts';

// R6: evaluate gives the same decision twice and after a JSON round trip of the policy, for 1,000 seeded random events.

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
