import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { ExposedError } from '../errors.ts';

/** An attempt refused before it was checked: too many failures lately (429 with Retry-After). */
export class ThrottledError extends ExposedError {
  constructor(readonly retryAfterSeconds: number) {
    super({ code: 'TOO_MANY_REQUESTS', message: `Too many failed sign-in attempts; try again in ${retryAfterSeconds} s.` });
    this.name = 'ThrottledError';
  }
}

const PER_ADDRESS = 5;
const OVERALL = 20;

const isLimiterAnswer = (value: unknown): value is RateLimiterRes => typeof value === 'object' && value !== null && 'msBeforeNext' in value;

/**
 * Failed sign-ins (passwords, setup tokens, API tokens): 5 per address per 5 minutes and 20 a minute
 * across all addresses. An attempt takes its point before the password is checked, so a burst of
 * parallel guesses cannot outrun the count; a success gives it back and clears the address. It
 * throttles for a while and never bans, so a mistyped password cannot lock the owner out for good.
 */
export class FailureThrottle {
  private readonly perAddress = new RateLimiterMemory({ points: PER_ADDRESS, duration: 5 * 60 });
  private readonly overall = new RateLimiterMemory({ points: OVERALL, duration: 60 });

  /** Takes a point for an attempt from `address`; throws ThrottledError when either budget is spent. */
  async attempt(address: string): Promise<void> {
    try {
      await this.perAddress.consume(address);
    } catch (error) {
      throw this.refusal(error);
    }
    try {
      await this.overall.consume('all');
    } catch (error) {
      await this.perAddress.reward(address);
      throw this.refusal(error);
    }
  }

  /** For cheap checks (API tokens): throws ThrottledError while `address` or everyone is over budget, takes nothing. */
  async check(address: string): Promise<void> {
    const [mine, all] = await Promise.all([this.perAddress.get(address), this.overall.get('all')]);
    for (const [answer, points] of [[mine, PER_ADDRESS], [all, OVERALL]] as const) {
      if (answer && answer.consumedPoints >= points) throw new ThrottledError(Math.max(1, Math.ceil(answer.msBeforeNext / 1000)));
    }
  }

  /** A cheap check failed: count it. */
  async failed(address: string): Promise<void> {
    await Promise.all([this.perAddress.consume(address), this.overall.consume('all')].map((spent) => spent.catch(() => undefined)));
  }

  /** The attempt succeeded: it was not a failure, and the address starts afresh. */
  async succeeded(address: string): Promise<void> {
    await Promise.all([this.perAddress.delete(address), this.overall.reward('all')]);
  }

  private refusal(error: unknown): Error {
    if (!isLimiterAnswer(error)) return error instanceof Error ? error : new Error(String(error));
    return new ThrottledError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
  }
}
