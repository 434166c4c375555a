import {
  pushContactSaveSchema,
  pushContactSchema,
  pushDeviceIdInput,
  pushDeviceSchema,
  pushDevicesSchema,
  pushKeySchema,
  pushPayloadSchema,
  pushSubscribeSchema,
  pushTestResultsSchema,
  pushTestSchema,
  removedSchema,
} from '@dash/contracts';
import { z } from 'zod';
import { fail } from '../errors.ts';
import { pushPayloadOf } from '../push/sender.ts';
import { publicProcedure, router } from '../trpc.ts';
import { assertOwnerBrowser, confirmOwner, readsDestinationFailures } from './auth.ts';

export const pushRouter = router({
  /** GET /api/push/key: the VAPID public key a browser subscribes with (`applicationServerKey`). */
  key: publicProcedure
    .input(z.void())
    .output(pushKeySchema)
    .query(async ({ ctx }) => ({ publicKey: await ctx.push.publicKey() })),

  /**
   * POST /api/push/subscriptions: a new device is a new place our data goes, and it keeps getting it after the session
   * that added it ends: the owner's, from a signed-in browser, with the password again once one is set (as an outgoing
   * channel's credentials are).
   */
  subscribe: publicProcedure
    .input(pushSubscribeSchema)
    .output(pushDeviceSchema)
    .mutation(async ({ ctx, input }) => {
      await confirmOwner(ctx, input.password);
      return ctx.push.subscribe(input, ctx.request?.userAgent);
    }),

  /**
   * GET /api/push/subscriptions: the devices, how their pushes went; never their keys. What a push service last
   * answered (`lastFailure`) is the owner's alone: an API token gets null (its time stays).
   */
  list: publicProcedure
    .input(z.void())
    .output(pushDevicesSchema)
    .query(async ({ ctx }) => {
      const devices = await ctx.push.list();
      return { devices: readsDestinationFailures(ctx) ? devices : devices.map((device) => ({ ...device, lastFailure: null })) };
    }),

  /** DELETE /api/push/subscriptions/:id: the owner's, from a signed-in browser (no password: it only narrows where data goes). */
  remove: publicProcedure
    .input(pushDeviceIdInput)
    .output(removedSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      return { ok: true as const, removed: await ctx.push.remove(input.id) };
    }),

  /** POST /api/push/test: a test push to every device (`{}`) or one (`{ id }`); one test a minute. */
  test: publicProcedure
    .input(pushTestSchema)
    .output(pushTestResultsSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      const targets = await ctx.push.testTargets(input.id);
      if (targets.length === 0) return { results: [] };
      await ctx.testSends.take('push', 'push notification');
      return { results: await ctx.push.test(targets) };
    }),

  /**
   * GET /api/push/contact: whether push services have a contact and where it comes from (VAPID_SUBJECT, the saved
   * address, the alert address, the https origin); the addresses are the owner's: null for an API token.
   */
  contact: publicProcedure
    .input(z.void())
    .output(pushContactSchema)
    // Who reads a destination's failures (the owner's browser, the open local dashboard) reads the addresses.
    .query(async ({ ctx }) => ctx.push.contact.view(readsDestinationFailures(ctx))),

  /**
   * PUT /api/push/contact: the address push services may write to about our pushes (null removes it). The owner's,
   * from a signed-in browser, never an API token: it decides who push services contact about our traffic.
   */
  saveContact: publicProcedure
    .input(pushContactSaveSchema)
    .output(pushContactSchema)
    .mutation(async ({ ctx, input }) => {
      assertOwnerBrowser(ctx);
      await ctx.push.contact.save(input.email);
      return ctx.push.contact.view(true);
    }),

  /**
   * GET /api/push/messages/:id: a released push's message, by its delivery id, for the service worker when the push
   * carried only a pointer to it (too large for the push service). Signed in, like the inbox it comes from.
   */
  message: publicProcedure
    .input(pushDeviceIdInput)
    .output(pushPayloadSchema)
    .query(async ({ ctx, input }) => {
      const delivery = await ctx.store.push.sends.delivery(input.id);
      if (!delivery) throw fail('NOT_FOUND', `No push message ${input.id}`);
      return pushPayloadOf(delivery);
    }),
});
