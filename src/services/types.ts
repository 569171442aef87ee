import type { AuthMethod } from './auth-methods';

/** A user as the store keeps it. `*Key` fields hold the canonical form used for uniqueness. */
export interface StoredUser {
  id: string;
  username: string;
  usernameKey: string;
  email: string;
  emailKey: string;
  verified: boolean;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Set while an administrator has disabled the account: it cannot sign in, and its sessions and tokens were ended
   * when it was disabled (see `UserRecords.disable`).
   */
  disabledAt: Date | null;
  /**
   * The state of the account's credentials: moved (by one) by every change of a credential that ends the account's
   * sessions (a password reset or change, a second factor switched on that ends the other sessions). A session counts
   * only while its `credentialEpoch` is this one. New accounts start at 0.
   */
  credentialEpoch: number;
}

/** How a session's holder proved who they are: the RFC 8176 names of `AUTH_METHODS` (one list, auth-methods.ts). */
export type { AuthMethod };

/** A session as the store keeps it: only the keyed hash of the bearer token. */
export interface StoredSession {
  tokenHash: string;
  /**
   * The session's public name (a random UUID): what a list shows and a revoke names. Neither the token nor its hash,
   * so showing it to the client, a log or an admin lends nothing to sign in with.
   */
  id: string;
  userId: string;
  createdAt: Date;
  /** Absolute expiry: a session never lives past this, however active. */
  expiresAt: Date;
  /** Last refresh of the idle window; refreshed at most once per `sessionRefreshInterval`. */
  lastSeenAt: Date;
  /**
   * When the password was last proved on this session: at login, and again by re-authentication. Sensitive changes
   * need it to be recent (`reauthenticationWindowMs`).
   */
  authenticatedAt: Date;
  /** The client's address at login, as the trusted-proxy rule reads it; null when unknown. */
  ip: string | null;
  /** The client's `User-Agent` at login, cut to `MAX_USER_AGENT_LENGTH`; null when it sent none. */
  userAgent: string | null;
  /**
   * How the session was authenticated (`AuthMethod`s, without repeats): `['pwd']` for a password alone, with `mfa`
   * when a second factor was proved too (`@Authorized('mfa')` asks for it). The time of the last proof is
   * `authenticatedAt`.
   */
  methods: readonly AuthMethod[];
  /** The user's `credentialEpoch` the session was issued under: it counts only while that is still the user's. */
  credentialEpoch: number;
}

/** Answer of an access check: `unknown` when the role or permission itself does not exist. */
export type AccessAnswer = 'granted' | 'denied' | 'unknown';

/** A role or a permission to check a user for (what `@Authorized('role:x')` and `@Authorized('perm:x')` name). */
export interface AccessQuery {
  kind: 'role' | 'permission';
  name: string;
}

/**
 * What checking a request's session needs, and no more: the session's deadlines and methods, and its user's public
 * fields and disabled mark. Read on every authenticated request, so kept narrow: the password hash, the keys and the
 * session's client details stay in the database (`findWithUser` has them). A session issued under an earlier
 * credential state of its user is not found at all (the store compares the epochs in the same read).
 */
export interface SessionCheck {
  user: AccountUser;
  /** Whether an administrator has disabled the account (`StoredUser.disabledAt` set). */
  disabled: boolean;
  expiresAt: Date;
  lastSeenAt: Date;
  /** How the session was authenticated (`StoredSession.methods`). */
  methods: readonly AuthMethod[];
  /** The answer for the `AccessQuery` the check was asked with, read in the same statement; absent without one. */
  access?: AccessAnswer;
  /**
   * For a `MembershipQuery`: the user's role in that organization, read in the same statement; null when the user is
   * not a member (or no such organization). Absent without one.
   */
  membership?: string | null;
}

/**
 * The membership an organization guard (`@Authorized('org')`, `'org:perm:x'`) needs, asked in the session check's
 * own statement: the organization's id comes from the route, already checked well-formed.
 */
export interface MembershipQuery {
  kind: 'membership';
  organizationId: string;
}

/** What a session check may answer in the same statement: a global role or permission, or a membership. */
export type SessionQuery = AccessQuery | MembershipQuery;

/** Where a login came from, recorded on its session. */
export interface SessionClient {
  ip?: string | null;
  userAgent?: string | null;
}

/** Longest `User-Agent` a session keeps; longer ones are cut (real browsers send under 300 characters). */
export const MAX_USER_AGENT_LENGTH = 512;

/**
 * A requested change of address, waiting for the link sent to the new address. One per user: a new request
 * supersedes it. The token is stored as its keyed hash, like every other.
 */
export interface StoredEmailChange {
  tokenHash: string;
  userId: string;
  /** The new address as given, and its canonical key (unique among verified users once the change is made). */
  newEmail: string;
  newEmailKey: string;
  createdAt: Date;
  expiresAt: Date;
  /** Whether the user's other sessions end when the change is made (the person decides when asking). */
  endOtherSessions: boolean;
  /** The session that asked: kept when the others end. Null when it has ended since (nothing is kept). */
  keepSessionId: string | null;
}

export type TokenPurpose = 'verify_email' | 'reset_password';

/** A single-use emailed token (verification or password reset), stored hashed and bound to its purpose. */
export interface StoredToken {
  tokenHash: string;
  userId: string;
  purpose: TokenPurpose;
  expiresAt: Date;
}

/** The default public shape of a user (spec section 2). */
export interface PublicUser {
  username: string;
  email: string;
  verified: boolean;
}

/**
 * The account as a host receives it (`@CurrentUser()`, `authenticate`, the serializer): what the account is, and
 * nothing that is only the store's business (the password hash, the normalised keys). The core keeps the stored row.
 */
export interface AccountUser {
  id: string;
  username: string;
  email: string;
  verified: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The host's view of a stored user: a new object, named field by field, so nothing else can come along. */
export function accountView(user: StoredUser): AccountUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    verified: user.verified,
    createdAt: new Date(user.createdAt),
    updatedAt: new Date(user.updatedAt),
  };
}

/** Turns the account into what `GET /me` returns. Hosts replace it through `USER_SERIALIZER`. */
export type UserSerializer = (user: AccountUser) => unknown;

/** A live session as its owner (or an administrator) sees it; never the token or its hash. */
export interface SessionView {
  id: string;
  /** Whether this is the session of the request that asked. */
  current: boolean;
  createdAt: Date;
  /** When it was last used, to the granularity of the idle refresh (`sessionRefreshIntervalMs`). */
  lastUsedAt: Date;
  /** When it ends if not used again: the earlier of its absolute expiry and the end of its idle window. */
  expiresAt: Date;
  /** When the password was last proved on it (login or re-authentication). */
  authenticatedAt: Date;
  ip: string | null;
  userAgent: string | null;
}

/** A user's authenticator-app second factor (TOTP, RFC 6238). */
export interface StoredSecondFactor {
  userId: string;
  /** The secret sealed with AES-256-GCM (key derived from the secret key, the user id as associated data). */
  sealedSecret: string;
  /** False while enrolment waits for its first valid code. */
  enabled: boolean;
  createdAt: Date;
  enabledAt: Date | null;
  /** The time step of the last accepted code: a code of this step or an earlier one is refused (no replay). */
  lastUsedStep: number | null;
}

/**
 * What a right password gives an account with a second factor: a short-lived, single-use challenge, answered with a
 * code for the session. Stored as the keyed hash of its token, like every other token.
 */
export interface StoredLoginChallenge {
  tokenHash: string;
  userId: string;
  /**
   * The user's `credentialEpoch` when the password was checked: a reset or change since (which moves it) kills the
   * challenge, and the session it yields is issued under it.
   */
  credentialEpoch: number;
  /** Answers tried so far. */
  attempts: number;
  createdAt: Date;
  expiresAt: Date;
  /** Where the login came from, recorded on the session the challenge yields. */
  ip: string | null;
  userAgent: string | null;
  /** What the first step proved (a password, or a provider's identity): the session the challenge yields records it. */
  firstFactor: 'pwd' | 'fed';
}

/** How a login challenge can be answered: an authenticator app's code, a recovery code, one of the account's passkeys. */
export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey';

/**
 * What a sign-in's first proof gives (a right password; a passkey that did not verify the person): a session, or,
 * for an account with a second factor, a challenge to answer.
 */
export type SignInResult =
  | { kind: 'session'; token: string }
  | { kind: 'challenge'; challengeToken: string; expiresAt: Date; methods: SecondFactorMethod[] };
