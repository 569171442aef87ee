import assert from 'node:assert/strict';
import type {
  NewAuditEvent,
  NewOutboxMessage,
  NewUser,
  StoredSession,
  StoredToken,
  UserStore,
} from '../../src/services/user-store';

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

/** What the core writes with a registration, in its transaction (as `AccountService.register` composes it). */
export interface RegistrationEffects {
  /** The verification link, queued to the new user when no verified account holds the address. */
  link?: NewOutboxMessage;
  /** The notice queued instead, to the verified account that holds the address. */
  ownerNotice?: NewOutboxMessage;
  expiredUnverifiedBefore?: Date;
  /** The `register` event, written with the user whoever holds the address. */
  audit?: NewAuditEvent & { subjectId: string | null };
}

export function attemptRegistration(
  store: UserStore,
  label: string,
  overrides: Partial<NewUser> = {},
  effects: RegistrationEffects = {},
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
  const verification = token(user.id, 'verify_email', `verify-${label}`);
  return store.transaction(async (tx) => {
    const created = await tx.users.create(user, verification, effects.expiredUnverifiedBefore);
    if (!created.ok) return created;
    const message = created.owner ? effects.ownerNotice : effects.link;
    if (message) await tx.outbox.add(message, created.owner ?? created.user);
    if (effects.audit) await tx.audit.add(effects.audit);
    return created;
  });
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
    methods: ['pwd'],
    credentialEpoch: 0,
    ...overrides,
  };
}

/**
 * Opens a session under the user's current credential state, in a transaction that does not wait for the disk (as
 * the core signs in); fails the test if the store refuses.
 */
export async function openSession(store: UserStore, userId: string, tokenHash: string): Promise<void> {
  const user = await store.users.findById(userId);
  const session = sessionRow(userId, tokenHash, { credentialEpoch: user?.credentialEpoch ?? 0 });
  const created = await store.transaction((tx) => tx.sessions.create(session), { durable: false });
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

/** What a new reset token supersedes (`TokenRecords.replace`): the earlier reset links, as of T0. */
export const SUPERSEDES_RESETS = { kind: 'passwordReset', at: T0 } as const;

/** The password hash `attemptRegistration` gives a user, as long as nothing changed it. */
export function passwordOf(user: { username: string }): string {
  return `$argon2id$fake$${user.username}`;
}
