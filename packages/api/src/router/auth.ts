import {
  authStatusSchema,
  passwordChangeSchema,
  passwordSchema,
  removedSchema,
  sessionIdInput,
  sessionListSchema,
  signedOutSchema,
  tokenCreatedSchema,
  tokenCreateSchema,
  tokenIdInput,
  tokenListSchema,
} from '@dash/contracts';
import { z } from 'zod';
import type { RequestInfo, UserIdentity } from '../auth/access.ts';
import type { Context } from '../context.ts';
import { fail } from '../errors.ts';
import { publicProcedure, router } from '../trpc.ts';

/** A caller without request information is the server itself (a test, a command): the open identity. */
const requestOf = (ctx: Context): RequestInfo => ctx.request ?? { identity: { via: 'open', scope: 'write' }, ip: undefined, userAgent: undefined };

/** Who calls; the sign-in pages' anonymous requests reach only login and setup. */
function identityOf(ctx: Context): UserIdentity {
  const { identity } = requestOf(ctx);
  if (!identity) throw fail('UNAUTHORIZED', 'Sign in first.');
  if (identity.via === 'backup') throw fail('FORBIDDEN', 'BACKUP_SECRET opens POST /api/backup and nothing else.');
  return identity;
}

/** Sessions belong to browsers: an API token may not list or end them. */
function assertBrowser(ctx: Context) {
  if (identityOf(ctx).via === 'token') throw fail('FORBIDDEN', 'Manage sessions from a signed-in browser, not with an API token.');
}

/**
 * An owner action that only a signed-in browser (or the open local dashboard) may take, never an API token:
 * what takes access away (ending sessions, revoking tokens) or reads how it stands.
 */
export function assertOwnerBrowser(ctx: Context): UserIdentity {
  const identity = identityOf(ctx);
  if (identity.via === 'token') throw fail('FORBIDDEN', 'Only the owner can do this, from a signed-in browser: an API token cannot.');
  return identity;
}

/**
 * Whether the caller may read what a destination (a push device, a chat connection) last answered: the owner's (a
 * signed-in browser, the open local dashboard, the server itself), never an API token's, even write. A destination's
 * failure names services on the owner's network and what they said; a token's reader gets the rest of the row.
 */
export function readsDestinationFailures(ctx: Context): boolean {
  const { identity } = requestOf(ctx);
  return identity !== undefined && (identity.via === 'open' || identity.via === 'session');
}

/** What an API token's reader sees of a connection that needs attention: that it does, not what its service said. */
export const ATTENTION_FOR_TOKENS = 'The service refused it for good: nothing is sent to it until it is fixed (the owner sees why in Settings)';

/**
 * An owner action that grants or moves access (a new API token, a database switch, an import): a signed-in browser
 * (or the open local dashboard), never an API token, and the password again once one is set (throttled as a sign-in).
 */
export async function confirmOwner(ctx: Context, password: string | undefined): Promise<UserIdentity> {
  const request = requestOf(ctx);
  await ctx.access.confirmOwner(request.identity, password, request);
  return identityOf(ctx);
}

/** The cookie a new session goes in; only the web layer's form actions see it. */
const newSessionSchema = z.object({ token: z.string(), maxAgeSeconds: z.number().int() });

export const authRouter = router({
  status: publicProcedure
    .input(z.void())
    .output(authStatusSchema)
    .query(({ ctx }) => ctx.access.status(identityOf(ctx))),

  /** Whether the first-run setup is still open (a remote dashboard without a password); anyone may ask. */
  setupRequired: publicProcedure
    .input(z.void())
    .output(z.boolean())
    .query(({ ctx }) => ctx.access.setupRequired()),

  /** Checks the link's setup token; a wrong one counts as a failed sign-in. */
  checkSetupToken: publicProcedure
    .input(z.object({ token: z.string().max(200) }))
    .output(z.object({ valid: z.boolean() }))
    .mutation(async ({ ctx, input }) => ({ valid: await ctx.access.checkSetupToken(input.token, requestOf(ctx).ip) })),

  login: publicProcedure
    .input(z.object({ password: z.string().max(1024) }))
    .output(newSessionSchema)
    .mutation(({ ctx, input }) => ctx.access.login(input.password, requestOf(ctx))),

  setup: publicProcedure
    .input(z.object({ token: z.string().max(200), password: passwordSchema }))
    .output(newSessionSchema)
    .mutation(({ ctx, input }) => ctx.access.setup(input.token, input.password, requestOf(ctx))),

  /** `endpoint`: this browser's push subscription (unsubscribed by the page first), whose device goes with the session. */
  logout: publicProcedure
    .input(z.object({ endpoint: z.string().max(2048).optional() }).optional())
    .output(z.object({ ok: z.literal(true), deviceRemoved: z.boolean() }))
    .mutation(async ({ ctx, input }) => ({ ok: true as const, deviceRemoved: await ctx.access.logout(identityOf(ctx), input?.endpoint) })),

  changePassword: publicProcedure
    .input(passwordChangeSchema)
    // `devicesRemoved`: a change (not the first password) removed every push device; the owner adds them again.
    .output(z.object({ ok: z.literal(true), session: newSessionSchema.nullable(), devicesRemoved: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const { session, devicesRemoved } = await ctx.access.changePassword(input, identityOf(ctx), requestOf(ctx));
      return { ok: true as const, session: session ?? null, devicesRemoved };
    }),
});

export const sessionsRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(sessionListSchema)
    .query(async ({ ctx }) => {
      assertBrowser(ctx);
      return { sessions: await ctx.access.sessions(identityOf(ctx)) };
    }),

  remove: publicProcedure
    .input(sessionIdInput)
    .output(removedSchema)
    .mutation(async ({ ctx, input }) => {
      assertBrowser(ctx);
      return { ok: true as const, removed: await ctx.access.endSession(input.id) };
    }),

  /** "Sign out everywhere else": every session but this one. */
  removeOthers: publicProcedure
    .input(z.void())
    .output(signedOutSchema)
    .mutation(async ({ ctx }) => {
      assertBrowser(ctx);
      return { ok: true as const, ended: await ctx.access.endSessions(identityOf(ctx), { keepCurrent: true }), devicesRemoved: false };
    }),

  /** "Sign out everywhere": this session too. */
  removeAll: publicProcedure
    .input(z.void())
    .output(signedOutSchema)
    .mutation(async ({ ctx }) => {
      assertBrowser(ctx);
      return { ok: true as const, ended: await ctx.access.endSessions(identityOf(ctx), { keepCurrent: false }), devicesRemoved: true };
    }),
});

export const tokensRouter = router({
  list: publicProcedure
    .input(z.void())
    .output(tokenListSchema)
    .query(async ({ ctx }) => {
      if (identityOf(ctx).via === 'token') throw fail('FORBIDDEN', 'Manage API tokens from a signed-in browser, not with an API token.');
      return { tokens: await ctx.access.tokens() };
    }),

  create: publicProcedure
    .input(tokenCreateSchema)
    .output(tokenCreatedSchema)
    .mutation(async ({ ctx, input: { password, ...input } }) => ctx.access.createToken(input, await confirmOwner(ctx, password))),

  remove: publicProcedure
    .input(tokenIdInput)
    .output(removedSchema)
    .mutation(async ({ ctx, input }) => ({ ok: true as const, removed: await ctx.access.revokeToken(input.id, identityOf(ctx)) })),
});
