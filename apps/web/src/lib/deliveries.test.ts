import type { DeliverySummary } from '@dash/contracts';
import { describe, expect, it } from 'vitest';
import {
  decisionLine,
  filterFromQuery,
  filterToQuery,
  isFiltered,
  listQuery,
  noFilter,
  outcomeNames,
  providerName,
  receivedText,
  replayRequest,
  replaySummary,
  rowName,
  shortId,
  withReplayed,
} from './deliveries.ts';

const NOW = Date.parse('2026-12-07T12:00:00Z');
const query = (text: string) => new URLSearchParams(text);

const row = (id: string, over: Partial<DeliverySummary> = {}): DeliverySummary => ({
  id,
  receivedAt: '2026-12-07T11:00:00Z',
  source: 'local',
  integration: 'code_host',
  eventType: 'pr.opened',
  deliveryId: 'd-1',
  outcome: 'notified',
  detail: null,
  title: 'PR #2 opened',
  projectSlug: 'web',
  notificationId: 'n1',
  duplicateOf: null,
  replayOf: null,
  hasBody: true,
  ...over,
});

describe('the filters in the URL', () => {
  it('reads each filter from the query and writes it back the same, without the defaults', () => {
    const text = '?integration=code_host&outcome=duplicate&time=24h&q=readme&notification=n_42';
    const filter = filterFromQuery(query(text));
    expect(filter).toEqual({ integration: 'code_host', outcome: 'duplicate', time: '24h', q: 'readme', notification: 'n_42' });
    expect(filterToQuery(filter)).toBe(text);
    expect(filterToQuery(noFilter)).toBe('');
    expect(filterToQuery({ ...noFilter, q: 'two words & more' })).toBe('?q=two+words+%26+more');
    expect(filterFromQuery(query('q=two+words+%26+more')).q).toBe('two words & more');
  });

  it('leaves out what the page does not know, and trims the search', () => {
    expect(filterFromQuery(query('integration=gitlab&outcome=lost&time=2y&q=%20%20&notification='))).toEqual(noFilter);
    expect(filterFromQuery(query('q=%20ping%20')).q).toBe('ping');
    expect(filterFromQuery(query(`q=${'x'.repeat(250)}`)).q).toHaveLength(200);
  });

  it('says whether anything narrows the list', () => {
    expect(isFiltered(noFilter)).toBe(false);
    expect(isFiltered({ ...noFilter, time: 'all', q: '  ' })).toBe(false);
    expect(isFiltered({ ...noFilter, outcome: 'ignored' })).toBe(true);
    expect(isFiltered({ ...noFilter, notification: 'n1' })).toBe(true);
  });
});

describe('the API’s query', () => {
  it('turns the time range into `since` from now, and passes the rest and the cursor', () => {
    expect(listQuery({ ...noFilter, time: '1h', outcome: 'invalid', q: ' body ' }, NOW, 'c1')).toEqual({
      outcome: 'invalid',
      since: '2026-12-07T11:00:00.000Z',
      q: 'body',
      cursor: 'c1',
      limit: 50,
    });
    expect(listQuery({ ...noFilter, time: '7d', integration: 'uptime_monitor', notification: 'n9' }, NOW)).toEqual({
      integration: 'uptime_monitor',
      since: '2026-11-30T12:00:00.000Z',
      notification: 'n9',
      limit: 50,
    });
    expect(listQuery(noFilter, NOW)).toEqual({ limit: 50 });
  });
});

describe('words', () => {
  it('names every outcome and provider', () => {
    expect(Object.values(outcomeNames)).toEqual(['New notification', 'Added to a thread', 'Duplicate', 'Ignored', 'Invalid']);
    expect(providerName('uptime_monitor')).toBe('Better Stack');
    expect(providerName('gitlab')).toBe('gitlab');
  });

  it('says a decision’s severity and channels, and names a row with no title by its kind', () => {
    expect(decisionLine({ severity: 'info', channels: ['inApp'] })).toBe('Severity info; to the inbox.');
    expect(decisionLine({ severity: 'error', channels: ['inApp', 'browser', 'chat'] })).toBe('Severity error; to the inbox, a browser notification and chat.');
    expect(decisionLine({ severity: 'warning', channels: [] })).toBe('Severity warning; to no channel.');
    expect(rowName({ title: 'PR #2 opened', eventType: 'pr.opened' })).toBe('PR #2 opened');
    expect(rowName({ title: null, eventType: 'ping' })).toBe('A ping webhook');
    expect(rowName({ title: null, eventType: null })).toBe('A webhook with no event');
  });

  it('cuts a long id and keeps a short one', () => {
    expect(shortId('72d3162e-cc78-11e3-81ab-4c9367dc0958')).toBe('72d3162e…');
    expect(shortId('evt_123')).toBe('evt_123');
  });

  it('says when, on the local clock to the second today and with the day before, and how long ago', () => {
    const now = new Date(2026, 11, 7, 15, 0, 0).getTime();
    expect(receivedText(new Date(2026, 11, 7, 14, 5, 9).toISOString(), now)).toEqual({ local: '14:05:09', relative: '55 minutes ago' });
    expect(receivedText(new Date(2026, 11, 3, 8, 0, 0).toISOString(), now)).toEqual({ local: '3 Dec, 08:00:00', relative: '4 days ago' });
    expect(receivedText('not a time', now)).toEqual({ local: 'not a time', relative: '' });
  });
});

describe('a replay', () => {
  let counter = 0;
  const newId = () => `request-${++counter}`;

  it('keeps the request id when the same selection is tried again after a failure, and takes a new one for another', () => {
    const first = replayRequest(undefined, ['a', 'b'], newId);
    expect(first).toEqual({ ids: ['a', 'b'], requestId: 'request-1' });
    expect(replayRequest(first, ['b', 'a'], newId).requestId).toBe('request-1');
    expect(replayRequest(first, ['a'], newId).requestId).toBe('request-2');
    expect(replayRequest(first, ['a', 'b', 'c'], newId).requestId).toBe('request-3');
  });

  it('puts the new rows on top, once', () => {
    const list = [row('r2'), row('r1')];
    const replayed = [row('r3', { replayOf: 'r1', source: 'replay' })];
    expect(withReplayed(list, replayed).map((each) => each.id)).toEqual(['r3', 'r2', 'r1']);
    expect(withReplayed(withReplayed(list, replayed), replayed).map((each) => each.id)).toEqual(['r3', 'r2', 'r1']);
  });

  it('says what was replayed and what was not, with why', () => {
    expect(replaySummary({ repeated: false, replayed: [row('r3')], skipped: [] })).toBe('Replayed 1: the new row is at the top.');
    expect(
      replaySummary(
        { repeated: false, replayed: [row('r3'), row('r4')], skipped: [{ id: 'r5', why: 'Nothing to replay: it was ignored, so no event came of it' }] },
        (id) => `“${id}”`,
      ),
    ).toBe('Replayed 2: the new rows are at the top. Not replayed: “r5” (Nothing to replay: it was ignored, so no event came of it).');
    expect(replaySummary({ repeated: true, replayed: [row('r3')], skipped: [] })).toBe('This replay was made before: its 1 row is shown, nothing was sent again.');
    expect(replaySummary({ repeated: false, replayed: [], skipped: [] })).toBe('Nothing was replayed.');
  });
});
