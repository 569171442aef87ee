/** A user as the store keeps it. `*Key` fields hold the canonical form used for uniqueness. */
export interface StoredUser {
  id: string;
  username: string;
  usernameKey: string;
  email: string;
  emailKey: string;
  passwordHash: string;
  verified: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A session as the store keeps it: only the keyed hash of the bearer token. */
export interface StoredSession {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  /** Absolute expiry: a session never lives past this, however active. */
  expiresAt: Date;
  /** Last refresh of the idle window; refreshed at most once per `sessionRefreshInterval`. */
  lastSeenAt: Date;
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
