import { isIP } from 'node:net';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { RetryLaterError } from '../errors.ts';

/** An attempt refused before it was checked: too many failures lately (429 with Retry-After). */
export class ThrottledError extends RetryLaterError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, `Too many failed sign-in attempts; try again in ${retryAfterSeconds} s.`);
    this.name = 'ThrottledError';
  }
}

const PER_ADDRESS = 5;
const WINDOW_SECONDS = 5 * 60;

const isLimiterAnswer = (value: unknown): value is RateLimiterRes => typeof value === 'object' && value !== null && 'msBeforeNext' in value;

/**
 * The key a client's failures are counted under: an IPv4 address as it is (also when IPv4-mapped,
 * `::ffff:192.0.2.1`) and without a port, an IPv6 address by its /64, which is what one host or one home
 * gets (it could otherwise take a fresh address from it for every guess); no address at all under `unknown`.
 */
export function addressKey(address: string | undefined): string {
  const text = (address ?? '').trim();
  // A proxy may add the client's port (`192.0.2.1:51234`, `[2001:db8::1]:51234`); the port is not the client.
  const bare = (/^\[([^\]]*)\](?::\d+)?$/.exec(text)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text)?.[1] ?? text).split('%')[0] ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped && isIP(mapped) === 4) return mapped;
  const kind = isIP(bare);
  if (kind === 4) return bare;
  if (kind !== 6) return text === '' ? 'unknown' : `other:${text.slice(0, 100)}`;
  const [head = '', tail] = bare.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  // `a:b::c` leaves out zero groups; an embedded IPv4 tail only ever sits beyond the first four groups.
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const prefix = groups.slice(0, 4).map((group) => (Number.parseInt(group, 16) || 0).toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * Failed sign-ins (passwords, setup tokens, API tokens): 5 per client address per 5 minutes (an IPv6
 * client by its /64), and nothing shared between addresses, so no client's failures ever hold another
 * one up. A password attempt takes its point before the password is checked, so a burst of parallel
 * guesses cannot outrun the count; a success gives it back and clears the address. It throttles for a
 * while and never bans, so a mistyped password cannot lock the owner out for good.
 *
 * There is deliberately no budget across addresses: any such budget is one an attacker can spend to lock
 * the owner out. Guessing from many addresses at once is bounded instead by the hashing itself
 * (argon2id, about 0.1 s each and at most two at a time, so some 20 guesses a second for the whole
 * server however many addresses send them; more queue rather than being refused) against a password of at
 * least 12 characters.
 */
export class FailureThrottle {
  private readonly perAddress = new RateLimiterMemory({ points: PER_ADDRESS, duration: WINDOW_SECONDS });

  /** Takes a point for an attempt from `address`; throws ThrottledError when its budget is spent. */
  async attempt(address: string | undefined): Promise<void> {
    try {
      await this.perAddress.consume(addressKey(address));
    } catch (error) {
      throw this.refusal(error);
    }
  }

  /** For cheap checks (setup links, API tokens): throws ThrottledError while `address` is over budget, takes nothing. */
  async check(address: string | undefined): Promise<void> {
    const answer = await this.perAddress.get(addressKey(address));
    if (answer && answer.consumedPoints >= PER_ADDRESS) throw new ThrottledError(Math.max(1, Math.ceil(answer.msBeforeNext / 1000)));
  }

  /** A cheap check failed: count it against `address`. */
  async failed(address: string | undefined): Promise<void> {
    await this.perAddress.consume(addressKey(address)).catch(() => undefined);
  }

  /** The password was right: it was not a failure, and the address starts afresh. */
  async succeeded(address: string | undefined): Promise<void> {
    await this.perAddress.delete(addressKey(address));
  }

  private refusal(error: unknown): Error {
    if (!isLimiterAnswer(error)) return error instanceof Error ? error : new Error(String(error));
    return new ThrottledError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
  }
}
