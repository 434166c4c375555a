import { describe, expect, it } from 'vitest';
import { resolveIntegration } from './index.ts';

describe('resolveIntegration', () => {
  it('accepts the neutral ids and the real provider names', () => {
    expect(resolveIntegration('code_host')).toBe('code_host');
    expect(resolveIntegration('github')).toBe('code_host');
    expect(resolveIntegration('betterstack')).toBe('uptime_monitor');
  });

  it('knows no other names', () => {
    expect(resolveIntegration('gitlab')).toBeUndefined();
    expect(resolveIntegration('toString')).toBeUndefined();
  });
});
