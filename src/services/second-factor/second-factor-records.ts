import type { AuthMethod, StoredLoginChallenge, StoredSecondFactor, StoredUser } from '../types';

/** What `SecondFactorRecords.enable` switches on, and what it does to the user's sessions. */
export interface SecondFactorEnabling {
  userId: string;
  /** The waiting factor's sealed secret, as read before its code was checked: only that factor is switched on. */
  sealedSecret: string;
  /** The time step of the code that proved it: the factor's last used step. */
  step: number;
  recoveryCodeHashes: readonly string[];
  now: Date;
  /** The session that proved the code: its methods become `methods`, and `endOtherSessions` keeps it. */
  sessionTokenHash?: string;
  /** What the session of `sessionTokenHash` now counts as authenticated with (a password and a code), if it changes. */
  methods?: readonly AuthMethod[];
  /**
   * End every other session of the user (all but `sessionTokenHash`'s): the user's `credentialEpoch` moves on by one,
   * and the kept session is issued under the new one.
   */
  endOtherSessions?: boolean;
}

/** The second factor and its recovery codes, read outside a transaction or in one. */
export interface SecondFactorReads {
  /** The user's second factor, enabled or waiting for its first code; null when none. */
  get(userId: string): Promise<StoredSecondFactor | null>;
  /** The user's recovery codes not used yet. */
  countRecoveryCodes(userId: string): Promise<number>;
}

/**
 * The second factor (TOTP) and its recovery codes, inside a transaction (`UserStoreTransaction.secondFactors`). The
 * methods that change the factor return the user (to address a notice to), or null when nothing changed.
 */
export interface SecondFactorRecords extends SecondFactorReads {
  /**
   * Stores a factor waiting for its first code (`enabled: false`), replacing a waiting one. False, and nothing
   * changed, when the user has an enabled factor or is gone.
   */
  start(factor: StoredSecondFactor): Promise<boolean>;
  /**
   * Enables the user's waiting factor, only when it is still the one whose sealed secret the code was checked
   * against (a compare-and-set, so a start that replaced it meanwhile makes this fail rather than switch on a secret
   * no code proved), with `step` as its last used step; replaces the user's recovery codes with these hashes. The
   * session of `sessionTokenHash`, when it is the user's, gets `methods` (when given); with `endOtherSessions`, the user's
   * `credentialEpoch` moves on, every other session of the user ends (`sessionsEnded` counts them) and the kept one
   * takes the new epoch. The user is returned as it now is. Null, and nothing changed, when that factor is not waiting
   * (none, another one, or already enabled).
   */
  enable(enabling: SecondFactorEnabling): Promise<{ user: StoredUser; sessionsEnded: number } | null>;
  /**
   * Records `step` as used (and `now` as the factor's last use), only when the user's factor is enabled and its last used step is null or earlier: of
   * concurrent uses of one step, exactly one returns true.
   */
  useTotpStep(userId: string, step: number, now: Date): Promise<boolean>;
  /**
   * Marks the recovery code used (its `last_used_at` becomes `now`) if it was the user's and unused: the user for
   * exactly one of concurrent callers. A used code never counts or verifies again.
   */
  consumeRecoveryCode(userId: string, codeHash: string, now: Date): Promise<StoredUser | null>;
  /** Replaces the user's recovery codes, only while the factor is enabled. */
  replaceRecoveryCodes(userId: string, recoveryCodeHashes: readonly string[], now: Date): Promise<StoredUser | null>;
  /** Deletes the user's factor (enabled or waiting), recovery codes and login challenges; null when it had none. */
  disable(userId: string, now: Date): Promise<StoredUser | null>;
}

/** The challenges a right password gives an account with a second factor, read outside a transaction or in one. */
export interface LoginChallengeReads {
  /** The unexpired challenge of this hash as it is, counting nothing; null when unknown, used or expired. */
  find(tokenHash: string, now: Date): Promise<StoredLoginChallenge | null>;
}

/** Login challenges, inside a transaction (`UserStoreTransaction.loginChallenges`). */
export interface LoginChallengeRecords extends LoginChallengeReads {
  create(challenge: StoredLoginChallenge): Promise<void>;
  /**
   * Counts one answer to a live challenge: when it is unexpired and has had fewer than `maxAttempts` answers, its
   * `attempts` goes up by one and the challenge is returned as it now is; otherwise null (unknown, expired, used or
   * out of answers). Concurrent answers never get more than `maxAttempts` in all.
   */
  takeAttempt(tokenHash: string, now: Date, maxAttempts: number): Promise<StoredLoginChallenge | null>;
  /** Deletes the challenge: true for exactly one of concurrent callers (it yields one session). */
  consume(tokenHash: string): Promise<boolean>;
}
