import assert from 'node:assert/strict';
import type { CreateUserOptions } from '../../src/services/account-store';
import { NewUser, StoredSession, StoredToken, UserStore } from '../../src/services/user-store';

// Rows for the SQL store tests, with predictable ids and token hashes (`id-alice`, `verify-alice`).

export const T0 = new Date('2030-01-01T00:00:00.000Z');
export const DAY_LATER = new Date(T0.getTime() + 86_400_000);

/** Registers a user and returns it with its verification token; fails the test if the store refuses. */
export async function register(store: UserStore, label: string) {
  const verification = token(`id-${label}`, 'verify_email', `verify-${label}`);
  const result = await attemptRegistration(store, label);
  assert.ok(result.ok, `registering ${label} should succeed`);
  return { user: result.user, verification };
}

export function attemptRegistration(
  store: UserStore,
  label: string,
  overrides: Partial<NewUser> = {},
  options?: CreateUserOptions,
) {
  const user: NewUser = {
    id: `id-${label}`,
    username: label,
    usernameKey: label,
    email: `${label}@example.com`,
    emailKey: `${label}@example.com`,
    passwordHash: `$argon2id$fake$${label}`,
    createdAt: T0,
    ...overrides,
  };
  return store.transaction((tx) => tx.users.create(user, token(user.id, 'verify_email', `verify-${label}`), options));
}

export function sessionRow(userId: string, tokenHash: string, overrides: Partial<StoredSession> = {}): StoredSession {
  return {
    tokenHash,
    id: `id-of-${tokenHash}`,
    userId,
    createdAt: T0,
    expiresAt: DAY_LATER,
    lastSeenAt: T0,
    authenticatedAt: T0,
    ip: null,
    userAgent: null,
    secondFactor: false,
    ...overrides,
  };
}

/** Opens a session with the user's current password hash; fails the test if the store refuses. */
export async function openSession(store: UserStore, userId: string, tokenHash: string): Promise<void> {
  const user = await store.users.findById(userId);
  const created = await store.transaction((tx) =>
    tx.sessions.create(sessionRow(userId, tokenHash), user!.passwordHash),
  );
  if (!created) throw new Error(`openSession: no session for ${userId}`);
}

export function token(
  userId: string,
  purpose: StoredToken['purpose'],
  tokenHash: string,
  expiresAt = DAY_LATER,
): StoredToken {
  return { tokenHash, userId, purpose, expiresAt };
}
