import * as argon2 from 'argon2';
import { HashingOptions } from './account-options';

/**
 * argon2id behind `{ hash, verify, needsRehash }`. Callers pass passwords already NFKC-normalized by the policy,
 * so the same password typed with composed or decomposed accents verifies alike.
 */
export class PasswordHasher {
  private dummyHash?: Promise<string>;

  constructor(private readonly params: HashingOptions) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id, ...this.params });
  }

  /** False for a wrong password and for a stored value that is not an argon2 hash: neither may log anyone in. */
  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(passwordHash, password);
    } catch {
      return false;
    }
  }

  /**
   * Burns the same work as a real verification, so that an unknown username costs what a wrong password costs
   * (the dummy is hashed with the current parameters once, lazily).
   */
  async verifyDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('gatehouse dummy password, never matches');
    await this.verify(await this.dummyHash, password);
    return false;
  }

  /** True when the stored hash is not argon2id or was made with other parameters than the current ones. */
  needsRehash(passwordHash: string): boolean {
    if (!passwordHash.startsWith('$argon2id$')) return true;
    try {
      return argon2.needsRehash(passwordHash, { ...this.params });
    } catch {
      return true;
    }
  }
}
