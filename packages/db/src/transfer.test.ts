import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { dumpTablesSchema, type DumpTables } from '@dash/contracts';
import { openStore, type IncomingEvent, type Store } from './index.ts';
import { MYSQL_SERVER, mysqlProblem, mysqlTemplate, PG_SERVER, postgresProblem, postgresTemplate, sqliteTemplate, type MigratedTemplate } from './testing.ts';

const migrationsDir = fileURLToPath(new URL('../../../drizzle', import.meta.url));
const pgProblem = await postgresProblem();
const inCI = process.env.CI === 'true';
if (pgProblem && !inCI) console.warn(`\n*** Postgres at ${PG_SERVER} is unreachable (${pgProblem}): transfers do not run on it. ***\n`);
const myProblem = await mysqlProblem();
if (myProblem && !inCI) console.warn(`\n*** MariaDB at ${MYSQL_SERVER} is unreachable (${myProblem}): transfers do not run on MySQL. ***\n`);

/**
 * An engine a transfer can leave or reach; each `fresh()` is an empty, migrated database of its own, a copy of the
 * engine's template (migrated once for the file), dropped beside the next test once its store is closed.
 */
function engine(name: string, template: MigratedTemplate): { name: string; fresh: () => Promise<Store> } {
  afterAll(() => template.drop(), 60_000);
  return {
    name,
    fresh: async () => {
      const database = await template.clone();
      const store = await openStore({ url: database.url, migrationsDir });
      onTestFinished(async () => {
        await store.close();
        void database.drop();
      });
      return store;
    },
  };
}

/** The engines a transfer can leave or reach. */
const engines = [
  engine('SQLite', sqliteTemplate(migrationsDir)),
  ...(pgProblem && !inCI ? [] : [engine('Postgres', postgresTemplate(migrationsDir))]),
  ...(myProblem && !inCI ? [] : [engine('MySQL (MariaDB)', mysqlTemplate(migrationsDir))]),
];

const NOW = '2026-11-24T09:00:00.000Z';
const event = (sourceEventId: string, overrides: Partial<IncomingEvent> = {}): IncomingEvent => ({
  sourceEventId,
  integration: 'github',
  type: 'pr.merged',
  subjectKey: null,
  transition: null,
  severity: 'info',
  title: `Event ${sourceEventId}`,
  url: null,
  projectSlug: 'formfox',
  occurredAt: NOW,
  receivedAt: NOW,
  relayEventId: null,
  ...overrides,
});

/** A store holding something in every table a user would miss. */
async function populate(store: Store) {
  for (const slug of ['formfox', 'tally', 'orbit']) {
    await store.projects.create({ slug, name: slug.toUpperCase(), color: '#336699', integrations: { code_host: { repos: [`acme/${slug}`] } } });
  }
  await store.settings.update({
    projectOrder: ['orbit', 'formfox'],
    widgetLayout: { slots: { detail: 'errortracker' }, configs: { revenue: { showOC: false } } },
    exchangeRates: { EUR: 1.1 },
    relayUrl: 'https://relay.example/api',
  });
  await store.credentials.putSealed('github', 'v1.sealed-github');
  await store.credentials.putSealed('sentry', 'v1.sealed-sentry');
  await store.meta.put('notifications.preferences', { monitors: { email: true } });
  await store.auth.createOwner('$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA');
  await store.auth.tokens.create({ id: 'tok1', name: 'cron', secretHash: 'h1', scope: 'read', createdAt: NOW, lastUsedAt: null, expiresAt: null });
  await store.auth.sessions.create({ id: 's1', secretHash: 'h2', createdAt: NOW, lastSeenAt: NOW, userAgent: 'Firefox', ip: '127.0.0.1' });
  await store.notifications.ingest(
    [
      event('github:1', { refs: ['code_host:acme/formfox'] }),
      event('uptime:1', { integration: 'uptime_monitor', type: 'monitor.down', subjectKey: 'uptime:api', transition: 'trigger', severity: 'error' }),
    ],
    { now: NOW, dedupWindowMs: 86_400_000, cursor: { relayUrl: 'https://relay.example/api', since: 1234 } },
  );
  // The metric history: a double that is not exact in binary, a late backfilled day, a currency and none.
  await store.history.put([
    { project: 'formfox', metric: 'revenue.mrr', date: '2026-11-23', value: 1234.56, currency: 'USD', late: false, source: 'snapshot', takenAt: Date.parse(NOW) },
    { project: 'formfox', metric: 'search.ctr', date: '2026-11-22', value: 0.1 + 0.2, currency: null, late: true, source: 'backfill', takenAt: Date.parse(NOW) },
    { project: 'orbit', metric: 'analytics.visitors', date: '2026-11-23', value: 42, currency: null, late: false, source: 'import', takenAt: Date.parse(NOW) - 1 },
  ]);
  // The metric alert rules: a built-in one changed and switched off, an owner's with a double that is not exact in binary.
  await store.metricAlerts.put({
    id: 'default:formfox:analytics.visitors',
    projectSlug: 'formfox',
    metric: 'analytics.visitors',
    params: { kind: 'unusual', direction: 'below', z: 3.5 },
    severity: 'warning',
    enabled: false,
    createdAt: Date.parse(NOW),
    updatedAt: Date.parse(NOW) + 1,
  });
  await store.metricAlerts.put({
    id: '0b9d4c52-7a53-4d8e-9e5c-3f1a2b6c7d8e',
    projectSlug: 'orbit',
    metric: 'revenue.mrr',
    params: { kind: 'threshold', direction: 'below', value: 0.1 + 0.2 },
    severity: 'error',
    enabled: true,
    createdAt: Date.parse(NOW) - 1,
    updatedAt: Date.parse(NOW) - 1,
  });
  await store.notifications.outbox(async (ops) => {
    await ops.putMute({ subjectKey: 'uptime:api', until: Date.parse(NOW) + 3_600_000, createdAt: Date.parse(NOW) });
    // An outage's interruption held by the flap hold: an import must keep why it waits and whose it is.
    const [outage] = await ops.openRows(['uptime:api']);
    await ops.addDeliveries([
      {
        id: 'd1',
        notificationId: outage?.id ?? null,
        eventId: 'e1',
        subjectKey: 'uptime:api',
        channel: 'browser',
        purpose: 'first',
        status: 'held',
        reason: 'flap hold',
        heldFor: 'flap_hold',
        dueAt: Date.parse(NOW) + 120_000,
        message: { title: 'API down', body: '', severity: 'error', tag: 'uptime:api', url: null, renotify: true, requireInteraction: true },
        seq: null,
        digestId: null,
        createdAt: Date.parse(NOW),
        sentAt: null,
      },
    ]);
  });
}

/** What a user sees of a store. */
async function seen(store: Store) {
  return {
    settings: await store.settings.get(),
    projects: await store.projects.list(),
    credentials: await store.credentials.keys(),
    owner: await store.auth.owner(),
    tokens: await store.auth.tokens.list(),
    inbox: await store.notifications.list({ limit: 50 }),
    unread: await store.notifications.unreadCount(),
    cursor: await store.notifications.cursor('https://relay.example/api'),
    mutes: await store.notifications.mutes(),
    preferences: await store.meta.get('notifications.preferences'),
    history: await store.history.read(undefined, undefined, '2026-01-01', '2026-12-31'),
    alertRules: await store.metricAlerts.list(),
  };
}

describe.each(engines)('a dump from $name', (source) => {
  it.each(engines)('restores into $name as it was, and the inbox goes on from there', async (target) => {
    const from = await source.fresh();
    await populate(from);
    const dump = await from.transfer.dump();
    expect(dump.projects).toHaveLength(3);
    expect(dump.notifications).toHaveLength(2);
    expect(dump.metric_points.map((row) => [row.project, row.metric, row.late])).toEqual([
      ['formfox', 'revenue.mrr', false],
      ['formfox', 'search.ctr', true],
      ['orbit', 'analytics.visitors', false],
    ]);
    expect(dump.metric_alert_rules.map((row) => [row.id, row.enabled, JSON.parse(row.params) as unknown])).toEqual([
      ['0b9d4c52-7a53-4d8e-9e5c-3f1a2b6c7d8e', true, { kind: 'threshold', direction: 'below', value: 0.1 + 0.2 }],
      ['default:formfox:analytics.visitors', false, { kind: 'unusual', direction: 'below', z: 3.5 }],
    ]);
    // What the import route accepts: every column an export carries.
    expect(dumpTablesSchema.safeParse(dump).error).toBeUndefined();
    expect(dump.notification_deliveries[0]).toMatchObject({ eventId: 'e1', heldFor: 'flap_hold' });
    expect(dump.projects[0]?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const to = await target.fresh();
    await to.transfer.restore(dump);
    expect(await to.transfer.dump()).toEqual(dump);
    expect(await seen(to)).toEqual(await seen(from));
    expect(await to.transfer.counts()).toEqual(await from.transfer.counts());

    // The sequence moved past the restored rows: a new row is newer than all of them, and listed first.
    const highest = Math.max(...dump.notifications.map((row) => row.seq));
    const { changed } = await to.notifications.ingest([event('github:2')], { now: NOW, dedupWindowMs: 86_400_000 });
    expect(changed[0]?.seq).toBeGreaterThan(highest);
    expect((await to.notifications.list({ limit: 1 }))[0]?.title).toBe('Event github:2');
    // The dedup claims came along: the same event again is a duplicate.
    expect((await to.notifications.ingest([event('github:1')], { now: NOW, dedupWindowMs: 86_400_000 })).duplicates).toBe(1);
  });
});

describe.each(engines)('restore on $name', (engine) => {
  it('is all or nothing: a row that cannot go in leaves every table as it was', async () => {
    const store = await engine.fresh();
    await populate(store);
    const before = await store.transfer.dump();
    const broken: DumpTables = {
      credentials: [],
      // Two rows with one primary key: the second insert fails, after the credentials were already emptied.
      projects: [before.projects[0], before.projects[0]].map((row) => ({ ...row })) as DumpTables['projects'],
    };
    await expect(store.transfer.restore(broken)).rejects.toThrow();
    expect(await store.transfer.dump()).toEqual(before);
  });

  it('replaces only the tables it is given', async () => {
    const store = await engine.fresh();
    await populate(store);
    await store.transfer.restore({ projects: [] });
    expect(await store.projects.list()).toEqual([]);
    expect(await store.credentials.keys()).toEqual(['github', 'sentry']);
    const counts = await store.transfer.counts();
    expect(counts.projects).toBe(0);
    expect(counts.credentials).toBe(2);
    expect(counts.notifications).toBe(2);
    expect(counts.metric_alert_rules).toBe(2);
  });

  it('restores an export made before notifications kept their refs, as rows without refs', async () => {
    const store = await engine.fresh();
    await populate(store);
    const { notifications } = await store.transfer.dump();
    expect(notifications.map((row) => row.refs).sort()).toEqual(['["code_host:acme/formfox"]', null]);
    const older = dumpTablesSchema.parse({ notifications: notifications.map(({ refs: _refs, ...row }) => row) });
    await store.transfer.restore(older);
    expect((await store.notifications.list({ limit: 10 })).map((row) => row.refs)).toEqual([null, null]);
    // Refs come back as the array the store reads: anything else is refused at the import.
    expect(dumpTablesSchema.safeParse({ notifications: [{ ...notifications[0], refs: '{"a":1}' }] }).success).toBe(false);
  });
});
