import { notificationRulesSchema } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { rule, issues } from './rules-testing.ts';

// notificationRulesSchema: a valid rule list kept through a JSON round trip; bad input refused naming the field.

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
