import { describe, expect, it } from 'vitest';
import { noticeBoard, type Subscriptions } from './notices.ts';

/** Subscriptions that answer only when the test says so, recording what was asked. */
function manual() {
  const calls: string[] = [];
  const open: { settle: (error?: Error) => void }[] = [];
  const call = (what: string) => () => {
    calls.push(what);
    return new Promise<void>((resolve, reject) => open.push({ settle: (error) => (error ? reject(error) : resolve()) }));
  };
  const subscriptions: Subscriptions = { subscribe: (key) => call(`subscribe ${key}`)(), unsubscribe: (key) => call(`unsubscribe ${key}`)() };
  return {
    subscriptions,
    calls,
    /** Answers the oldest call still open. */
    async answer(error?: Error) {
      await flush();
      const next = open.shift();
      if (!next) throw new Error(`No call is waiting for an answer (calls so far: ${calls.join(', ')})`);
      next.settle(error);
      await flush();
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

/** Whether a promise has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await flush();
  return done;
}

describe('the notice board', () => {
  it('resolves a watch only once its key is subscribed, so a read after it misses nothing', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const watching = board.notices.watch('k');
    expect(await settled(watching)).toBe(false);
    expect(redis.calls).toEqual(['subscribe k']);
    await redis.answer();
    expect(await settled(watching)).toBe(true);
  });

  it('subscribes a key once for all its watches, and unsubscribes when the last one stops', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const first = board.notices.watch('k');
    const second = board.notices.watch('k');
    await redis.answer();
    const [a, b] = await Promise.all([first, second]);
    expect(board.notices.watching('k')).toBe(2);
    a.stop();
    a.stop();
    expect(board.notices.watching('k')).toBe(1);
    b.stop();
    expect(board.notices.watching()).toBe(0);
    await redis.answer();
    expect(redis.calls).toEqual(['subscribe k', 'unsubscribe k']);
  });

  it('unsubscribes a key whose later watches joined a subscription already live', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const first = board.notices.watch('k');
    await redis.answer();
    const a = await first;
    const b = await board.notices.watch('k');
    const c = await board.notices.watch('k');
    expect(redis.calls).toEqual(['subscribe k']);
    for (const watch of [a, b, c]) watch.stop();
    await flush();
    expect(redis.calls).toEqual(['subscribe k', 'unsubscribe k']);
    await redis.answer();
    // And a watch after that subscribes afresh.
    const again = board.notices.watch('k');
    await redis.answer();
    expect(await settled(again)).toBe(true);
    expect(redis.calls).toEqual(['subscribe k', 'unsubscribe k', 'subscribe k']);
  });

  it('subscribes a key again for a watch that arrives while it is being unsubscribed, before resolving it', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const first = board.notices.watch('k');
    await redis.answer();
    (await first).stop();
    await flush();
    expect(redis.calls).toEqual(['subscribe k', 'unsubscribe k']);

    const again = board.notices.watch('k');
    await redis.answer();
    expect(await settled(again)).toBe(false);
    expect(redis.calls).toEqual(['subscribe k', 'unsubscribe k', 'subscribe k']);
    await redis.answer();
    expect(await settled(again)).toBe(true);
  });

  it('rejects the watches of a failed subscribe and keeps none of them; the next watch tries again', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const watching = board.notices.watch('k');
    const rejected = expect(watching).rejects.toThrow('connection lost');
    await redis.answer(new Error('connection lost'));
    await rejected;
    expect(board.notices.watching()).toBe(0);

    const again = board.notices.watch('k');
    await redis.answer();
    await expect(again).resolves.toBeDefined();
    expect(redis.calls).toEqual(['subscribe k', 'subscribe k']);
  });

  it('wakes the watches of the key stored to, and no others', async () => {
    const board = noticeBoard();
    const [k, other] = await Promise.all([board.notices.watch('k'), board.notices.watch('other')]);
    const waits = [k.next(5_000), other.next(200)];
    board.notify('k');
    expect(await Promise.all(waits)).toEqual(['stored', 'timeout']);
  });

  it('keeps a notice that came while nobody waited for the next wait, once', async () => {
    const board = noticeBoard();
    const watch = await board.notices.watch('k');
    board.notify('k');
    board.notify('k');
    expect(await watch.next(5_000)).toBe('stored');
    expect(await watch.next(20)).toBe('timeout');
  });

  it('ends a wait when its signal aborts, and removes the abort listener when it ends otherwise', async () => {
    const board = noticeBoard();
    const watch = await board.notices.watch('k');
    const controller = new AbortController();
    const waiting = watch.next(5_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe('aborted');
    expect(await watch.next(5_000, controller.signal)).toBe('aborted');

    const signal = new AbortController().signal;
    let listeners = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => (listeners++, add(...args));
    signal.removeEventListener = (...args: Parameters<typeof remove>) => (listeners--, remove(...args));
    const stored = watch.next(5_000, signal);
    board.notify('k');
    expect(await stored).toBe('stored');
    expect(await watch.next(10, signal)).toBe('timeout');
    expect(listeners).toBe(0);
  });

  it('ends every wait at once when it ends, and every later one', async () => {
    const redis = manual();
    const board = noticeBoard(redis.subscriptions);
    const watching = board.notices.watch('k');
    await redis.answer();
    const watch = await watching;
    const waiting = watch.next(60_000);
    board.notices.end();
    expect(await waiting).toBe('ended');
    expect(await watch.next(60_000)).toBe('ended');
    const later = await board.notices.watch('k');
    expect(await later.next(60_000)).toBe('ended');
    watch.stop();
    expect(board.notices.watching()).toBe(0);
    // No subscribe for the later watch, and no unsubscribe: closing takes the connection away.
    expect(redis.calls).toEqual(['subscribe k']);
  });
});
