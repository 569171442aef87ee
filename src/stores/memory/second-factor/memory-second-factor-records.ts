import type { SecondFactorEnabling, SecondFactorRecords } from '../../../services/second-factor/second-factor-records';
import type { StoredSecondFactor, StoredUser } from '../../../services/types';
import { copySecondFactor, copyUser } from '../copies';
import { deleteSessionsOf } from '../memory-session-ends';
import type { MemoryData } from '../memory-state';

/** The second factor (TOTP) and its recovery codes, read outside a transaction or written in one. */
export class MemorySecondFactorRecords implements SecondFactorRecords {
  constructor(private readonly data: MemoryData) {}

  async get(userId: string): Promise<StoredSecondFactor | null> {
    const factor = this.data.secondFactors.get(userId);
    return factor ? copySecondFactor(factor) : null;
  }

  async countRecoveryCodes(userId: string): Promise<number> {
    return this.data.recoveryCodes.ownedBy(userId).filter(([, code]) => code.usedAt === null).length;
  }

  async start(factor: StoredSecondFactor): Promise<boolean> {
    const { data } = this;
    if (!data.users.has(factor.userId) || data.secondFactors.get(factor.userId)?.enabled) return false;
    data.secondFactors.set(factor.userId, copySecondFactor({ ...factor, enabled: false, enabledAt: null }));
    return true;
  }

  async enable(enabling: SecondFactorEnabling): Promise<{ user: StoredUser; sessionsEnded: number } | null> {
    const { data } = this;
    const { userId, sessionTokenHash } = enabling;
    const user = data.users.get(userId);
    const factor = data.secondFactors.get(userId);
    // The waiting factor the code was checked against, and no other: a start since then replaced it.
    if (!user || !factor || factor.enabled || factor.sealedSecret !== enabling.sealedSecret) return null;
    assertCodeHashesFree(data, userId, enabling.recoveryCodeHashes);
    data.secondFactors.set(userId, {
      ...factor,
      enabled: true,
      enabledAt: new Date(enabling.now),
      lastUsedStep: enabling.step,
    });
    replaceCodesOf(data, userId, enabling.recoveryCodeHashes);
    // Ending the other sessions moves the credential state on; the kept session goes with it.
    const now = enabling.endOtherSessions ? { ...user, credentialEpoch: user.credentialEpoch + 1 } : user;
    if (now !== user) data.users.set(userId, now);
    const session = sessionTokenHash === undefined ? undefined : data.sessions.get(sessionTokenHash);
    if (session?.userId === userId) {
      const methods = enabling.methods ? Object.freeze([...enabling.methods]) : session.methods;
      data.sessions.set(session.tokenHash, { ...session, methods, credentialEpoch: now.credentialEpoch });
    }
    const sessionsEnded = enabling.endOtherSessions
      ? deleteSessionsOf(data, userId, (other) => other.tokenHash !== sessionTokenHash)
      : 0;
    return { user: copyUser(now), sessionsEnded };
  }

  async useTotpStep(userId: string, step: number, _now: Date): Promise<boolean> {
    const factor = this.data.secondFactors.get(userId);
    if (!factor?.enabled || (factor.lastUsedStep !== null && factor.lastUsedStep >= step)) return false;
    this.data.secondFactors.set(userId, { ...factor, lastUsedStep: step });
    return true;
  }

  async consumeRecoveryCode(userId: string, codeHash: string, now: Date): Promise<StoredUser | null> {
    const user = this.data.users.get(userId);
    const code = this.data.recoveryCodes.get(codeHash);
    if (!user || code?.userId !== userId || code.usedAt !== null) return null;
    this.data.recoveryCodes.set(codeHash, { userId, usedAt: new Date(now) });
    return copyUser(user);
  }

  async replaceRecoveryCodes(
    userId: string,
    recoveryCodeHashes: readonly string[],
    _now: Date,
  ): Promise<StoredUser | null> {
    const user = this.data.users.get(userId);
    if (!user || !this.data.secondFactors.get(userId)?.enabled) return null;
    assertCodeHashesFree(this.data, userId, recoveryCodeHashes);
    replaceCodesOf(this.data, userId, recoveryCodeHashes);
    return copyUser(user);
  }

  async disable(userId: string, _now: Date): Promise<StoredUser | null> {
    const { data } = this;
    const user = data.users.get(userId);
    if (!user || !data.secondFactors.has(userId)) return null;
    data.secondFactors.delete(userId);
    data.recoveryCodes.deleteOwnedBy(userId);
    data.loginChallenges.deleteOwnedBy(userId);
    return copyUser(user);
  }
}

function replaceCodesOf(data: MemoryData, userId: string, codeHashes: readonly string[]): void {
  data.recoveryCodes.deleteOwnedBy(userId);
  for (const hash of codeHashes) data.recoveryCodes.set(hash, { userId, usedAt: null });
}

/** Mirrors the primary key of recovery codes: another user's hash, or one given twice, refuses the whole write. */
function assertCodeHashesFree(data: MemoryData, userId: string, codeHashes: readonly string[]): void {
  const owners = codeHashes.map((hash) => data.recoveryCodes.get(hash)?.userId);
  if (
    new Set(codeHashes).size !== codeHashes.length ||
    owners.some((owner) => owner !== undefined && owner !== userId)
  ) {
    throw new Error('MemoryUserStore: duplicate recovery code hash');
  }
}
