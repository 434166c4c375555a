import { describe, expect, it } from 'vitest';
import type { ChannelConnectionRow, DeliveryRow } from './index.ts';
import { pushDeviceRow } from './testing.ts';
import { describeStores } from './testing/store-suite.ts';

/** What goes out, on every engine: email sends, push devices and their sends, chat connections and their sends. */

await describeStores('the email, push and chat sends', ({ open }) => {
  describe('email sends', () => {
    const emailRow = (id: string, status: 'sent' | 'held', createdAt: number): DeliveryRow => ({
      id,
      notificationId: null,
      subjectKey: null,
      channel: 'email',
      purpose: 'digest',
      status,
      reason: 'test',
      dueAt: null,
      message: { title: `Mail ${id}`, body: '', severity: 'info', tag: id, url: null, renotify: true, requireInteraction: false },
      seq: null,
      digestId: null,
      createdAt,
      sentAt: status === 'sent' ? createdAt : null,
    });

    it('queues released email rows (without a seq), gives each claim to one holder, and settles them', async () => {
      const store = await open();
      const added = await store.notifications.outbox((ops) => ops.addDeliveries([emailRow('e1', 'sent', 1_000), emailRow('e2', 'held', 1_000), emailRow('e3', 'sent', 2_000)]));
      expect(added.map((row) => row.seq)).toEqual([null, null, null]);
      expect(await store.notifications.sentSince(0, 10)).toEqual([]);
      expect(await store.emails.nextDue()).toBe(1_000);
      // The held one is queued once the outbox releases it.
      await store.notifications.outbox((ops) => ops.updateDeliveries([{ ...emailRow('e2', 'sent', 1_000), sentAt: 3_000 }]));

      const [a, b] = await Promise.all([store.emails.claim('A', 5_000, 60_000, 2), store.emails.claim('B', 5_000, 60_000, 10)]);
      const claimed = [...a, ...b].map((send) => send.id).sort();
      expect(claimed).toEqual(['e1', 'e2', 'e3']);
      expect(new Set(claimed).size).toBe(3);
      const first = [...a, ...b].find((send) => send.id === 'e1');
      expect(first).toMatchObject({ state: 'queued', attempts: 0, delivery: { channel: 'email', message: { title: 'Mail e1' } } });
      // A live lease keeps others off; a claim that expired is anyone's again.
      expect(await store.emails.claim('C', 6_000, 60_000, 10)).toEqual([]);
      const holderOf = (id: string) => (a.some((send) => send.id === id) ? 'A' : 'B');

      await store.emails.settle('e1', holderOf('e1'), { state: 'delivered', attempts: 1, dueAt: 1_000, providerId: 'msg-1', error: null, sentAt: 7_000 });
      await store.emails.settle('e2', 'not-the-holder', { state: 'failed', attempts: 1, dueAt: 1_000, providerId: null, error: 'x', sentAt: null });
      await store.emails.settle('e3', holderOf('e3'), { state: 'queued', attempts: 1, dueAt: 70_000, providerId: null, error: 'SendGrid refused the email (503)', sentAt: null });
      expect(await store.emails.claim('C', 66_000, 60_000, 10)).toMatchObject([{ id: 'e2', state: 'queued' }]);
      // e2 (queued when released at 3 s, claimed by C now) and e3 (tried again at 70 s) wait; e1 is done.
      expect(await store.emails.nextDue()).toBe(3_000);
      expect(await store.emails.deliveredSince(6_999)).toBe(1);
      expect(await store.emails.deliveredSince(7_000)).toBe(0);
      expect(await store.emails.oldestDeliveredSince(0)).toBe(7_000);
      const recent = await store.emails.recent(10);
      // Newest queued first: e2 was released last (3 s); e1 and e3 came in one batch.
      expect(recent.map((send) => [send.id, send.state, send.providerId, send.error])).toEqual([
        ['e2', 'queued', null, null],
        ['e3', 'queued', null, 'SendGrid refused the email (503)'],
        ['e1', 'delivered', 'msg-1', null],
      ]);
    });
    it('lets a holder send a claimed row only while its claim holds: renewed before each send, lost once another claimed it (issue 48)', async () => {
      const store = await open();
      await store.notifications.outbox((ops) => ops.addDeliveries([emailRow('e1', 'sent', 1_000), emailRow('e2', 'sent', 1_000)]));
      // A claims both until 65 s, and reaches e1 at 30 s: still its own, renewed until 90 s.
      expect((await store.emails.claim('A', 5_000, 60_000, 10)).map((send) => send.id)).toEqual(['e1', 'e2']);
      expect(await store.emails.hold('e1', 'A', 30_000, 60_000)).toBe(true);
      // At 70 s A is still sending e1 (a slow service), and its batch's first lease has run out: B claims what it can,
      // e2 but not e1, whose lease A renewed.
      expect((await store.emails.claim('B', 70_000, 60_000, 10)).map((send) => send.id)).toEqual(['e2']);
      // A comes to e2 after B took it: A must not send it; B holds it.
      expect(await store.emails.hold('e2', 'A', 71_000, 60_000)).toBe(false);
      expect(await store.emails.hold('e2', 'B', 71_000, 60_000)).toBe(true);
      // Nobody but its holder holds a row, and nobody holds a settled one.
      expect(await store.emails.hold('e1', 'B', 71_000, 60_000)).toBe(false);
      await store.emails.settle('e1', 'A', { state: 'delivered', attempts: 1, dueAt: 1_000, providerId: 'msg-1', error: null, sentAt: 72_000 });
      expect(await store.emails.hold('e1', 'A', 73_000, 60_000)).toBe(false);
      // A holder whose lease ran out with no one taking the row over still holds it: renewing it is safe.
      expect(await store.emails.hold('e2', 'B', 200_000, 60_000)).toBe(true);
      expect(await store.emails.claim('C', 200_001, 60_000, 10)).toEqual([]);
    });

    it('claims a recovery only after its outage email, while the outage waits for a retry (issue 48)', async () => {
      const store = await open();
      const mail = (id: string, notificationId: string, purpose: DeliveryRow['purpose'], at: number): DeliveryRow => ({ ...emailRow(id, 'sent', at), notificationId, purpose });
      await store.notifications.outbox((ops) => ops.addDeliveries([mail('o', 'n1', 'first', 1_000)]));
      await store.emails.claim('A', 2_000, 60_000, 10);
      await store.emails.settle('o', 'A', { state: 'queued', attempts: 1, dueAt: 62_000, providerId: null, error: 'SendGrid refused the email (503)', sentAt: null });
      // The recovery comes at 3 s, and another thread's email too: the recovery waits, and the next due is the outage's retry.
      await store.notifications.outbox((ops) => ops.addDeliveries([mail('r', 'n1', 'resolve', 3_000), mail('other', 'n2', 'first', 3_000)]));
      expect((await store.emails.claim('B', 4_000, 60_000, 10)).map((send) => send.id)).toEqual(['other']);
      await store.emails.settle('other', 'B', { state: 'delivered', attempts: 1, dueAt: 3_000, providerId: 'msg-2', error: null, sentAt: 4_500 });
      expect(await store.emails.nextDue()).toBe(62_000);
      // The outage goes at 62 s; the recovery is due again (since 3 s) and claimed after it.
      expect((await store.emails.claim('C', 62_000, 60_000, 10)).map((send) => send.id)).toEqual(['o']);
      await store.emails.settle('o', 'C', { state: 'delivered', attempts: 2, dueAt: 62_000, providerId: 'msg-1', error: null, sentAt: 62_500 });
      expect(await store.emails.nextDue()).toBe(3_000);
      expect((await store.emails.claim('C', 63_000, 60_000, 10)).map((send) => send.id)).toEqual(['r']);
    });
  });

  describe('push subscriptions', () => {
    const device = (id: string, endpoint: string, createdAt: number) => pushDeviceRow(id, { endpoint, createdAt });
    // A push service's endpoint is long: FCM's run past 150 characters, so the column is text.
    const long = `https://fcm.googleapis.com/fcm/send/${'x'.repeat(400)}`;

    it('removes the device of an endpoint (a browser signing out), answering its name; another endpoint removes nothing (issue 49)', async () => {
      const store = await open();
      await store.push.add(device('a', long, 1_000));
      await store.push.add(device('b', 'https://updates.push.services.mozilla.com/wpush/v2/b', 2_000));
      expect(await store.push.removeEndpoint('https://updates.push.services.mozilla.com/wpush/v2/elsewhere')).toBeUndefined();
      expect(await store.push.removeEndpoint(long)).toBe('Phone a');
      expect((await store.push.list()).map((row) => row.id)).toEqual(['b']);
      expect(await store.push.removeEndpoint(long)).toBeUndefined();
    });

    it('keeps devices oldest first, replaces a browser subscribing again, records outcomes, and forgets a removed one', async () => {
      const store = await open();
      await store.push.add(device('a', long, 1_000));
      await store.push.add(device('b', 'https://updates.push.services.mozilla.com/wpush/v2/b', 2_000));
      await store.push.add({ ...device('c', long, 3_000), expirationTime: 9_000 });
      // 'c' is the same browser as 'a' (its endpoint): it takes a's place.
      expect((await store.push.list()).map((row) => [row.id, row.endpoint.length, row.expirationTime])).toEqual([
        ['b', 52, null],
        ['c', long.length, 9_000],
      ]);
      await store.push.succeeded('b', 4_000);
      await store.push.failed('c', 5_000, 'The push service answered 503');
      expect(await store.push.get('b')).toMatchObject({ lastSuccessAt: 4_000, lastFailure: null, removedAt: null, sealedKeys: 'v1.sealed-b' });
      expect(await store.push.get('c')).toMatchObject({ lastSuccessAt: null, lastFailureAt: 5_000, lastFailure: 'The push service answered 503' });
      // Gone at the push service: the keys go, the row stays to say so.
      await store.push.gone('b', 6_000, 'The push service answered 410: the subscription is gone');
      expect(await store.push.get('b')).toMatchObject({ sealedKeys: '', removedAt: 6_000, lastFailureAt: 6_000 });
      expect(await store.push.remove('c')).toBe(true);
      expect(await store.push.remove('c')).toBe(false);
      expect(await store.push.get('c')).toBeUndefined();
      expect((await store.push.list()).map((row) => row.id)).toEqual(['b']);
    });

    it('queues a released push for each device subscribed then, and a recovery only for the devices its outage or its digest went to (issue 48)', async () => {
      const store = await open();
      const pushRow = (id: string, purpose: DeliveryRow['purpose'], createdAt: number, notificationId: string | null, extra: Partial<DeliveryRow> = {}): DeliveryRow => ({
        id,
        notificationId,
        subjectKey: null,
        channel: 'push',
        purpose,
        status: 'sent',
        reason: 'test',
        dueAt: null,
        message: { title: `Push ${id}`, body: '', severity: 'error', tag: id, url: null, renotify: true, requireInteraction: false },
        seq: null,
        digestId: null,
        createdAt,
        sentAt: createdAt,
        ...extra,
      });
      await store.push.add(device('phone', 'https://fcm.googleapis.com/fcm/send/phone', 1_000));
      // n1's outage goes to the phone; n2's waits for the morning digest, which goes to the phone too.
      await store.notifications.outbox((ops) =>
        ops.addDeliveries([pushRow('o1', 'first', 10_000, 'n1'), pushRow('o2', 'first', 10_000, 'n2', { status: 'digested', digestId: 'dg', sentAt: null }), pushRow('dg', 'digest', 11_000, null)]),
      );
      await store.push.add(device('laptop', 'https://updates.push.services.mozilla.com/wpush/v2/laptop', 12_000));
      // Both recover, and n3 (whose outage never went to any device) too: each recovery goes to the phone only.
      await store.notifications.outbox((ops) => ops.addDeliveries([pushRow('r1', 'resolve', 13_000, 'n1'), pushRow('r2', 'resolve', 13_000, 'n2'), pushRow('r3', 'resolve', 13_000, 'n3'), pushRow('o4', 'first', 13_000, 'n4')]));
      expect((await store.push.sends.recent(20)).map((send) => send.id).sort()).toEqual(['dg:phone', 'o1:phone', 'o4:laptop', 'o4:phone', 'r1:phone', 'r2:phone']);
      // n1's outage to the phone has not gone yet: its recovery there is not claimed before it (n2's, after the digest, is).
      const first = await store.push.sends.claim('me', 20_000, 60_000, 20);
      expect(first.map((send) => send.id).sort()).toEqual(['dg:phone', 'o1:phone', 'o4:laptop', 'o4:phone', 'r2:phone']);
      // The push service answers the outage 429: tried again at 90 s. Until then the recovery waits, and the next due is 90 s.
      await store.push.sends.settle('o1:phone', 'me', { state: 'queued', attempts: 1, dueAt: 90_000, status: 429, error: 'later', sentAt: null });
      for (const other of first.filter((send) => send.id !== 'o1:phone')) {
        await store.push.sends.settle(other.id, 'me', { state: 'delivered', attempts: 1, dueAt: other.dueAt, status: 201, error: null, sentAt: 20_500 });
      }
      expect(await store.push.sends.claim('next', 31_000, 60_000, 20)).toEqual([]);
      expect(await store.push.sends.nextDue()).toBe(90_000);
      expect((await store.push.sends.claim('next', 90_000, 60_000, 20)).map((send) => send.id)).toEqual(['o1:phone']);
      await store.push.sends.settle('o1:phone', 'next', { state: 'delivered', attempts: 2, dueAt: 90_000, status: 201, error: null, sentAt: 90_500 });
      expect((await store.push.sends.claim('last', 91_000, 60_000, 20)).map((send) => send.id)).toEqual(['r1:phone']);
    });
  });

  describe('chat connections', () => {
    const connection = (id: string, minSeverity: ChannelConnectionRow['minSeverity'], createdAt: number): ChannelConnectionRow => ({
      id,
      kind: 'slack',
      name: `#${id}`,
      minSeverity,
      settings: '{}',
      sealedSecret: `v1.sealed-${id}`,
      createdAt,
      lastSuccessAt: null,
      lastFailureAt: null,
      lastFailure: null,
      attentionAt: null,
      attention: null,
    });
    const chatRow = (id: string, severity: 'warning' | 'error', purpose: DeliveryRow['purpose'], createdAt: number, notificationId: string | null = null): DeliveryRow => ({
      id,
      notificationId,
      subjectKey: null,
      channel: 'chat',
      purpose,
      status: 'sent',
      reason: 'test',
      dueAt: null,
      message: { title: `Chat ${id}`, body: '', severity, tag: id, url: null, renotify: true, requireInteraction: false },
      seq: null,
      digestId: null,
      createdAt,
      sentAt: createdAt,
    });

    it('queues a released chat row for each connection its floor lets through, claims each once, and finds a thread’s outage message', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'error', 1_000));
      await store.channels.add(connection('team', 'warning', 2_000));
      await store.channels.add({ ...connection('old', 'warning', 3_000), attentionAt: 2_500, attention: 'Slack answered 404: no_service' });
      await store.notifications.outbox((ops) => ops.addDeliveries([chatRow('w', 'warning', 'first', 10_000), chatRow('e', 'error', 'first', 11_000, 'n1'), chatRow('r', 'warning', 'resolve', 12_000, 'n1')]));
      // The warning to the warning floor only; the error and its recovery to both; none to the connection that needs attention.
      expect((await store.channels.sends.recent(10)).map((send) => send.id).sort()).toEqual(['e:ops', 'e:team', 'r:ops', 'r:team', 'w:team']);
      // Each recovery waits for its outage to that connection to go first (issue 48).
      const queued = await store.channels.sends.claim('me', 20_000, 60_000, 10);
      expect(queued.map((send) => send.id).sort()).toEqual(['e:ops', 'e:team', 'w:team']);
      expect(await store.channels.sends.claim('other', 20_000, 60_000, 10)).toEqual([]);
      const outage = queued.find((send) => send.id === 'e:team');
      await store.channels.sends.settle('e:team', 'me', { state: 'delivered', attempts: 1, dueAt: 11_000, status: 200, error: null, providerId: '1183245', sentAt: 20_500 });
      expect(await store.channels.sends.outage('team', 'n1')).toMatchObject({ id: outage?.id, providerId: '1183245', delivery: { purpose: 'first', message: { title: 'Chat e' } } });
      expect(await store.channels.sends.outage('ops', 'n1')).toBeUndefined();
      // Its outage there gone, #team's recovery is claimed; #ops's still waits behind its outage.
      expect((await store.channels.sends.claim('me', 20_600, 60_000, 10)).map((send) => send.id)).toEqual(['r:team']);
      // Refused for good: marked, and what still waits unclaimed for it goes nowhere.
      await store.channels.sends.settle('w:team', 'me', { state: 'queued', attempts: 1, dueAt: 40_000, status: 429, error: 'later', providerId: null, sentAt: null });
      await store.channels.attention('team', 21_000, 'Slack answered 404: no_service');
      expect((await store.channels.sends.recent(10)).find((send) => send.id === 'w:team')?.state).toBe('failed');
      expect(await store.channels.get('team')).toMatchObject({ attentionAt: 21_000, lastFailure: 'Slack answered 404: no_service' });
      // A change clears it; a success too.
      await store.channels.update({ id: 'team', name: '#team2', minSeverity: 'info', settings: '{"label":"x"}', sealedSecret: 'v1.new' });
      expect(await store.channels.get('team')).toMatchObject({ name: '#team2', minSeverity: 'info', attentionAt: null, attention: null, sealedSecret: 'v1.new' });
      await store.channels.succeeded('old', 22_000);
      expect(await store.channels.get('old')).toMatchObject({ lastSuccessAt: 22_000, attention: null });
      expect((await store.channels.list()).map((row) => row.id)).toEqual(['ops', 'team', 'old']);
      expect(await store.channels.remove('ops')).toBe(true);
      expect(await store.channels.remove('ops')).toBe(false);
      expect(await store.channels.sends.nextDue()).toBe(11_000);
    });

    it('finds the "flapping" notice a flap’s end answers on a connection, on whichever row of the subject it went (issue 48)', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'warning', 1_000));
      const flapping = { ...chatRow('f', 'warning', 'flap_start', 10_000, 'n3'), subjectKey: 'betterstack:monitor:api' };
      await store.notifications.outbox((ops) => ops.addDeliveries([flapping, { ...chatRow('o', 'error', 'first', 9_000, 'n2'), subjectKey: 'betterstack:monitor:api' }]));
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:api')).toBeUndefined();
      // Still queued: what the dry run of a recovery counts as told (it goes there after it).
      expect([await store.channels.sends.outageQueued('ops', 'n3'), await store.channels.sends.outageQueued('ops', 'n9')]).toEqual([true, false]);
      await store.channels.sends.claim('me', 20_000, 60_000, 10);
      await store.channels.sends.settle('f:ops', 'me', { state: 'delivered', attempts: 1, dueAt: 10_000, status: 200, error: null, providerId: 'ts-1', sentAt: 20_500 });
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:api')).toMatchObject({ id: 'f:ops', providerId: 'ts-1', delivery: { purpose: 'flap_start' } });
      expect(await store.channels.sends.flapStart('ops', 'betterstack:monitor:web')).toBeUndefined();
      expect(await store.channels.sends.outageQueued('ops', 'n3')).toBe(false);
    });

    it('re-seals a secret only while it is still the one read: not over what another process sealed first, nor for an unknown id (issue 49)', async () => {
      const store = await open();
      await store.channels.add(connection('ops', 'warning', 1_000));
      await store.channels.add(connection('team', 'warning', 2_000));
      await store.channels.rebind('ops', 'v1.sealed-ops', 'v1.bound-ops');
      // Nothing but the secret changes.
      expect(await store.channels.get('ops')).toEqual({ ...connection('ops', 'warning', 1_000), sealedSecret: 'v1.bound-ops' });
      // Another process (a store of its own) re-sealed #team first: a rebind from the value both read keeps its value.
      const other = await open();
      await other.channels.rebind('team', 'v1.sealed-team', 'v1.bound-by-other');
      await store.channels.rebind('team', 'v1.sealed-team', 'v1.bound-here');
      expect((await store.channels.get('team'))?.sealedSecret).toBe('v1.bound-by-other');
      // An unknown id: no row appears and none changes.
      await store.channels.rebind('gone', 'v1.sealed-ops', 'v1.bound-gone');
      await store.channels.rebind('gone', 'v1.bound-ops', 'v1.bound-gone');
      expect(await store.channels.get('gone')).toBeUndefined();
      expect((await store.channels.list()).map((row) => [row.id, row.sealedSecret])).toEqual([
        ['ops', 'v1.bound-ops'],
        ['team', 'v1.bound-by-other'],
      ]);
    });
  });
});
