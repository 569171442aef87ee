import type {
  PasskeyCeremony,
  PasskeyRecords,
  PasskeyRemoval,
  StoredPasskey,
  StoredPasskeyChallenge,
} from '../../../services/passkeys/passkey-records';
import type { WayInRule } from '../../../services/ways-in';
import { copyUser, isAtOrBefore } from '../copies';
import type { MemoryData } from '../memory-state';
import { hasOtherWayIn } from '../ways-in';

/** Passkeys and their ceremonies' challenges, read outside a transaction or written in one. */
export class MemoryPasskeyRecords implements PasskeyRecords {
  constructor(private readonly data: MemoryData) {}

  async list(userId: string): Promise<StoredPasskey[]> {
    return passkeysOf(this.data, userId).map(copyPasskey);
  }

  async count(userId: string): Promise<number> {
    return this.data.passkeys.ownedBy(userId).length;
  }

  async findByCredentialId(credentialId: string): Promise<StoredPasskey | null> {
    const passkey = this.data.passkeys.lookup('credentialId', credentialId);
    return passkey ? copyPasskey(passkey) : null;
  }

  async add(passkey: StoredPasskey): Promise<'added' | 'duplicate' | 'gone'> {
    const { data } = this;
    const user = data.users.get(passkey.userId);
    if (!user) return 'gone';
    if (data.passkeys.lookup('credentialId', passkey.credentialId)) return 'duplicate';
    // The row id is a primary key: a clash is the caller's bug, thrown as the database would.
    if (data.passkeys.has(passkey.id)) throw new Error('MemoryUserStore: duplicate passkey id');
    data.passkeys.set(passkey.id, copyPasskey(passkey));
    data.users.set(user.id, { ...user, updatedAt: new Date(passkey.createdAt) });
    return 'added';
  }

  async rename(userId: string, id: string, name: string): Promise<StoredPasskey | null> {
    const passkey = this.data.passkeys.get(id);
    if (passkey?.userId !== userId) return null;
    const renamed = { ...passkey, name };
    this.data.passkeys.set(id, renamed);
    return copyPasskey(renamed);
  }

  async remove(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<PasskeyRemoval> {
    const { data } = this;
    const user = data.users.get(userId);
    const passkey = data.passkeys.get(id);
    if (!user || passkey?.userId !== userId) return { outcome: 'not_found' };
    if (wayIn && !hasOtherWayIn(data, userId, id, wayIn)) return { outcome: 'last_way_in' };
    data.passkeys.delete(id);
    const changed = { ...user, updatedAt: new Date(now) };
    data.users.set(userId, changed);
    return { outcome: 'removed', passkey: copyPasskey(passkey), user: copyUser(changed) };
  }

  async use(id: string, expected: number, next: number, backedUp: boolean, now: Date): Promise<boolean> {
    const passkey = this.data.passkeys.get(id);
    if (!passkey || passkey.counter !== expected) return false;
    this.data.passkeys.set(id, { ...passkey, counter: next, backedUp, lastUsedAt: new Date(now) });
    return true;
  }

  async createChallenge(challenge: StoredPasskeyChallenge): Promise<void> {
    const { data } = this;
    // As the database's foreign key and primary key would refuse them.
    if (challenge.userId !== null && !data.users.has(challenge.userId)) {
      throw new Error('MemoryUserStore: no user with that id');
    }
    if (data.passkeyChallenges.has(challenge.challengeHash)) {
      throw new Error('MemoryUserStore: duplicate passkey challenge hash');
    }
    data.passkeyChallenges.set(challenge.challengeHash, copyChallenge(challenge));
  }

  async consumeChallenge(
    challengeHash: string,
    ceremony: PasskeyCeremony,
    now: Date,
  ): Promise<StoredPasskeyChallenge | null> {
    const challenge = this.data.passkeyChallenges.get(challengeHash);
    // Another ceremony's challenge stays: a client cannot spend it by presenting it to the wrong route.
    if (!challenge || challenge.ceremony !== ceremony) return null;
    this.data.passkeyChallenges.delete(challengeHash);
    return isAtOrBefore(challenge.expiresAt, now) ? null : copyChallenge(challenge);
  }
}

/** Oldest first, as the SQL store orders them: `createdAt`, then `id`. */
function passkeysOf(data: MemoryData, userId: string): StoredPasskey[] {
  return data.passkeys
    .ownedBy(userId)
    .map(([, passkey]) => passkey)
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function copyPasskey(passkey: StoredPasskey): StoredPasskey {
  return {
    id: passkey.id,
    userId: passkey.userId,
    credentialId: passkey.credentialId,
    publicKey: passkey.publicKey,
    counter: passkey.counter,
    userHandle: passkey.userHandle,
    name: passkey.name,
    transports: [...passkey.transports],
    aaguid: passkey.aaguid,
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp,
    userVerified: passkey.userVerified,
    createdAt: new Date(passkey.createdAt),
    lastUsedAt: passkey.lastUsedAt ? new Date(passkey.lastUsedAt) : null,
  };
}

function copyChallenge(challenge: StoredPasskeyChallenge): StoredPasskeyChallenge {
  return {
    challengeHash: challenge.challengeHash,
    ceremony: challenge.ceremony,
    userId: challenge.userId ?? null,
    sessionId: challenge.sessionId ?? null,
    loginChallengeHash: challenge.loginChallengeHash ?? null,
    userHandle: challenge.userHandle ?? null,
    createdAt: new Date(challenge.createdAt),
    expiresAt: new Date(challenge.expiresAt),
  };
}
