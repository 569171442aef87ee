import { AccountOptions } from '../../src/services/account-options';
import type { AccountService } from '../../src/services/account-service';
import { createAccountService } from '../../src/di/create-account-service';
import type { AttemptLimiter } from '../../src/services/attempt-limiter';
import type { RequestOrigin } from '../../src/services/audit-trail';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import { UserStore } from '../../src/services/user-store';
import { ManualClock } from './manual-clock';
import { CapturingLogger } from './capturing-logger';
import { RecordingEmailSender } from './recording-email-sender';

import { OTHER_PASSWORD, PASSWORD, TEST_SECRET } from './fixtures';

export { OTHER_PASSWORD, TEST_SECRET };
export const STRONG_PASSWORD = PASSWORD;

export interface Harness {
  accounts: AccountService;
  store: UserStore;
  sender: RecordingEmailSender;
  clock: ManualClock;
  logger: CapturingLogger;
  /** Registers and verifies a user; returns its credentials. */
  createVerifiedUser(
    username: string,
    email?: string,
    password?: string,
  ): Promise<{ username: string; email: string; password: string }>;
  /** Registers, verifies and logs in; returns the raw session token. */
  loginNewUser(username: string, email?: string, password?: string): Promise<string>;
}

/** Without `limiter`, the core counts nothing (as when built without one); test/limits passes one. */
export function makeHarness(
  overrides: {
    store?: UserStore;
    options?: Partial<AccountOptions>;
    limiter?: AttemptLimiter;
    origin?: () => RequestOrigin | undefined;
  } = {},
): Harness {
  const store = overrides.store ?? new MemoryUserStore();
  const sender = new RecordingEmailSender();
  const clock = new ManualClock();
  const logger = new CapturingLogger();
  const accounts = createAccountService({
    store,
    sender,
    clock,
    logger,
    limiter: overrides.limiter,
    origin: overrides.origin,
    options: { secretKey: TEST_SECRET, ...overrides.options },
  });
  const harness: Harness = {
    accounts,
    store,
    sender,
    clock,
    logger,
    async createVerifiedUser(username, email = `${username}@example.com`, password = STRONG_PASSWORD) {
      await accounts.register({ username, email, password });
      await accounts.drain();
      await accounts.verifyEmail(sender.lastToken('sendVerification', email));
      await accounts.drain();
      return { username, email, password };
    },
    async loginNewUser(username, email, password = STRONG_PASSWORD) {
      await harness.createVerifiedUser(username, email, password);
      return accounts.login(username, password);
    },
  };
  return harness;
}
