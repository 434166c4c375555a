import { describe, expect, it } from 'vitest';
import { healthBody, relayIntegrations } from './index.ts';

describe('relay skeleton', () => {
  it('reports health with its clock in milliseconds', () => {
    expect(healthBody(1_700_000_000_000)).toEqual({ status: 'ok', timestamp: 1_700_000_000_000 });
  });

  it('serves the five integrations of the spec', () => {
    expect(relayIntegrations).toEqual(['code_host', 'deploy_host', 'error_tracker', 'issue_tracker', 'uptime_monitor']);
  });
});
