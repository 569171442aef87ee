import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AuditEvent, AuditEventType, NewAuditEvent } from '../../services/audit-event';
import { carriesLink, type NewOutboxMessage, type OutboxEntry, type OutboxKind } from '../../services/outbox-message';
import type {
  NewUser,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  UserStore,
} from '../../services/user-store';

// The suites run under mocha and use its globals, read when a suite is declared: the package compiles and ships
// without any test runner's types.
type Hook = () => Promise<void>;
const mocha = globalThis as unknown as {
  describe(title: string, body: () => void): void;
  it(title: string, test: Hook): void;
  beforeEach(hook: Hook): void;
  afterEach(hook: Hook): void;
};
export const describe = (title: string, body: () => void): void => mocha.describe(title, body);
export const it = (title: string, test: Hook): void => mocha.it(title, test);

/**
 * The store under test, made fresh before every test and closed after it, and the helpers every area uses. The
 * helpers are arrow functions, so that an area can take them apart (`const { registered } = suite`).
 */
export class ConformanceSuite<S extends UserStore = UserStore> {
  /** The store of the test now running. */
  store!: S;

  constructor(makeStore: () => Promise<S>, cleanup?: (store: S) => Promise<void>) {
    mocha.beforeEach(async () => {
      this.store = await makeStore();
    });
    mocha.afterEach(async () => {
      await this.store.close();
      await cleanup?.(this.store);
    });
  }

  /** Registers a user with its verification token; fails the test if the store refuses. */
  registered = async (label: string, overrides: Partial<NewUser> = {}): Promise<Registered> => {
    const user = newUser(label, overrides);
    const verification = token(user.id, 'verify_email', HOUR_LATER, `verify-${label}`);
    const result = await this.store.createUser(user, verification);
    assert.ok(result.ok, `registering ${label} should succeed`);
    return { user: result.user, verificationHash: verification.tokenHash };
  };

  sessionRow = (userId: string, label: string, overrides: Partial<StoredSession> = {}): StoredSession => ({
    tokenHash: `session-${label}`,
    id: `id-of-session-${label}`,
    userId,
    createdAt: new Date(T0),
    expiresAt: new Date(DAY_LATER),
    lastSeenAt: new Date(T0),
    authenticatedAt: new Date(T0),
    ip: null,
    userAgent: null,
    secondFactor: false,
    ...overrides,
  });

  sessionFor = async (
    userId: string,
    label: string,
    overrides: Partial<StoredSession> = {},
  ): Promise<StoredSession> => {
    const session = this.sessionRow(userId, label, overrides);
    const user = await this.store.findUserById(userId);
    assert.ok(user, `sessionFor(${label}) needs an existing user`);
    assert.equal(await this.store.createSession(session, user.passwordHash), true);
    return session;
  };

  /** A verified user with a session, as the email-change areas ask from one. */
  verifiedWithSession = async (label: string): Promise<VerifiedWithSession> => {
    const { verificationHash } = await this.registered(label);
    const user = await this.store.verifyEmail(verificationHash, T0);
    assert.ok(user, `verifying ${label} should succeed`);
    const session = await this.sessionFor(user.id, label);
    return { user, sessionHash: session.tokenHash, sessionId: session.id };
  };

  resetTokenFor = async (userId: string, label: string, expiresAt = HOUR_LATER): Promise<string> => {
    const reset = token(userId, 'reset_password', expiresAt, `reset-${label}`);
    await this.store.replaceToken(reset);
    return reset.tokenHash;
  };
}

export interface VerifiedWithSession {
  user: StoredUser;
  sessionHash: string;
  sessionId: string;
}

export interface Registered {
  user: StoredUser;
  verificationHash: string;
}

export const HOUR = 3_600_000;
export const T0 = new Date('2030-01-01T00:00:00.000Z');
export const HOUR_LATER = new Date(T0.getTime() + HOUR);
export const DAY_LATER = new Date(T0.getTime() + 24 * HOUR);
/** "Created after" this includes every user created at T0. */
export const T0_MINUS_1 = new Date(T0.getTime() - 1);

export function newUser(label: string, overrides: Partial<NewUser> = {}): NewUser {
  return {
    id: randomUUID(),
    username: label,
    usernameKey: label.toLowerCase(),
    email: `${label}@example.com`,
    emailKey: `${label.toLowerCase()}@example.com`,
    passwordHash: `$argon2id$fake$${label}`,
    createdAt: new Date(T0),
    ...overrides,
  };
}

/** A message as the core would queue it, created at T0 and given up a day later; link kinds carry a sealed token. */
export function message(kind: OutboxKind, overrides: Partial<NewOutboxMessage> = {}): NewOutboxMessage {
  const id = randomUUID();
  return {
    id,
    kind,
    sealedToken: carriesLink(kind) ? `v1.sealed-${id}` : null,
    createdAt: new Date(T0),
    giveUpAt: new Date(DAY_LATER),
    ...overrides,
  };
}

/** An event as the core would hand it to a store: a user acting on their own account, at T0 unless told. */
export function auditEvent(type: AuditEventType, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  return {
    id: randomUUID(),
    at: new Date(T0),
    type,
    outcome: 'success',
    actorType: 'user',
    actorId: null,
    subjectId: null,
    ip: '192.0.2.10',
    requestId: `request-${type}`,
    details: null,
    ...overrides,
  };
}

/** The event as a store keeps it: the subject decided. */
export function storedEvent(event: NewAuditEvent, subjectId: string | null): AuditEvent {
  return { ...event, subjectId };
}

/** The fields an outcome changes: status, hasToken, claimed, sentAt, lastError, and nextAttemptAt while pending. */
export function pick(entry: OutboxEntry): unknown[] {
  return [
    entry.status,
    entry.hasToken,
    entry.claimed,
    entry.sentAt,
    entry.lastError,
    entry.status === 'pending' ? entry.nextAttemptAt : null,
  ];
}

export function token(userId: string, purpose: TokenPurpose, expiresAt: Date, tokenHash: string): StoredToken {
  return { tokenHash, userId, purpose, expiresAt: new Date(expiresAt) };
}

/** The values of settled promises; fails the test, with the first reason, if any of them rejected. */
export function fulfilled<T>(settled: PromiseSettledResult<T>[]): T[] {
  const rejected = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (rejected) assert.fail(`a concurrent call threw: ${String(rejected.reason)}`);
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}
