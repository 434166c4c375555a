import type { Store } from '@dash/db';

/**
 * The history's answers kept in memory per store for a minute: history changes once a day (a snapshot), at a backfill
 * or at an import, and a widget's trend is then no dearer than a cached data route. What this process changes
 * (`historyChanged`: history written, the schedule, a project) drops them at once; another process's writes show
 * within the minute.
 */

const MEMO_MS = 60_000;
const MEMO_ENTRIES = 500;
interface Memo {
  answers: Map<string, { until: number; answer: Promise<unknown> }>;
}
const memos = new WeakMap<object, Memo>();

/** This process wrote history, its schedule or its projects: answers kept from before are dropped. */
export function historyChanged(store: Pick<Store, 'transfer'>): void {
  memos.delete(store);
}

/** `compute`'s answer for `key`, kept for a minute (a failed one is not kept). */
export function memoised<T>(store: Store, now: number, key: string, compute: () => Promise<T>): Promise<T> {
  let memo = memos.get(store);
  if (!memo) memos.set(store, (memo = { answers: new Map() }));
  const kept = memo.answers.get(key);
  if (kept && kept.until > now) return kept.answer as Promise<T>;
  const answer = compute();
  const { answers } = memo;
  answers.delete(key);
  answers.set(key, { until: now + MEMO_MS, answer });
  if (answers.size > MEMO_ENTRIES) answers.delete(answers.keys().next().value as string);
  answer.catch(() => {
    if (answers.get(key)?.answer === answer) answers.delete(key);
  });
  return answer;
}
