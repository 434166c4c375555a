import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { relayIntegrations, resolveIntegration, sha256Hex, tokensMatch } from '@dash/webhooks';
import { z } from 'zod';
import { bearerOf } from './auth.ts';
import type { RelayConfig } from './config.ts';
import { keysOf, SINGLE_TENANT, TENANT_ID } from './keys.ts';
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

const newPollSecret = () => randomBytes(32).toString('base64url');

/** `/api/tenants`: the managed relay's tenant administration, behind RELAY_ADMIN_SECRET. */
export function tenantAdmin({ config, store }: { config: RelayConfig; store: RelayStore }) {
  const admin = new Hono();
  const error = (code: string, message: string) => ({ error: { code, message } });

  admin.use('*', async (c, next) => {
    if (config.adminSecrets.length === 0) return c.json(error('NOT_FOUND', 'Tenants are off: set RELAY_ADMIN_SECRET'), 404);
    if (!tokensMatch(bearerOf(c.req.header('authorization')), config.adminSecrets)) return c.json(error('UNAUTHORIZED', 'A valid bearer admin secret is required'), 401);
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
    return (await store.tenants.remove(id, keysOf(id).events)) ? c.json({ ok: true }) : c.json(error('NOT_FOUND', 'No such tenant'), 404);
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
