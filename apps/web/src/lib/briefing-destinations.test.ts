import { describe, expect, it } from 'vitest';
import { cadenceOf, cadenceText, draftOf, inOrder, lastWords, sentText } from './briefing-destinations.ts';

describe('the briefing on your channels: the schedule form', () => {
  it('keeps a day and a time while off, and sends only what the chosen schedule has', () => {
    const draft = draftOf({ every: 'off' });
    expect(draft).toEqual({ every: 'off', day: 'mon', time: '08:00' });
    expect(cadenceOf(draft)).toEqual({ every: 'off' });
    expect(cadenceOf({ ...draft, every: 'day', time: '07:30' })).toEqual({ every: 'day', time: '07:30' });
    expect(cadenceOf({ every: 'week', day: 'fri', time: '17:45' })).toEqual({ every: 'week', day: 'fri', time: '17:45' });
    expect(draftOf({ every: 'week', day: 'fri', time: '17:45' })).toEqual({ every: 'week', day: 'fri', time: '17:45' });
  });

  it('says a saved schedule in words', () => {
    expect(cadenceText({ every: 'off' })).toBe('Off');
    expect(cadenceText({ every: 'day', time: '08:00' })).toBe('Daily at 08:00');
    expect(cadenceText({ every: 'week', day: 'thu', time: '09:15' })).toBe('Weekly on Thursday at 09:15');
  });

  it('sends the parts in the briefing’s order, whatever order they were ticked in', () => {
    expect(inOrder(['reviews', 'needs_you'])).toEqual(['needs_you', 'reviews']);
  });
});

describe('the briefing on your channels: how the last send went', () => {
  const record = { date: '2026-12-07', period: 'day' as const, at: '2026-12-07T08:00:00.000Z', posted: 1, messages: 1, error: null };

  it('says sent, failed with the service’s words, and skipped with why', () => {
    expect(lastWords({ ...record, status: 'sent' })).toEqual(['Last: the daily briefing sent', '']);
    expect(lastWords({ ...record, period: 'week', status: 'failed', posted: 1, messages: 3, error: 'Discord answered 404: Unknown Webhook' })).toEqual([
      'Last: the weekly briefing failed (1 of 3 messages)',
      ': Discord answered 404: Unknown Webhook',
    ]);
    expect(lastWords({ ...record, status: 'skipped', error: 'Not sent: the dashboard was not running' })).toEqual(['Last: the daily briefing skipped', ': Not sent: the dashboard was not running']);
    expect(lastWords({ ...record, status: 'failed' })[1]).toBe(': no reason given');
  });

  it('counts the messages a send now posted', () => {
    expect(sentText(1)).toBe('Sent now: 1 message went.');
    expect(sentText(3)).toBe('Sent now: 3 messages went.');
  });
});
