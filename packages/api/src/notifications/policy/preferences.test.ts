import { type NotificationPreference, notificationPreferencesSchema, saveNotificationPreferencesSchema, typeGlobSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { eventKind, globMatches, preferenceChannels, preferenceFor } from './preferences.ts';

const pref = (integration: NotificationPreference['integration'], type: string, extra: Partial<NotificationPreference> = {}): NotificationPreference => ({
  integration,
  type,
  enabled: true,
  minSeverity: 'info',
  channels: { browser: true, email: true },
  ...extra,
});

describe('globMatches', () => {
  it('matches a type without a star exactly', () => {
    expect(globMatches('deploy.error', 'deploy.error')).toBe(true);
    expect(globMatches('deploy.error', 'deploy.errors')).toBe(false);
    expect(globMatches('deploy.error', 'Deploy.error')).toBe(false);
  });

  it('takes one or more characters for a star, dots included', () => {
    expect(globMatches('deploy.*', 'deploy.error')).toBe(true);
    expect(globMatches('deploy.*', 'deploy.')).toBe(false);
    expect(globMatches('deploy.*', 'deploy')).toBe(false);
    expect(globMatches('error.*', 'error.issue.created')).toBe(true);
    expect(globMatches('*', 'x')).toBe(true);
    expect(globMatches('*.created', 'issue.created')).toBe(true);
    expect(globMatches('*.created', '.created')).toBe(false);
    expect(globMatches('*.*', 'pr.merged')).toBe(true);
    expect(globMatches('*.*', 'merged')).toBe(false);
    expect(globMatches('a*a', 'aa')).toBe(false);
    expect(globMatches('a*a', 'aba')).toBe(true);
    expect(globMatches('de*y.*r', 'deploy.error')).toBe(true);
    expect(globMatches('de*y.*r', 'deploy.errors')).toBe(false);
  });

  it('treats every other character literally', () => {
    expect(globMatches('deploy.*', 'deployXerror')).toBe(false);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('(a|b)*', '(a|b)c')).toBe(true);
    expect(globMatches('(a|b)*', 'ac')).toBe(false);
  });

  it('stays fast on a 10,000-character type against a glob made to backtrack', () => {
    const type = 'a'.repeat(10_000);
    const glob = `${'a*'.repeat(40)}b`;
    const started = performance.now();
    expect(globMatches(glob, type)).toBe(false);
    expect(globMatches('*a*a*a*a*a*a*a*a*a*a*a*', type)).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('typeGlobSchema', () => {
  it('accepts types and globs, refuses regex characters and **', () => {
    expect(typeGlobSchema.safeParse('error.issue_created').success).toBe(true);
    expect(typeGlobSchema.safeParse('*.created').success).toBe(true);
    expect(typeGlobSchema.safeParse('deploy.(error|failure)').success).toBe(false);
    expect(typeGlobSchema.safeParse('deploy.**').success).toBe(false);
    expect(typeGlobSchema.safeParse('').success).toBe(false);
  });
});

describe('eventKind', () => {
  it('calls trigger, resolve, warning and error alerts, the rest changes', () => {
    expect(eventKind('trigger', 'info')).toBe('alert');
    expect(eventKind('resolve', 'success')).toBe('alert');
    expect(eventKind(null, 'warning')).toBe('alert');
    expect(eventKind(undefined, 'error')).toBe('alert');
    expect(eventKind(null, 'info')).toBe('change');
    expect(eventKind(undefined, 'success')).toBe('change');
  });
});

describe('preferenceFor', () => {
  it('P1: (error_tracker, error.issue_created) with email off wins over (error_tracker, *) with email on', () => {
    const specific = pref('error_tracker', 'error.issue_created', { channels: { browser: true, email: false } });
    const wildcard = pref('error_tracker', '*');
    for (const preferences of [
      [wildcard, specific],
      [specific, wildcard],
    ]) {
      const found = preferenceFor(preferences, 'error_tracker', 'error.issue_created');
      expect(found).toBe(specific);
      expect(preferenceChannels(found, 'error', 'alert').channels).toEqual(['browser']);
    }
    expect(preferenceFor([wildcard, specific], 'error_tracker', 'error.issue_resolved')).toBe(wildcard);
  });

  it('goes exact → longest glob → integration * → * with a type glob → * *', () => {
    const all = pref('*', '*');
    const anyDeployError = pref('*', 'deploy.error');
    const anyDeploy = pref('*', 'deploy.*');
    const vercelAll = pref('deploy_host', '*');
    const vercelDeploy = pref('deploy_host', 'deploy.*');
    const vercelDeployE = pref('deploy_host', 'deploy.e*');
    const vercelExact = pref('deploy_host', 'deploy.error');
    const everything = [all, anyDeployError, anyDeploy, vercelAll, vercelDeploy, vercelDeployE, vercelExact];
    const without = (...gone: NotificationPreference[]) => everything.filter((preference) => !gone.includes(preference));
    const find = (preferences: NotificationPreference[]) => preferenceFor(preferences, 'deploy_host', 'deploy.error');
    expect(find(everything)).toBe(vercelExact);
    expect(find(without(vercelExact))).toBe(vercelDeployE);
    expect(find(without(vercelExact, vercelDeployE))).toBe(vercelDeploy);
    expect(find(without(vercelExact, vercelDeployE, vercelDeploy))).toBe(vercelAll);
    expect(find([all, anyDeploy, anyDeployError])).toBe(anyDeployError);
    expect(find([all, anyDeploy])).toBe(anyDeploy);
    expect(find([all])).toBe(all);
    expect(find([])).toBeNull();
    expect(preferenceFor(everything, 'code_host', 'pr.merged')).toBe(all);
  });

  it('breaks a tie between globs of one length by fewer stars, then list order', () => {
    const oneStar = pref('*', 'deploy.*');
    const twoStars = pref('*', '*ploy.*r');
    const otherOneStar = pref('*', '*y.error');
    expect([oneStar, twoStars, otherOneStar].map((preference) => preference.type.length)).toEqual([8, 8, 8]);
    expect(preferenceFor([twoStars, oneStar], 'deploy_host', 'deploy.error')).toBe(oneStar);
    expect(preferenceFor([oneStar, otherOneStar], 'deploy_host', 'deploy.error')).toBe(oneStar);
    expect(preferenceFor([otherOneStar, oneStar], 'deploy_host', 'deploy.error')).toBe(otherOneStar);
  });
});

describe('preferenceChannels', () => {
  it('defaults: browser for warning and error alerts, email, push and chat for errors, changes in-app only', () => {
    expect(preferenceChannels(null, 'info', 'alert').channels).toEqual([]);
    expect(preferenceChannels(null, 'success', 'alert').channels).toEqual([]);
    expect(preferenceChannels(null, 'warning', 'alert').channels).toEqual(['browser']);
    expect(preferenceChannels(null, 'error', 'alert').channels).toEqual(['browser', 'email', 'push', 'chat']);
    expect(preferenceChannels(null, 'error', 'alert', ['browser', 'email']).channels).toEqual(['browser', 'email']);
    expect(preferenceChannels(null, 'info', 'change')).toEqual({
      channels: [],
      trace: { stage: 'preference', id: 'default', name: 'Built-in defaults', verdict: 'applied', why: 'a change: in-app only' },
    });
  });

  it('opens nothing below the minimum severity or when off, and says so', () => {
    const warningsUp = pref('uptime_monitor', 'monitor.*', { minSeverity: 'warning' });
    expect(preferenceChannels(warningsUp, 'success', 'alert')).toMatchObject({ channels: [], trace: { verdict: 'below_min_severity', id: 'uptime_monitor/monitor.*' } });
    // A preference saved before push and chat existed: they go as its email switch does.
    expect(preferenceChannels(warningsUp, 'warning', 'alert')).toMatchObject({ channels: ['browser', 'email', 'push', 'chat'], trace: { verdict: 'applied' } });
    expect(preferenceChannels(warningsUp, 'error', 'alert').channels).toEqual(['browser', 'email', 'push', 'chat']);
    expect(preferenceChannels({ ...warningsUp, channels: { browser: true, email: true, push: false, chat: false } }, 'error', 'alert').channels).toEqual(['browser', 'email']);
    expect(preferenceChannels({ ...warningsUp, enabled: false }, 'error', 'alert')).toMatchObject({ channels: [], trace: { verdict: 'disabled' } });
  });

  it('follows an explicit preference for a change event too', () => {
    const merges = pref('code_host', 'pr.merged', { channels: { browser: true, email: false } });
    expect(preferenceChannels(merges, 'info', 'change').channels).toEqual(['browser']);
  });
});

describe('notificationPreferencesSchema', () => {
  it('names the field of each issue', () => {
    const result = saveNotificationPreferencesSchema.safeParse({
      preferences: [pref('*', '*'), { ...pref('*', '*'), minSeverity: 'critical' }, { ...pref('*', 'x'), integration: 'slack' }, pref('*', '*')],
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['preferences.1.minSeverity', 'preferences.2.integration']));
    expect(notificationPreferencesSchema.safeParse([pref('*', '*'), pref('*', '*')]).error?.issues).toEqual([
      expect.objectContaining({ path: [1, 'type'], message: 'a preference for * / * already exists' }),
    ]);
  });

  it('has no in-app switch: in-app cannot be turned off', () => {
    expect(notificationPreferencesSchema.safeParse([{ ...pref('*', '*'), channels: { inApp: false, browser: true, email: true } }]).success).toBe(false);
  });
});
