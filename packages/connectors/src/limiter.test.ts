import { describe, expect, it } from 'vitest';
import { LimiterBusyError, slidingWindowLimiter } from './limiter.ts';
import { testClock } from './testing.ts';

describe('slidingWindowLimiter', () => {
  it('lets `limit` requests through at once and makes the next wait until the oldest leaves the window', async () => {
    const clock = testClock(0);
    const limiter = slidingWindowLimiter({ limit: 5, windowMs: 60_000 }, clock);
    for (let i = 0; i < 5; i++) await limiter.take(undefined, Number.POSITIVE_INFINITY);
    expect(clock.slept).toEqual([]);
    await limiter.take(undefined, Number.POSITIVE_INFINITY);
    expect(clock.slept).toEqual([60_000]);
  });

  it('fails at once with the wait when the turn is further away than the caller will wait', async () => {
    const clock = testClock(0);
    const limiter = slidingWindowLimiter({ limit: 1, windowMs: 60_000 }, clock);
    await limiter.take();
    clock.advance(10_000);
    const error = await limiter.take(undefined, 15_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimiterBusyError);
    expect(error).toMatchObject({ waitMs: 50_000, message: 'the next free slot is in 50 s' });
    // The refused caller took no slot: once the window passes, the next one goes straight through.
    clock.advance(50_000);
    await limiter.take(undefined, 0);
  });

  it('frees the place of a request the upstream did not count, and only that one', async () => {
    const clock = testClock(0);
    const limiter = slidingWindowLimiter({ limit: 2, windowMs: 60_000 }, clock);
    await limiter.take();
    clock.advance(1_000);
    const second = await limiter.take();
    limiter.refund(second);
    // Its place is free again: the next goes at once, and a refund of a turn no longer in the window changes nothing.
    await limiter.take(undefined, 0);
    limiter.refund(123);
    const error = await limiter.take(undefined, 0).catch((e: unknown) => e);
    expect(error).toMatchObject({ waitMs: 59_000 });
  });

  it('holds every request back for as long as a 429 said, even with room in the window', async () => {
    const clock = testClock(0);
    const limiter = slidingWindowLimiter({ limit: 100, windowMs: 1_000 }, clock);
    limiter.pauseFor(3_000);
    await limiter.take();
    expect(clock.slept).toEqual([3_000]);
  });

  it('serves callers in the order they asked', async () => {
    const clock = testClock(0);
    const limiter = slidingWindowLimiter({ limit: 1, windowMs: 1_000 }, clock);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => limiter.take(undefined, 10_000).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });
});
