import { describe, expect, it } from 'vitest';
import { collectPages } from './http.ts';

describe('collectPages', () => {
  it('follows cursors to the last page', async () => {
    const pages: Record<string, { items: number[]; next: string | undefined }> = { start: { items: [1, 2], next: 'b' }, b: { items: [3], next: undefined } };
    expect(await collectPages<number, string>(undefined, (cursor) => Promise.resolve(pages[cursor ?? 'start'] ?? { items: [], next: undefined }))).toEqual([1, 2, 3]);
  });

  it('stops at a cursor it has already followed, instead of asking for the same page until its bound', async () => {
    const asked: (string | undefined)[] = [];
    const items = await collectPages<number, string>(undefined, (cursor) => {
      asked.push(cursor);
      return Promise.resolve({ items: [asked.length], next: 'same' });
    });
    expect(asked).toEqual([undefined, 'same']);
    expect(items).toEqual([1, 2]);
  });

  it('with a key, keeps each item once and stops at a page of items already read', async () => {
    let calls = 0;
    const items = await collectPages<{ id: string }, number>(
      undefined,
      (cursor = 0) => {
        calls++;
        // Every page after the second repeats it, under ever new cursors.
        return Promise.resolve({ items: cursor === 0 ? [{ id: 'a' }, { id: 'b' }] : [{ id: 'b' }, { id: 'c' }].slice(cursor > 1 ? 1 : 0), next: cursor + 1 });
      },
      { key: (item) => item.id },
    );
    expect(items.map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(calls).toBe(3);
  });

  it('with a key, goes on past a page the caller filtered to nothing', async () => {
    const pages = [[], [{ id: 'a' }]];
    const items = await collectPages<{ id: string }, number>(undefined, (cursor = 0) => Promise.resolve({ items: pages[cursor] ?? [], next: cursor < 1 ? cursor + 1 : undefined }), {
      key: (item) => item.id,
    });
    expect(items).toEqual([{ id: 'a' }]);
  });
});
