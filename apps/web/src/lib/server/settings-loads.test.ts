import { createCaller, type Caller } from '@dash/api';
import { createTestApi } from '@dash/api/testing';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSections, type SettingsSectionId } from '../settings-sections.ts';
import { settingsLoads } from './settings-loads.ts';

/** The procedures each Settings page may ask for: its own section's, and whether a password is set. */
const allowed: Record<SettingsSectionId, string[]> = {
  projects: ['projects.list'],
  connections: ['auth.status', 'credentials.list', 'oauth.connections'],
  layout: ['settings.get'],
  relay: ['relay.status', 'settings.get'],
  webhooks: ['auth.status', 'deliveries.list', 'deliveries.refusals'],
  notifications: ['auth.status', 'notifications.policy', 'projects.list'],
  briefing: ['briefing.settings', 'briefingDestinations.list'],
  history: ['history.settings'],
  'metric-alerts': ['metricAlerts.list', 'projects.list'],
  backups: ['alerts.deliveries', 'alerts.status', 'backup.status'],
  security: ['auth.status', 'sessions.list', 'tokens.list'],
  database: ['auth.status', 'database.config', 'history.settings'],
};

/** `caller`, noting the path of every procedure called through it (`projects.list`). */
function recording(caller: Caller): { api: Caller; called: Set<string> } {
  const called = new Set<string>();
  const api = new Proxy(caller, {
    get: (routers, router: string) =>
      new Proxy(Reflect.get(routers, router) as object, {
        get: (procedures, name: string) => {
          const procedure = Reflect.get(procedures, name) as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            called.add(`${router}.${name}`);
            return procedure(...args);
          };
        },
      }),
  });
  return { api, called };
}

describe("each Settings page's load", () => {
  let testApi: Awaited<ReturnType<typeof createTestApi>>;
  beforeAll(async () => {
    testApi = await createTestApi();
  });
  afterAll(async () => {
    await testApi?.dispose();
  });
  const asOwner = () => createCaller({ ...testApi.ctx, request: { identity: { via: 'open', scope: 'write' }, ip: '127.0.0.1', userAgent: undefined } });

  for (const { id } of settingsSections) {
    it(`${id}: asks for its own section's data and no other's`, async () => {
      const { api, called } = recording(asOwner());
      const data = await settingsLoads[id](api);
      expect([...called].sort()).toEqual(allowed[id]);
      expect(Object.keys(data).length).toBeGreaterThan(0);
    });
  }

  it('briefing: a list of channels that cannot be read leaves the page with the card’s words, not a broken page', async () => {
    const owner = asOwner();
    const failing = new Proxy(owner, {
      get: (routers, router: string) =>
        router === 'briefingDestinations'
          ? { list: () => Promise.reject(new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The store is not answering' })) }
          : (Reflect.get(routers, router) as unknown),
    });
    const data = await settingsLoads.briefing(failing);
    expect(data.destinations).toEqual({ list: null, error: 'The store is not answering' });
    expect(data.briefing.thresholds).toBeDefined();
  });

  it('gives a caller with an API token neither the sessions nor the tokens, without asking for them', async () => {
    const { api, called } = recording(
      createCaller({ ...testApi.ctx, request: { identity: { via: 'token', scope: 'read', tokenId: 't1' }, ip: '127.0.0.1', userAgent: undefined } }),
    );
    const data = await settingsLoads.security(api);
    expect([data.sessions, data.tokens]).toEqual([[], []]);
    expect([...called]).toEqual(['auth.status']);
  });
});
