import type { LoginChallengeRecords } from '../../../services/second-factor/second-factor-records';
import type { StoredLoginChallenge } from '../../../services/types';
import { copyLoginChallenge, isAtOrBefore } from '../copies';
import type { MemoryData } from '../memory-state';

/** The challenges a right password gives an account with a second factor, read outside a transaction or in one. */
export class MemoryLoginChallengeRecords implements LoginChallengeRecords {
  constructor(private readonly data: MemoryData) {}

  async find(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null> {
    const challenge = this.data.loginChallenges.get(tokenHash);
    return challenge && !isAtOrBefore(challenge.expiresAt, now) ? copyLoginChallenge(challenge) : null;
  }

  async create(challenge: StoredLoginChallenge): Promise<void> {
    if (!this.data.users.has(challenge.userId)) throw new Error('MemoryUserStore: no user with that id');
    if (this.data.loginChallenges.has(challenge.tokenHash)) {
      throw new Error('MemoryUserStore: duplicate challenge hash');
    }
    this.data.loginChallenges.set(challenge.tokenHash, copyLoginChallenge(challenge));
  }

  async takeAttempt(tokenHash: string, now: Date, maxAttempts: number): Promise<StoredLoginChallenge | null> {
    const challenge = this.data.loginChallenges.get(tokenHash);
    if (!challenge || isAtOrBefore(challenge.expiresAt, now) || challenge.attempts >= maxAttempts) return null;
    const counted = { ...challenge, attempts: challenge.attempts + 1 };
    this.data.loginChallenges.set(tokenHash, counted);
    return copyLoginChallenge(counted);
  }

  async consume(tokenHash: string): Promise<boolean> {
    return this.data.loginChallenges.delete(tokenHash);
  }
}
