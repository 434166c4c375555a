import { isArgon2idHash } from '@dash/contracts';
import { hash, verify } from '@node-rs/argon2';
import pLimit from 'p-limit';

/** OWASP's Argon2id parameters: 19 MiB, 2 passes, 1 lane (about 0.1 s and 19 MiB per hash). */
const PARAMS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashes and verifies passwords with Argon2id, at most `concurrency` at a time, so a burst of logins
 * queues instead of taking 19 MiB and a core each.
 */
export class PasswordHasher {
  private readonly limit: ReturnType<typeof pLimit>;
  /** The most hashes that ever ran at once (observable in tests). */
  peak = 0;

  constructor(concurrency = 2) {
    this.limit = pLimit(concurrency);
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return this.limit(async () => {
      this.peak = Math.max(this.peak, this.limit.activeCount);
      return work();
    });
  }

  hash(password: string): Promise<string> {
    return this.run(() => hash(password, PARAMS));
  }

  /** False for a wrong password, and for a stored value that is not a hash this module understands. */
  verify(phc: string, password: string): Promise<boolean> {
    if (!isArgon2idHash(phc)) return Promise.resolve(false);
    return this.run(() => verify(phc, password));
  }

  /** The stored hash was made with weaker parameters than today's: rehash it on the next good login. */
  needsRehash(phc: string): boolean {
    const match = /\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
    return !match || Number(match[1]) < PARAMS.memoryCost || Number(match[2]) < PARAMS.timeCost;
  }
}
