import type { StoredUser } from '../types';
import type { WayInRule } from '../ways-in';

/**
 * What a WebAuthn challenge was issued for: adding a passkey to a signed-in account, signing in without a username,
 * answering a sign-in's second-factor challenge, or re-authenticating a session. A challenge verifies only the
 * ceremony it was issued for.
 */
export type PasskeyCeremony = 'registration' | 'sign_in' | 'second_factor' | 'reauthentication';

/**
 * A passkey: one credential row of kind `passkey`. What WebAuthn needs to verify its next assertion (the public key,
 * the signature counter), what the person sees of it (a name, when it was added and last used, whether it is synced)
 * and what the authenticator said of itself at registration.
 */
export interface StoredPasskey {
  /** The credential row's id: the passkey's public name in the API (never the WebAuthn credential id). */
  id: string;
  userId: string;
  /** The WebAuthn credential id (base64url), unique across every account. */
  credentialId: string;
  /** The credential public key as `@simplewebauthn/server` returns it (COSE), base64url. */
  publicKey: string;
  /** The signature counter last accepted (0 for authenticators that keep none). */
  counter: number;
  /** The account's WebAuthn user handle (base64url, random per account): the same on each of its passkeys. */
  userHandle: string;
  /** The name the person gave it. */
  name: string;
  /** How the browser can reach the authenticator (`internal`, `hybrid`, `usb`...), as registration reported them. */
  transports: string[];
  /** The authenticator's model (AAGUID), all zeros when it gives none. */
  aaguid: string;
  /** Whether it may be synced to other devices (WebAuthn BE flag, a "multi-device" credential). */
  backupEligible: boolean;
  /** Whether it is synced now (WebAuthn BS flag), as of its registration or last use. */
  backedUp: boolean;
  /** Whether the person was verified (PIN, biometrics) when it was registered. */
  userVerified: boolean;
  createdAt: Date;
  /** Its last accepted assertion; null until its first. */
  lastUsedAt: Date | null;
}

/**
 * A ceremony's challenge, stored so that any instance can finish what another started: its keyed hash only (the raw
 * 32 bytes go to the client once), bound to its ceremony and to who may finish it.
 */
export interface StoredPasskeyChallenge {
  /** The keyed hash (`TokenHasher`) of the challenge as the client returns it (base64url). */
  challengeHash: string;
  ceremony: PasskeyCeremony;
  /** The account it is for: set for every ceremony but `sign_in`, whose account the passkey names. */
  userId: string | null;
  /** The session that asked (`StoredSession.id`): set for `registration` and `reauthentication`. */
  sessionId: string | null;
  /** The login challenge it answers (its token hash): set for `second_factor`. */
  loginChallengeHash: string | null;
  /** The user handle the registration options carried: set for `registration`. */
  userHandle: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** What `PasskeyRecords.remove` did. */
export type PasskeyRemoval =
  | { outcome: 'removed'; passkey: StoredPasskey; user: StoredUser }
  /** Refused: it is the user's last way to sign in (see `WayInRule`). Nothing changed. */
  | { outcome: 'last_way_in' }
  /** No passkey of that id is the user's. */
  | { outcome: 'not_found' };

/** The passkeys of each account, read outside a transaction or in one. */
export interface PasskeyReads {
  /** The user's passkeys, oldest first. */
  list(userId: string): Promise<StoredPasskey[]>;
  /** How many passkeys the user has (a sign-in reads it to know whether a passkey can be its second factor). */
  count(userId: string): Promise<number>;
  /** The passkey of this WebAuthn credential id, whoever's it is; null when none. */
  findByCredentialId(credentialId: string): Promise<StoredPasskey | null>;
}

/**
 * Passkeys and their ceremonies' challenges, inside a transaction (`UserStoreTransaction.passkeys`). Writes to a
 * user's passkeys take the user's lock first, as every write of a user's rows does.
 */
export interface PasskeyRecords extends PasskeyReads {
  /**
   * Stores a new passkey. `duplicate` when its credential id is stored already, for any account (a unique index
   * decides between racing registrations: exactly one is `added`); `gone` when the user no longer exists. Nothing is
   * written unless `added`. Sets the user's `updatedAt` to its `createdAt`.
   */
  add(passkey: StoredPasskey): Promise<'added' | 'duplicate' | 'gone'>;
  /** Renames the user's passkey; the passkey as it now is, or null when no passkey of that id is the user's. */
  rename(userId: string, id: string, name: string): Promise<StoredPasskey | null>;
  /**
   * Removes the user's passkey `id`. With `wayIn`, refused (`last_way_in`) when the user would be left with no way
   * to sign in under that rule: no password credential, no other passkey and no identity of a provider in it;
   * decided under the user's lock, so two racing removals of a user's last two ways in cannot both pass. With null
   * (an administrator, the operator), removed regardless. Sets the user's `updatedAt` to `now` when removed.
   */
  remove(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<PasskeyRemoval>;
  /**
   * Accepts an assertion's counter: sets the passkey's `counter` to `next`, `backedUp` to `backedUp` and
   * `lastUsedAt` to `now`, only while its counter is still `expected` (a compare-and-set: of racing assertions that
   * read the same counter, exactly one gets true). False when the counter moved meanwhile or the passkey is gone.
   */
  use(id: string, expected: number, next: number, backedUp: boolean, now: Date): Promise<boolean>;
  /** Stores a ceremony's challenge. */
  createChallenge(challenge: StoredPasskeyChallenge): Promise<void>;
  /**
   * Deletes the challenge of this hash and ceremony and returns it as it was, when it had not expired at `now`: of
   * concurrent callers exactly one gets it, and a challenge is gone after its first verify whatever that verify
   * decides. Null when unknown, of another ceremony (then left as it is), used or expired (an expired one is deleted
   * too).
   */
  consumeChallenge(challengeHash: string, ceremony: PasskeyCeremony, now: Date): Promise<StoredPasskeyChallenge | null>;
}
