import type { PushPayload } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import { noticeOf, saysAlready } from './notice';
import { clickTarget, fetchedPush, readPush, shownByWindow } from './push-notice';

const origin = 'https://dash.example.com';
const outage: PushPayload = {
  kind: 'alert',
  notificationId: 'n_42',
  title: 'Down: api.example.com',
  body: 'Timeout after 30 s',
  severity: 'error',
  tag: 'uptime:api',
  url: '/?notification=n_42',
  renotify: true,
  requireInteraction: true,
};

describe('what a push shows', () => {
  it('shows a message as the sender wrote it, with the app icon and what a click needs', () => {
    const read = readPush(JSON.stringify(outage));
    expect(read).toEqual({ payload: outage });
    expect(noticeOf(outage)).toEqual({
      title: 'Down: api.example.com',
      options: {
        body: 'Timeout after 30 s',
        tag: 'uptime:api',
        icon: '/icons/icon-192.png',
        data: { url: '/?notification=n_42', notificationId: 'n_42' },
        renotify: true,
        requireInteraction: true,
      },
    });
  });

  it('reads a pointer to a message too large to push, and falls back to its tag and url when the message cannot be had', () => {
    const pointer = { fetch: 'm_7', tag: 'uptime:api', url: '/?notification=n_42' };
    expect(readPush(JSON.stringify(pointer))).toEqual({ pointer });
    expect(fetchedPush(outage, pointer)).toEqual(outage);
    expect(fetchedPush({ error: { code: 'NOT_FOUND' } }, pointer)).toMatchObject({ title: 'New notification', tag: 'uptime:api', url: '/?notification=n_42' });
  });

  it('shows a generic notice for anything it cannot read (a push must show something)', () => {
    for (const text of [undefined, '', 'not json', '{"title": 1}', 'null']) {
      const read = readPush(text);
      expect('payload' in read && read.payload).toMatchObject({ title: 'New notification', tag: 'dashboard-push', url: '/' });
    }
  });

  it('stays silent while a dashboard window with the inbox is in view, except for a test', () => {
    const visible = { url: `${origin}/settings`, visibilityState: 'visible' as const };
    const hidden = { url: `${origin}/`, visibilityState: 'hidden' as const };
    expect(shownByWindow('alert', [hidden, visible])).toBe(true);
    expect(shownByWindow('resolve', [visible])).toBe(true);
    expect(shownByWindow('test', [visible])).toBe(false);
    expect(shownByWindow('alert', [hidden])).toBe(false);
    expect(shownByWindow('alert', [])).toBe(false);
    // Pages without the inbox show no toast.
    expect(shownByWindow('alert', [{ url: `${origin}/login?next=%2F`, visibilityState: 'visible' }])).toBe(false);
    expect(shownByWindow('alert', [{ url: `${origin}/offline.html`, visibilityState: 'visible' }])).toBe(false);
  });

  it('shows nothing more when the notice showing for its thread says it already (a hidden tab showed it), and replaces any other word', () => {
    const { title, options } = noticeOf(outage);
    expect(saysAlready([{ title: 'Down: api.example.com', body: 'Timeout after 30 s' }], title, options.body)).toBe(true);
    // The recovery, "still down", another outage's words: each replaces what shows.
    expect(saysAlready([{ title: 'Up again: api.example.com', body: 'Down for 4 min' }], title, options.body)).toBe(false);
    expect(saysAlready([{ title: 'Down: api.example.com', body: 'Still down after 1 h' }], title, options.body)).toBe(false);
    expect(saysAlready([], title, options.body)).toBe(false);
    // A message without a body, and a notice showing none (the Notifications API reads it as '').
    expect(saysAlready([{ title: 'Digest', body: '' }], 'Digest', undefined)).toBe(true);
  });
});

describe('where a click goes', () => {
  it("opens the notification's path on the dashboard", () => {
    expect(clickTarget({ url: '/?notification=n_42', notificationId: 'n_42' }, origin)).toBe(`${origin}/?notification=n_42`);
    expect(clickTarget({ url: `${origin}/briefing`, notificationId: null }, origin)).toBe(`${origin}/briefing`);
  });

  it('never opens another origin: the thread instead, else the start page', () => {
    expect(clickTarget({ url: 'https://evil.example/phish', notificationId: 'n_42' }, origin)).toBe(`${origin}/?notification=n_42`);
    expect(clickTarget({ url: '//evil.example/x', notificationId: null }, origin)).toBe(`${origin}/`);
    expect(clickTarget({ url: 'javascript:alert(1)', notificationId: null }, origin)).toBe(`${origin}/`);
    expect(clickTarget({ url: 'http://dash.example.com/', notificationId: null }, origin)).toBe(`${origin}/`);
    expect(clickTarget(null, origin)).toBe(`${origin}/`);
  });
});
