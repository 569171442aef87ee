import * as argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { AccountError } from '../errors/account-error';
import { HashingOptions, HashingQueueOptions } from './account-options';
import { isAffordable, parseArgon2Parameters } from './argon2-parameters';
import type { Logger } from './logger';
import { BoundedWorkQueue } from './work-queue';

/** argon2's own default salt length; RFC 9106 recommends 16 bytes. */
const SALT_BYTES = 16;

/** Overload is logged at most once per this interval; see `logOverload`. */
const OVERLOAD_LOG_INTERVAL_MS = 1000;

const busy = () =>
  new AccountError('service_unavailable', 'Too many sign-in attempts in progress; retry shortly', {
    retryAfterSeconds: 1,
  });

/**
 * argon2id behind `{ hash, verify, needsRehash }`. Callers pass passwords already NFKC-normalized by the policy,
 * so the same password typed with composed or decomposed accents verifies alike.
 *
 * Every hash and verification, the dummy one included, goes through one bounded queue: past it the caller gets
 * `service_unavailable` (503 with `Retry-After`) at once instead of waiting in an ever-growing line. Known and
 * unknown users share the queue, so overload answers alike for both.
 */
export class PasswordHasher {
  private dummyHash?: Promise<string>;
  private readonly queue: BoundedWorkQueue;
  private refusedSinceLog = 0;
  private lastOverloadLog = -Infinity;

  constructor(
    private readonly params: HashingOptions,
    queue: HashingQueueOptions,
    private readonly logger?: Logger,
  ) {
    this.queue = new BoundedWorkQueue(queue.concurrency, queue.maxQueued);
  }

  /** Running and waiting hash jobs. */
  get load(): { running: number; queued: number } {
    return this.queue.load;
  }

  hash(password: string): Promise<string> {
    // The salt is made here, synchronously (16 bytes, argon2's default length, from the same CSPRNG). Left to the
    // package, it is an asynchronous randomBytes on libuv's pool, so the hash would start only when the event loop next
    // got round to it; a core then idled behind whatever the loop was doing (SQLite commits), which kept
    // registrations further from the argon2id ceiling than logins (75-77% against 84-88%).
    return this.scheduled(() =>
      argon2.hash(password, { type: argon2.argon2id, ...this.params, salt: randomBytes(SALT_BYTES) }),
    );
  }

  /**
   * False for a wrong password, for a stored value that is not an argon2 hash, and for one whose parameters would
   * cost absurd memory or time: none of them may log anyone in.
   */
  async verify(passwordHash: string, password: string): Promise<boolean> {
    const stored = parseArgon2Parameters(passwordHash);
    if (!stored) return false;
    if (!isAffordable(stored, this.params)) {
      this.logger?.warn(
        {
          event: 'password_hash_refused',
          memoryCost: stored.memoryCost,
          timeCost: stored.timeCost,
          parallelism: stored.parallelism,
        },
        'a stored password hash has unaffordable argon2 parameters; it was not verified',
      );
      return false;
    }
    return this.scheduled(async () => {
      try {
        return await argon2.verify(passwordHash, password);
      } catch {
        return false;
      }
    });
  }

  /**
   * Burns the same work as a real verification, so that an unknown username costs what a wrong password costs
   * (the dummy is hashed with the current parameters once, lazily, outside the queue's accounting of callers).
   */
  async verifyDummy(password: string): Promise<false> {
    this.dummyHash ??= argon2.hash('gatehouse dummy password, never matches', {
      type: argon2.argon2id,
      ...this.params,
    });
    await this.verify(await this.dummyHash, password);
    return false;
  }

  /**
   * `verify` against the account's password hash; for an account without a password (null), the dummy's work and
   * false, so that it answers as a wrong password does, in the same time.
   */
  async verifyOrDummy(passwordHash: string | null, password: string): Promise<boolean> {
    return passwordHash === null ? this.verifyDummy(password) : this.verify(passwordHash, password);
  }

  /** True when the stored hash is not argon2id or was made with other parameters than the current ones. */
  needsRehash(passwordHash: string): boolean {
    const stored = parseArgon2Parameters(passwordHash);
    return (
      !stored ||
      stored.type !== 'argon2id' ||
      stored.memoryCost !== this.params.memoryCost ||
      stored.timeCost !== this.params.timeCost ||
      stored.parallelism !== this.params.parallelism
    );
  }

  /**
   * Refuses now, as a hash or verification asked for now would be: the same `service_unavailable`, counted in the
   * same overload log line. Lets a caller shed a request before doing the work that leads up to its hash.
   */
  refuseIfSaturated(): void {
    if (!this.queue.saturated) return;
    this.logOverload();
    throw busy();
  }

  private scheduled<T>(work: () => Promise<T>): Promise<T> {
    const running = this.queue.tryRun(work);
    if (!running) {
      this.logOverload();
      return Promise.reject(busy());
    }
    return running;
  }

  /**
   * At most one `hashing_overloaded` line a second, counting the refusals it stands for. A flood is refused thousands
   * of times a second (`npm run bench`'s burst: about 2,400), and a line for each turned it into a flood of the logs
   * as well, each line written synchronously on the event loop that also hands the hashing pool its work.
   */
  private logOverload(): void {
    this.refusedSinceLog += 1;
    const now = performance.now();
    if (now - this.lastOverloadLog < OVERLOAD_LOG_INTERVAL_MS) return;
    this.logger?.warn(
      { event: 'hashing_overloaded', ...this.queue.load, refused: this.refusedSinceLog },
      'password hashing queue full; answered 503',
    );
    this.lastOverloadLog = now;
    this.refusedSinceLog = 0;
  }
}
