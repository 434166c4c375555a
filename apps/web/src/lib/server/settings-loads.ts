import type { Caller } from '@dash/api';
import type { BriefingDestinations, IntegrationName } from '@dash/contracts';
import { TRPCError } from '@trpc/server';
import { filterFromQuery, listQuery } from '../deliveries.ts';
import type { SettingsSectionId } from '../settings-sections.ts';

/** Whether the owner has set a password: the forms that move data elsewhere ask for it again. */
const passwordSet = async (api: Caller) => (await api.auth.status()).passwordSet;

/** Where the briefing goes besides its email, or why that list could not be read (a server fault's words stay in its log). */
async function briefingDestinations(api: Caller): Promise<{ list: BriefingDestinations | null; error: string | null }> {
  try {
    return { list: await api.briefingDestinations.list(), error: null };
  } catch (error) {
    if (error instanceof TRPCError && error.code !== 'INTERNAL_SERVER_ERROR') return { list: null, error: error.message };
    console.error('[dashboard] the briefing destinations could not be read:', error instanceof Error ? error.message : error);
    return { list: null, error: 'something went wrong on the server; its log has the details.' };
  }
}

/** A read the page can show without: its value, or the words of why it failed (a server fault's stay in its log). */
async function readOr<T>(read: Promise<T>, what: string): Promise<{ value: T | null; error: string | null }> {
  try {
    return { value: await read, error: null };
  } catch (error) {
    if (error instanceof TRPCError && error.code !== 'INTERNAL_SERVER_ERROR') return { value: null, error: error.message };
    console.error(`[dashboard] ${what} could not be read:`, error instanceof Error ? error.message : error);
    return { value: null, error: 'something went wrong on the server; its log has the details.' };
  }
}

/**
 * What each Settings page shows, through the same procedures the API serves. A page asks for its own section's
 * data only (settings-loads.test.ts holds each to its list), so opening one does not read every other's.
 */
export const settingsLoads = {
  projects: async (api: Caller) => ({ projects: (await api.projects.list()).projects }),

  connections: async (api: Caller) => {
    const [{ connectedKeys }, oauth, password] = await Promise.all([api.credentials.list(), api.oauth.connections(), passwordSet(api)]);
    return { connectedKeys, oauth, passwordSet: password };
  },

  layout: async (api: Caller) => ({ layout: (await api.settings.get()).widgetLayout }),

  relay: async (api: Caller) => {
    const [relay, { relayUrl }] = await Promise.all([api.relay.status(), api.settings.get()]);
    return { relay, relayUrl };
  },

  notifications: async (api: Caller) => {
    const [policy, { projects }, password] = await Promise.all([api.notifications.policy(), api.projects.list(), passwordSet(api)]);
    return { policy, projects: projects.map(({ slug, name }) => ({ slug, name })), passwordSet: password };
  },

  briefing: async (api: Caller) => {
    // The channels' card says when its list cannot be read; the rest of the page still shows.
    const [briefing, destinations] = await Promise.all([api.briefing.settings(), briefingDestinations(api)]);
    return { briefing, destinations };
  },

  history: async (api: Caller) => ({ history: await api.history.settings() }),

  'metric-alerts': async (api: Caller) => {
    const [{ rules }, { projects }] = await Promise.all([api.metricAlerts.list({}), api.projects.list()]);
    // Which integrations each project has: the metrics they give are offered first.
    return { rules, projects: projects.map(({ slug, name, integrations }) => ({ slug, name, integrations: Object.keys(integrations) as IntegrationName[] })) };
  },

  backups: async (api: Caller) => {
    const [backup, email, { deliveries }] = await Promise.all([api.backup.status(), api.alerts.status(), api.alerts.deliveries()]);
    return { backup, email, emails: deliveries };
  },

  security: async (api: Caller) => {
    const auth = await api.auth.status();
    // Sessions and tokens are managed from a browser; a request made with an API token sees neither.
    if (auth.via === 'token') return { auth, sessions: [], tokens: [] };
    const [{ sessions }, { tokens }] = await Promise.all([api.sessions.list(), api.tokens.list()]);
    return { auth, sessions, tokens };
  },

  database: async (api: Caller) => {
    // The history's size is shown here too: it is most of what the store holds.
    const [database, password, { rows }] = await Promise.all([api.database.config(), passwordSet(api), api.history.settings()]);
    return { database, passwordSet: password, historyRows: rows };
  },

  /**
   * The webhooks taken in, filtered by the page's URL query (`?outcome=duplicate&time=24h`), and what was turned away.
   * Each part says on its own when it cannot be read. `?delivery=<id>` is one row, opened (a link from another's).
   */
  webhooks: async (api: Caller, query: URLSearchParams = new URLSearchParams()) => {
    const filter = filterFromQuery(query);
    const one = query.get('delivery')?.trim().slice(0, 100) || undefined;
    // The page's "Load older" asks again with this query and a cursor: the same time range, not one from a later now.
    const listed = listQuery(filter, Date.now());
    const [auth, refusals, deliveries, delivery] = await Promise.all([
      api.auth.status(),
      readOr(api.deliveries.refusals({}), 'the refusal counts'),
      one ? Promise.resolve({ value: null, error: null }) : readOr(api.deliveries.list(listed), 'the deliveries'),
      one ? readOr(api.deliveries.get({ id: one }), 'a delivery') : Promise.resolve({ value: null, error: null }),
    ]);
    // Replaying sends to every channel again: the owner's, from a signed-in browser (or the open local dashboard).
    return { owner: auth.via !== 'token', filter, one: one ?? null, listed, refusals, deliveries, delivery };
  },
} satisfies Record<SettingsSectionId, (api: Caller) => Promise<object>>;
