import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { RECEIVE_LIMITS, relayIntegrations, resolveIntegration, sha256Hex, tokensMatch } from '@dash/webhooks';
import { z } from 'zod';
import { bearerOf } from './auth.ts';
import type { RelayConfig } from './config.ts';
import { adminRateKey, keysOf, SINGLE_TENANT, TENANT_ID } from './keys.ts';
import { keptRefusalKeys, type RefusalCounter } from './refusals.ts';
import type { RelayStore, TenantRecord } from './store/types.ts';

const createSchema = z.strictObject({
  id: z.string().regex(TENANT_ID, 'A tenant id is 3-40 lowercase letters, digits and dashes').refine((id) => id !== SINGLE_TENANT, 'That id is reserved').optional(),
  label: z.string().trim().max(100).optional(),
});

const secretsSchema = z.strictObject({
  /** Per integration (or provider name): a comma-separated rotation list; an empty string clears it. */
  webhookSecrets: z.record(z.string(), z.string().max(4_096)).optional(),
  rotatePollSecret: z.literal(true).optional(),
});

/** What the admin API shows of a tenant: never a secret, only which integrations have one. */
const view = ({ id, label, createdAt, secrets }: TenantRecord) => ({
  id,
  label,
  createdAt,
  integrationsWithSecrets: relayIntegrations.filter((i) => (secrets[i] ?? []).length > 0),
});

/** 43 characters: above the 32 the relay asks of its own poll and admin secrets. */
const newPollSecret = () => randomBytes(32).toString('base64url');

/** Failed admin sign-ins a client address may make in a minute before every admin call from it is 429. */
export const ADMIN_FAILURES_PER_MINUTE = 10;

/** `/api/tenants`: the managed relay's tenant administration, behind RELAY_ADMIN_SECRET. */
export function tenantAdmin({
  config,
  store,
  clientIp,
  refusals,
  now,
}: {
  config: RelayConfig;
  store: RelayStore;
  clientIp: (c: Context) => string;
  refusals: Pick<RefusalCounter, 'flush'>;
  now: () => number;
}) {
  const admin = new Hono();
  const error = (code: string, message: string) => ({ error: { code, message } });

  admin.use('*', async (c, next) => {
    if (config.adminSecrets.length === 0) return c.json(error('NOT_FOUND', 'Tenants are off: set RELAY_ADMIN_SECRET'), 404);
    // Every call takes a place in its address's window before the secret is compared, so the answer to a
    // guess over the limit says nothing of the guess; a correct secret gives its place back. Only failures
    // count, and only against the address they came from (the proxy's hop with TRUST_PROXY, as for polls).
    const rateKey = adminRateKey(clientIp(c as Context));
    const admission = await store.limit({ rateKey, limit: ADMIN_FAILURES_PER_MINUTE, windowMs: RECEIVE_LIMITS.windowMs });
    if (!admission.allowed) {
      c.header('retry-after', String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))));
      return c.json(error('TOO_MANY_REQUESTS', 'Too many failed admin sign-ins from this address; retry later'), 429);
    }
    if (!tokensMatch(bearerOf(c.req.header('authorization')), config.adminSecrets)) return c.json(error('UNAUTHORIZED', 'A valid bearer admin secret is required'), 401);
    if (admission.ticket !== undefined) await store.refund({ rateKey, ticket: admission.ticket });
    await next();
  });

  const readJson = async (request: Request): Promise<unknown> => {
    try {
      const text = await request.text();
      return text === '' ? {} : (JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  };
  const invalid = (issues: z.core.$ZodIssue[]) => error('BAD_REQUEST', issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));

  admin.post('/', async (c) => {
    const parsed = createSchema.safeParse(await readJson(c.req.raw));
    if (!parsed.success) return c.json(invalid(parsed.error.issues), 400);
    const pollSecret = newPollSecret();
    const record: TenantRecord = {
      id: parsed.data.id ?? `t-${randomBytes(6).toString('hex')}`,
      label: parsed.data.label ?? '',
      createdAt: new Date().toISOString(),
      pollSecretHash: sha256Hex(pollSecret),
      secrets: {},
    };
    if (!(await store.tenants.create(record))) return c.json(error('CONFLICT', `The tenant "${record.id}" exists`), 409);
    const relayUrl = `${new URL(c.req.url).origin}/api/t/${record.id}`;
    return c.json({ tenant: view(record), pollSecret, relayUrl }, 201);
  });

  admin.get('/', async (c) => c.json({ tenants: (await store.tenants.list()).map(view) }));

  admin.get('/:id', async (c) => {
    const record = await store.tenants.get(c.req.param('id'));
    return record ? c.json({ tenant: view(record) }) : c.json(error('NOT_FOUND', 'No such tenant'), 404);
  });

  admin.delete('/:id', async (c) => {
    const id = c.req.param('id');
    const keys = keysOf(id);
    // This process's counts go to the store first, to go with the rest: a tenant made again under the id starts from none.
    await refusals.flush();
    const removed = await store.tenants.remove(id, { eventsKey: keys.events, countKeys: keptRefusalKeys(keys.refusals, now()) });
    return removed ? c.json({ ok: true }) : c.json(error('NOT_FOUND', 'No such tenant'), 404);
  });

  admin.put('/:id/secrets', async (c) => {
    const parsed = secretsSchema.safeParse(await readJson(c.req.raw));
    if (!parsed.success) return c.json(invalid(parsed.error.issues), 400);
    const record = await store.tenants.get(c.req.param('id'));
    if (!record) return c.json(error('NOT_FOUND', 'No such tenant'), 404);
    const secrets = { ...record.secrets };
    for (const [name, value] of Object.entries(parsed.data.webhookSecrets ?? {})) {
      const integration = resolveIntegration(name);
      if (!integration) return c.json(error('BAD_REQUEST', `Unknown integration "${name}"`), 400);
      secrets[integration] = value.split(',').map((s) => s.trim()).filter(Boolean);
    }
    const pollSecret = parsed.data.rotatePollSecret ? newPollSecret() : undefined;
    const updated: TenantRecord = { ...record, secrets, ...(pollSecret ? { pollSecretHash: sha256Hex(pollSecret) } : {}) };
    if (!(await store.tenants.replace(updated))) return c.json(error('NOT_FOUND', 'No such tenant'), 404);
    return c.json({ tenant: view(updated), ...(pollSecret ? { pollSecret } : {}) });
  });

  return admin;
}
