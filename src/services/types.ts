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

/** Turns a stored user into what `GET /me` returns. Hosts replace it through `USER_SERIALIZER`. */
export type UserSerializer = (user: StoredUser) => unknown;
