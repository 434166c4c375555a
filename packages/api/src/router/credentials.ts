import {
  connectedKeysSchema,
  credentialKeyInput,
  credentialRemovedSchema,
  credentialSavedSchema,
  credentialSaveSchema,
  credentialTestResultSchema,
  credentialTestSchema,
  isOutgoing,
  serviceOf,
  services,
} from '@dash/contracts';
import { connectorFor, ConnectorError, refusedBaseUrl } from '@dash/connectors';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { assertKeyMatches, CredentialsKeyMismatchError } from '../credentials/vault.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';
import { confirmOwner } from './auth.ts';

const TEST_TIMEOUT_MS = 15_000;

async function storedValues(ctx: Context, key: string): Promise<Record<string, string>> {
  try {
    const values = await ctx.data.connections.stored(key);
    if (!values) throw fail('NOT_FOUND', `No credentials are stored under "${key}"`);
    return values;
  } catch (error) {
    if (error instanceof CredentialsKeyMismatchError) throw fail('INTERNAL_SERVER_ERROR', error.message, error);
    throw error;
  }
}

/** Keeps the values that were filled in; an optional field left empty is simply absent. */
function filledIn(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).flatMap(([name, value]) => (value.trim() ? [[name, value.trim()]] : [])));
}

/**
 * Refuses a base URL whose host is a literal link-local or cloud-metadata address. A hostname is
 * checked where it is resolved, each time a connection is made (the connections' guarded fetch).
 */
function assertBaseUrlAllowed(values: Record<string, string>) {
  const refused = values.baseUrl === undefined ? undefined : refusedBaseUrl(values.baseUrl);
  if (refused) throw fail('BAD_REQUEST', `Base URL: ${refused}`);
}

export const credentialsRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(connectedKeysSchema)
    .query(async ({ ctx }) => ({ connectedKeys: await ctx.store.credentials.keys() })),

  save: publicProcedure
    .input(credentialSaveSchema)
    .output(credentialSavedSchema)
    .mutation(async ({ ctx, input }) => {
      // Where our data is sent (SendGrid's key and recipients) is the owner's to say, never a token's.
      const service = serviceOf(input.key);
      if (service && isOutgoing(service)) await confirmOwner(ctx, input.password);
      assertKeyMatches(ctx);
      const values = filledIn(input.values);
      assertBaseUrlAllowed(values);
      await ctx.data.connections.save(input.key, values);
      ctx.log.info(`credentials saved for ${input.key}`);
      return { ok: true as const, key: input.key };
    }),

  remove: publicProcedure
    .input(credentialKeyInput)
    .output(credentialRemovedSchema)
    .mutation(async ({ ctx, input }) => ({ ok: true as const, removed: await ctx.store.credentials.remove(input.key) })),

  test: publicProcedure
    .input(credentialTestSchema)
    .output(credentialTestResultSchema)
    .mutation(async ({ ctx, input, signal }) => {
      // The key's schema accepts only known services.
      const service = serviceOf(input.key);
      if (!service) throw fail('BAD_REQUEST', `Unknown service in "${input.key}"`);
      const connector = connectorFor(service);
      const values = input.values ? filledIn(input.values) : undefined;
      if (values) assertBaseUrlAllowed(values);
      // The stored ones are read by the connection itself, so a refresh on the way is stored (GitHub rotates refresh tokens).
      else await storedValues(ctx, input.key);
      const timeout = AbortSignal.timeout(TEST_TIMEOUT_MS);
      const upstream = await ctx.data.connections.context(service, input.key, { ...(values ? { values } : {}), signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      try {
        await connector.test(upstream);
        return { ok: true as const };
      } catch (error) {
        if (error instanceof ConnectorError) return { ok: false as const, error: error.message };
        if (timeout.aborted) return { ok: false as const, error: `${services[service].label} did not answer within ${TEST_TIMEOUT_MS / 1000} s` };
        throw error;
      }
    }),
});
