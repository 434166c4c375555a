/**
 * A job of one dashboard process that looks now and then (the briefing email's sender, the metric history's keeper):
 * `look` runs at most once at a time in the process, first at `start()`, again on `kick()` (something changed here),
 * and otherwise after `wait()` ms (its next due time, capped by the caller); a failed look is reported and the next
 * one comes all the same. `stop()` waits for a look under way.
 */
export class Ticker<T> {
  private running: Promise<T> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;

  constructor(
    private readonly job: {
      look: () => Promise<T>;
      /** How long until the next look, after one; asked after each. */
      wait: () => Promise<number>;
      /** How long to wait when `look` or `wait` failed. */
      fallbackMs: number;
      failed: (error: Error) => void;
    },
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The first look comes after `delayMs` (at once by default). */
  start(delayMs = 0): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.arm(delayMs);
  }

  kick(): void {
    if (this.started && !this.stopped) this.arm(0);
  }

  /** One look, shared with one already under way. */
  tick(): Promise<T> {
    this.running ??= this.job.look().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private arm(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), delay);
    this.timer.unref();
  }

  private async loop(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    let wait = this.job.fallbackMs;
    try {
      await this.tick();
      wait = await this.job.wait();
    } catch (error) {
      if (!this.stopped) this.job.failed(error as Error);
    }
    if (!this.stopped) this.arm(wait);
  }
}
