import type { AuthMethod } from '../auth-methods';
import type { StoredUser } from '../types';
import type { WayInRule } from '../ways-in';

/**
 * An identity at an OpenID provider (or GitHub) linked to an account: one credential row of kind `oidc`. It is the
 * pair (issuer, subject), never the address: unique across every account.
 */
export interface StoredIdentity {
  /** The credential row's id (a uuid): the identity's public id. */
  id: string;
  userId: string;
  /** The provider's id at link time (`credentials.label`). */
  provider: string;
  /** The issuer exactly as the provider names itself, a URL (so never a space; the github preset: `https://github.com`). */
  issuer: string;
  /** The provider's `sub` (GitHub: the numeric user id, as a string). */
  subject: string;
  /** The address the provider gave at link time. */
  email: string | null;
  createdAt: Date;
  /** Its last sign-in; null until its first. */
  lastUsedAt: Date | null;
}

/** What a flow was started for: a sign-in (no account yet), or linking an identity to a signed-in account. */
export type OidcFlowIntent = 'sign_in' | 'link';

/**
 * A started authorization flow, stored so that any instance can take the provider's callback, by the keyed hash of
 * its `state`. What would let anyone finish it (the PKCE verifier, the nonce) is sealed, and the browser it is bound
 * to is known by the hash of its cookie only.
 */
export interface StoredOidcFlow {
  /** The keyed hash (`TokenHasher`) of the `state` parameter. */
  stateHash: string;
  provider: string;
  /** The keyed hash of the browser secret the flow cookie carries. */
  browserHash: string;
  /** `TokenSealer`-sealed JSON `{ codeVerifier, nonce }`: useless without the secret key. */
  sealed: string;
  intent: OidcFlowIntent;
  /** A link's account; null for a sign-in. */
  userId: string | null;
  /** The session that asked for a link (`StoredSession.id`); null for a sign-in. */
  sessionId: string | null;
  returnTo: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * What a callback decided, handed to the front end by a one-time code in the return URL's fragment (stored by its
 * keyed hash): the exchange of that code gives the answer, a session only then.
 */
export interface StoredOidcHandoff {
  /** The keyed hash of the one-time code. */
  codeHash: string;
  outcome: 'sign_in' | 'link_required' | 'linked' | 'already_linked' | 'domain_not_allowed';
  userId: string | null;
  identityId: string | null;
  /** What the session records if one is issued (`fed`, maybe `mfa`). */
  methods: AuthMethod[];
  /** The provider's `amr`/`acr` is trusted as a second factor done there. */
  skipSecondFactor: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * What `IdentityRecords.link` did: `duplicate` when the (issuer, subject) is stored already, for any account (this
 * one included); `gone` when the user no longer exists. Nothing is written unless `linked`.
 */
export type IdentityLink = 'linked' | 'duplicate' | 'gone';

/** What `IdentityRecords.unlink` did. */
export type IdentityRemoval =
  | { outcome: 'removed'; identity: StoredIdentity; user: StoredUser }
  /** Refused: it is the user's last way to sign in (see `WayInRule`). Nothing changed. */
  | { outcome: 'last_way_in' }
  /** No identity of that id is the user's. */
  | { outcome: 'not_found' };

/** The identities of each account, read outside a transaction or in one. */
export interface IdentityReads {
  /** The user's identities, oldest first. */
  list(userId: string): Promise<StoredIdentity[]>;
  /** The identity (issuer, subject), whoever's it is; null when none. */
  find(issuer: string, subject: string): Promise<StoredIdentity | null>;
  /**
   * Whether any account holds the address (`emailKey`, as `emailKeyOf` makes it: any case): a verified account, or
   * an unverified one created after `unverifiedAfter` (a registration that has not expired).
   */
  addressHeld(emailKey: string, unverifiedAfter: Date): Promise<boolean>;
}

/**
 * Identities, flows and handoffs, inside a transaction (`UserStoreTransaction.oidc`). Writes to a user's identities
 * take the user's lock first, as every write of a user's rows does (passkeys' too).
 */
export interface IdentityRecords extends IdentityReads {
  /**
   * Links an identity to its `userId`, under the user's lock. The unique index on (kind, identifier) decides, not a
   * read before: of two links (or two first sign-ins) of one identity racing, to the same or different accounts,
   * exactly one is `linked` and the other `duplicate`; a caller that created the account in the same transaction
   * undoes it all by failing that transaction. Sets the user's `updatedAt` to the identity's `createdAt`.
   */
  link(identity: StoredIdentity): Promise<IdentityLink>;
  /**
   * Unlinks the user's identity `id`. With `wayIn`, refused (`last_way_in`) when the user would be left with no way
   * to sign in under that rule (no password, no passkey, no other identity of a provider in it); decided under the
   * user's lock, so two racing removals of a user's last two ways in cannot both pass. With null (the operator's
   * forced unlink), unlinked regardless. Sets the user's `updatedAt` to `now` when unlinked.
   */
  unlink(userId: string, id: string, now: Date, wayIn: WayInRule | null): Promise<IdentityRemoval>;
  /** Records a sign-in by the identity (`lastUsedAt`); nothing when it is gone. */
  touch(id: string, now: Date): Promise<void>;
  /** Stores a started flow (a link's goes with its user). */
  createFlow(flow: StoredOidcFlow): Promise<void>;
  /**
   * Deletes the flow of this state hash and returns it as it was, when it had not expired at `now`: of concurrent
   * callers (two instances taking one callback) exactly one gets it. Null when unknown, used or expired (an expired
   * one is deleted too).
   */
  consumeFlow(stateHash: string, now: Date): Promise<StoredOidcFlow | null>;
  /** Stores a callback's decision under its one-time code's hash. */
  createHandoff(handoff: StoredOidcHandoff): Promise<void>;
  /** As `consumeFlow`, for the one-time code: exactly one exchange of a code gets its handoff. */
  consumeHandoff(codeHash: string, now: Date): Promise<StoredOidcHandoff | null>;
}
