import { describe, expect, it } from 'vitest';
import { providers, relayIntegrations, resolveIntegration } from './index.ts';

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

describe('providers', () => {
  it('has one provider per integration, each knowing its own integration', () => {
    for (const integration of relayIntegrations) expect(providers[integration].integration).toBe(integration);
  });

  it('never throws on hostile bytes, and refuses them', () => {
    const hostile = [new Uint8Array(), new Uint8Array([0xff, 0xfe]), new TextEncoder().encode('{"__proto__":{"x":1}}'), new TextEncoder().encode('null')];
    for (const integration of relayIntegrations) {
      const provider = providers[integration];
      for (const body of hostile) {
        const bag = new Headers({ 'x-github-event': 'pull_request', 'sentry-hook-resource': 'issue' });
        expect(provider.verify(body, bag, ['secret'])).toBe(false);
        expect(provider.identify(body, bag).deliveryId).not.toBe('');
        const parsed = provider.parse(body, bag, new Date(0));
        if (parsed.ok) expect(parsed.events).toEqual([]);
      }
    }
  });
});
