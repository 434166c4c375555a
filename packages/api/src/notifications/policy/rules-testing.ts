import { type NotificationPreference, type NotificationRule, type RuleActions, type RuleMatch, saveNotificationRulesSchema } from '@dash/contracts';
import type { Policy, PolicyContext, PolicyEvent } from './rules.ts';

// What the rules' files share (rules-evaluate, -payload, -schema, -determinism): a rule, an event, a policy with the
// browser and email set up, two deployment contexts, and a parse's issues. The rule counter only makes ids distinct.

let nextId = 0;
export const rule = (match: RuleMatch, actions: RuleActions, extra: Partial<NotificationRule> = {}): NotificationRule => ({
  id: `rule-${++nextId}`,
  name: `Rule ${nextId}`,
  enabled: true,
  match,
  actions,
  stop: false,
  ...extra,
});

export const event = (extra: Partial<PolicyEvent> = {}): PolicyEvent => ({
  integration: 'deploy_host',
  type: 'deploy.error',
  severity: 'warning',
  title: 'Deploy of shop failed',
  transition: 'trigger',
  ...extra,
});

/** A policy with the browser and email set up (push has its own tests below: it opens as email does). */
export const policy = (rules: NotificationRule[], preferences: NotificationPreference[] = []): Policy => ({ rules, preferences, available: ['browser', 'email'] });
export const production: PolicyContext = { projectSlug: 'shop', payload: { deployment: { target: 'production', meta: { attempts: 3 } } } };
export const preview: PolicyContext = { projectSlug: 'shop', payload: { deployment: { target: 'preview' } } };

/** The issues of a failed parse as `path: message`. */
export function issues(input: unknown): string[] {
  const result = saveNotificationRulesSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}
