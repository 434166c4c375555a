import { describe, expect, it } from 'vitest';
import { curatedPayload, PAYLOAD_LIMITS, withPayload } from './events.ts';

const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe('curatedPayload', () => {
  it('cuts strings to 200 characters, arrays to 20 items, and the whole to 2 KB of JSON', () => {
    const payload = curatedPayload({
      action: 'opened',
      pull_request: {
        title: 'x'.repeat(10 * 1024),
        labels: Array.from({ length: 100 }, (_, i) => `label-${i}`),
      },
      comments: Array.from({ length: 100 }, (_, i) => `${i} ${'y'.repeat(500)}`),
      after: 'still here',
    });
    const pr = payload?.pull_request as { title: string; labels: string[] };
    expect(pr.title).toBe('x'.repeat(200));
    expect(pr.labels).toEqual(Array.from({ length: 20 }, (_, i) => `label-${i}`));
    expect(jsonBytes(payload)).toBeLessThanOrEqual(PAYLOAD_LIMITS.jsonBytes);
    // First come, first kept: the fields before the long list whole, as many of its items as fit (from
    // the start, so the indices still hold), and a later small field that still fits.
    expect(payload?.action).toBe('opened');
    const comments = payload?.comments as string[];
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.length).toBeLessThan(20);
    expect(comments[0]).toBe(`0 ${'y'.repeat(198)}`);
    expect(payload?.after).toBe('still here');
  });

  it('counts bytes, not characters, and never splits a surrogate pair', () => {
    // Five strings of 200 two-byte characters are about 2 KB of JSON, though only 1 K characters.
    const payload = curatedPayload({ a: 'é'.repeat(200), b: 'é'.repeat(200), c: 'é'.repeat(200), d: 'é'.repeat(200), e: 'é'.repeat(200), f: 'é'.repeat(200) });
    expect(jsonBytes(payload)).toBeLessThanOrEqual(PAYLOAD_LIMITS.jsonBytes);
    expect(Object.keys(payload ?? {})).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(curatedPayload({ s: `${'a'.repeat(199)}😀` })).toEqual({ s: 'a'.repeat(199) });
  });

  it('keeps own, present JSON values only', () => {
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>;
    expect(
      curatedPayload({ a: undefined, b: null, c: { d: undefined }, e: [], f: Number.NaN, g: () => 1, h: new Date(0), i: { j: false }, hostile }),
    ).toEqual({ b: null, e: [], i: { j: false }, hostile: { ok: 1 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(curatedPayload({ a: undefined })).toBeUndefined();
    expect(withPayload({ a: undefined })).toEqual({});
    expect(withPayload({ a: 'b' })).toEqual({ payload: { a: 'b' } });
  });

  it('stops at the nesting a rule path can reach', () => {
    // A path has at most 8 segments: `l1.….l8` reads a value, nothing below it can be read.
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: 'eight', ok: 7, l8b: { l9: 'nine' } } } } } } } } };
    expect(JSON.stringify(curatedPayload(deep))).toBe('{"l1":{"l2":{"l3":{"l4":{"l5":{"l6":{"l7":{"l8":"eight","ok":7}}}}}}}}');
  });
});
