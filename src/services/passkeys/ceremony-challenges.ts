import { randomBytes } from 'node:crypto';
import type { AccountContext } from '../account-context';
import type { PasskeyCeremony, StoredPasskeyChallenge } from './passkey-records';
import type { RelyingParty } from './relying-party';

/** 32 random bytes: twice WebAuthn's floor of 16 (§13.4.3) and ASVS V6.7.2's 64 bits. */
const CHALLENGE_BYTES = 32;
/** A client's `clientDataJSON` is a few hundred bytes; anything near this is not one. */
const MAX_CLIENT_DATA_CHARS = 4096;

/** Who may finish a ceremony, as the challenge binds it. */
export type ChallengeBinding = Pick<
  StoredPasskeyChallenge,
  'userId' | 'sessionId' | 'loginChallengeHash' | 'userHandle'
>;

export const UNBOUND: ChallengeBinding = { userId: null, sessionId: null, loginChallengeHash: null, userHandle: null };

/** A fresh challenge's raw bytes, for the library to put in the options it makes. */
export function newChallenge(): Uint8Array<ArrayBuffer> {
  return new Uint8Array(randomBytes(CHALLENGE_BYTES));
}

/**
 * Stores the challenge the options carry (base64url, as the client will echo it), hashed under the secret key and
 * bound to its ceremony and to who may finish it, expiring `challengeTtlMs` from now (computed per ceremony).
 */
export async function storeChallenge(
  core: Pick<AccountContext, 'store' | 'tokens' | 'clock'>,
  rp: RelyingParty,
  challenge: string,
  ceremony: PasskeyCeremony,
  binding: ChallengeBinding,
): Promise<void> {
  const now = core.clock.now();
  const row: StoredPasskeyChallenge = {
    challengeHash: core.tokens.hash(challenge),
    ceremony,
    ...binding,
    createdAt: now,
    expiresAt: new Date(now.getTime() + rp.challengeTtlMs),
  };
  await core.store.transaction((tx) => tx.passkeys.createChallenge(row));
}

/** The challenge a response answers, read from its `clientDataJSON` (JSON, not CBOR); null when it has none. */
export function challengeAnswered(response: unknown): string | null {
  const clientData = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > MAX_CLIENT_DATA_CHARS) return null;
  try {
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed?.challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(parsed.challenge)
      ? parsed.challenge
      : null;
  } catch {
    return null;
  }
}

/**
 * Spends the challenge a response answers, before anything is verified: the first verify consumes it whatever it
 * decides, so a failed attempt cannot be retried with the same challenge and two racing verifies cannot both pass
 * (better-auth #6192, #8376). The challenge as stored and as answered, or null when it is unknown, used, expired or
 * of another ceremony.
 */
export async function spendChallenge(
  core: Pick<AccountContext, 'store' | 'tokens' | 'clock'>,
  response: unknown,
  ceremony: PasskeyCeremony,
): Promise<{ answered: string; stored: StoredPasskeyChallenge } | null> {
  const answered = challengeAnswered(response);
  if (answered === null) return null;
  const hash = core.tokens.hash(answered);
  const stored = await core.store.transaction((tx) => tx.passkeys.consumeChallenge(hash, ceremony, core.clock.now()));
  return stored && { answered, stored };
}
