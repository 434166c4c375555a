import type { MetricAlertRule } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { blankDraft, draftOf, metricsFor, paramsInWords, paramsOf, previewWaits, rulesByProject } from './metric-alerts.ts';

const rule = (over: Partial<MetricAlertRule>): MetricAlertRule => ({
  id: 'r1',
  project: 'formfox',
  metric: 'analytics.visitors',
  params: { kind: 'unusual', direction: 'either', z: 4 },
  severity: 'warning',
  enabled: true,
  builtIn: false,
  updatedAt: null,
  ...over,
});

describe('a rule in words', () => {
  it('says each kind with its params', () => {
    expect(paramsInWords({ kind: 'threshold', direction: 'below', value: 1500 }, 'analytics.visitors')).toBe('Below 1,500');
    expect(paramsInWords({ kind: 'threshold', direction: 'above', value: 10_000 }, 'revenue.mrr')).toBe('Above 10,000');
    expect(paramsInWords({ kind: 'threshold', direction: 'below', value: 0.995 }, 'uptime.up_ratio')).toBe('Below 99.5 %');
    expect(paramsInWords({ kind: 'change', direction: 'below', percent: 20, compareTo: 'same_weekday' }, 'analytics.visitors')).toBe(
      'Down more than 20 % against the same weekday last week',
    );
    expect(paramsInWords({ kind: 'change', direction: 'either', percent: 12.5, compareTo: 'previous_28' }, 'errors.events')).toBe(
      'Up or down more than 12.5 % against the previous 28 days’ average',
    );
    expect(paramsInWords({ kind: 'unusual', direction: 'either', z: 4 }, 'revenue.gross')).toBe('Unusually high or low for its weekday (sensitivity z 4)');
  });
});

describe('the form’s draft', () => {
  it('offers the metrics a project has set up first, and starts on the first of them', () => {
    const project = { slug: 'formfox', name: 'Formfox', integrations: ['analytics', 'error_tracker'] as const };
    const { setUp, others } = metricsFor(project);
    expect(setUp.map((metric) => metric.key)).toEqual(['analytics.visitors', 'analytics.pageviews', 'errors.events', 'errors.unresolved']);
    expect(others.length + setUp.length).toBe(20);
    expect(blankDraft(project)).toMatchObject({ project: 'formfox', metric: 'analytics.visitors', kind: 'threshold', z: 4, severity: 'warning' });
    expect(blankDraft(undefined)).toMatchObject({ project: '', metric: 'revenue.gross' });
  });

  it('turns a saved rule into the form and back, a fraction in percent', () => {
    for (const params of [
      { kind: 'threshold', direction: 'below', value: 1500 },
      { kind: 'change', direction: 'above', percent: 30, compareTo: 'previous_7' },
      { kind: 'unusual', direction: 'below', z: 2.5 },
    ] as const) {
      expect(paramsOf(draftOf(rule({ params })))).toEqual(params);
    }
    const uptime = draftOf(rule({ metric: 'uptime.up_ratio', params: { kind: 'threshold', direction: 'below', value: 0.995 } }));
    expect(uptime.value).toBe(99.5);
    expect(paramsOf(uptime)).toEqual({ kind: 'threshold', direction: 'below', value: 0.995 });
  });

  it('sends an empty number as it is, for the server to name, and the preview waits for it', () => {
    const draft = { ...blankDraft({ slug: 'a', name: 'A', integrations: [] }), value: null };
    expect(paramsOf(draft)).toEqual({ kind: 'threshold', direction: 'below', value: null });
    expect(previewWaits(draft)).toBe('Give a value to see what this rule would have said.');
    expect(previewWaits({ ...draft, value: 0 })).toBeUndefined();
    expect(previewWaits({ ...draft, kind: 'unusual' })).toBeUndefined();
    expect(previewWaits({ ...draft, kind: 'unusual', project: '' })).toBe('Add a project to preview a rule.');
  });
});

describe('the list', () => {
  it('groups the rules by project in the projects’ order, a stray project last', () => {
    const groups = rulesByProject([rule({ id: 'a', project: 'b' }), rule({ id: 'b', project: 'gone' }), rule({ id: 'c', project: 'a' })], [
      { slug: 'a', name: 'A' },
      { slug: 'b', name: 'B' },
      { slug: 'c', name: 'C' },
    ]);
    expect(groups.map((group) => [group.slug, group.rules.map((each) => each.id)])).toEqual([
      ['a', ['c']],
      ['b', ['a']],
      ['c', []],
      ['gone', ['b']],
    ]);
  });
});
