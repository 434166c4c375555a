import { type PayloadCondition } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { conditionHolds, payloadValue } from './rules.ts';

// A rule's payload conditions (conditionHolds, payloadValue): compared without coercion, never following a prototype.

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
