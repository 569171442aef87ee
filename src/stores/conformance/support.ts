import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AuditEvent, AuditEventType, NewAuditEvent } from '../../services/audit-event';
import { carriesLink, type NewOutboxMessage, type OutboxEntry, type OutboxKind } from '../../services/outbox-message';
import type {
  CreateUserResult,
  DeleteConditions,
  DeleteUserResult,
  EmailChangeRequestResult,
  EmailChangeResult,
  NewUser,
  StoredEmailChange,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
  TransactionOptions,
  UserStore,
  UserStoreTransaction,
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

  /** Runs `work` as one transaction of the store under test: the only way the core writes. */
  transaction = <T>(work: (tx: UserStoreTransaction) => Promise<T>, options?: TransactionOptions): Promise<T> =>
    this.store.transaction(work, options);

  /** Registers a user with its verification token; fails the test if the store refuses. */
  registered = async (label: string, overrides: Partial<NewUser> = {}): Promise<Registered> => {
    const user = newUser(label, overrides);
    const verification = token(user.id, 'verify_email', HOUR_LATER, `verify-${label}`);
    const result = await this.transaction((tx) => tx.users.create(user, verification));
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
    methods: ['pwd'],
    credentialEpoch: 0,
    ...overrides,
  });

  /** Signs in as the core does: a session made in a transaction of its own, not flushed (`durable: false`). */
  sessionFor = async (
    userId: string,
    label: string,
    overrides: Partial<StoredSession> = {},
  ): Promise<StoredSession> => {
    const user = await this.store.users.findById(userId);
    assert.ok(user, `sessionFor(${label}) needs an existing user`);
    const session = this.sessionRow(userId, label, { credentialEpoch: user.credentialEpoch, ...overrides });
    const created = await this.transaction((tx) => tx.sessions.create(session), { durable: false });
    assert.equal(created, true);
    return session;
  };

  /** A verified user with a session, as the email-change areas ask from one. */
  verifiedWithSession = async (label: string): Promise<VerifiedWithSession> => {
    const { verificationHash } = await this.registered(label);
    const user = await this.transaction((tx) => tx.users.confirmAddress(verificationHash, T0));
    assert.ok(user, `verifying ${label} should succeed`);
    const session = await this.sessionFor(user.id, label);
    return { user, sessionHash: session.tokenHash, sessionId: session.id };
  };

  /**
   * Registers as the core does, in one transaction: the user and its verification token, the link to the user or,
   * when a verified account owns the address, the notice to that owner instead, and the `register` event.
   */
  createUser = (
    user: NewUser,
    verification: StoredToken,
    effects: RegistrationEffects = {},
  ): Promise<CreateUserResult> =>
    this.transaction(async (tx) => {
      const result = await tx.users.create(user, verification, effects.expiredUnverifiedBefore);
      if (!result.ok) return result;
      const sent = result.owner ? effects.ownerNotice : effects.link;
      if (sent) await tx.outbox.add(sent, result.owner ?? result.user);
      if (effects.audit) await tx.audit.add(effects.audit);
      return result;
    });

  /**
   * Deletes as the core does, in one transaction: the user, unless the conditions refuse it, then the notice to the
   * address it had and the event. The links it fails are stamped with `at`, else the event's instant, else the
   * notice's, else T0.
   */
  deleteUser = (userId: string, effects: DeletionEffects = {}): Promise<DeleteUserResult> =>
    this.transaction(async (tx) => {
      const { authorisation, keepLastHolderOf, message: notice, audit } = effects;
      const at = new Date(effects.at ?? audit?.at ?? notice?.createdAt ?? T0);
      const result = await tx.users.delete(userId, at, { authorisation, keepLastHolderOf });
      if (result.outcome !== 'deleted') return result;
      if (notice) await tx.outbox.add(notice, result.user);
      if (audit) await tx.audit.add(audit);
      return result;
    });

  /** A reset token of the user (superseding its earlier ones), with no message; a disabled or gone user gets none. */
  resetTokenFor = async (userId: string, label: string, expiresAt = HOUR_LATER): Promise<string> => {
    const reset = token(userId, 'reset_password', expiresAt, `reset-${label}`);
    await this.transaction((tx) => tx.tokens.replace(reset, { kind: 'passwordReset', at: new Date(T0) }));
    return reset.tokenHash;
  };

  /**
   * A new token and the link that carries it, composed as the core does: the token supersedes the user's earlier
   * ones of its purpose (their pending links failing, stamped with the link's `createdAt`), and the link is queued
   * only when the token was stored. The user, or null when the store refused (disabled or gone).
   */
  replaceToken = (stored: StoredToken, link?: NewOutboxMessage): Promise<StoredUser | null> =>
    this.transaction(async (tx) => {
      const supersede = { kind: link?.kind ?? linkKind(stored.purpose), at: new Date(link?.createdAt ?? T0) };
      const user = await tx.tokens.replace(stored, supersede);
      if (user && link) await tx.outbox.add(link, user);
      return user;
    });

  /** Queues a message to the user in a transaction of its own; false, and nothing queued, when there is no user. */
  enqueue = (userId: string, queued: NewOutboxMessage): Promise<boolean> =>
    this.transaction(async (tx) => {
      const user = await tx.users.findById(userId);
      if (!user) return false;
      await tx.outbox.add(queued, user);
      return true;
    });

  /**
   * Asks for a change of address from the session, composed as the core does: the link goes to the new address
   * when no verified account owns it, else the owner is told; the notice goes to the current address either way.
   */
  requestEmailChange = (
    change: StoredEmailChange,
    sent: EmailChangeMessages,
    sessionTokenHash: string,
  ): Promise<EmailChangeRequestResult> =>
    this.transaction(async (tx) => {
      const result = await tx.emailChanges.request(change, sessionTokenHash);
      if (!result.ok) return result;
      const { user, owner } = result;
      if (owner) {
        if (sent.ownerNotice) await tx.outbox.add(sent.ownerNotice, owner);
      } else if (sent.link) {
        await tx.outbox.add(sent.link, { id: user.id, username: user.username, email: change.newEmail });
      }
      if (sent.requestedNotice) await tx.outbox.add(sent.requestedNotice, user);
      return result;
    });

  /**
   * Confirms a change of address as the core does, in one transaction: the change, then the notice to the address
   * the user had, only when the address changed.
   */
  confirmEmailChange = (tokenHash: string, now: Date, notice?: NewOutboxMessage): Promise<EmailChangeResult> =>
    this.transaction(async (tx) => {
      const result = await tx.emailChanges.confirm(tokenHash, now);
      if (result.outcome === 'changed' && notice) {
        const { user, previousEmail } = result;
        await tx.outbox.add(notice, { id: user.id, username: user.username, email: previousEmail });
      }
      return result;
    });

  /** The stored message of that id, or undefined: the outbox as its operator lists it. */
  entry = async (sent: { id: string } | undefined): Promise<OutboxEntry | undefined> =>
    (await this.store.outbox.list()).find((candidate) => candidate.id === sent?.id);
}

/** What a registration causes besides its rows (`ConformanceSuite.createUser`). */
export interface RegistrationEffects {
  link?: NewOutboxMessage;
  ownerNotice?: NewOutboxMessage;
  /** Passed on to `users.create`: an unverified holder of the username created at or before it has expired. */
  expiredUnverifiedBefore?: Date;
  audit?: AuditInput;
}

/** What a deletion checks and causes (`ConformanceSuite.deleteUser`). */
export interface DeletionEffects extends DeleteConditions {
  at?: Date;
  message?: NewOutboxMessage;
  audit?: AuditInput;
}

/** The messages a change of address may cause; each is queued only on the path that sends it. */
export interface EmailChangeMessages {
  /** To the new address, when no verified account owns it. */
  link?: NewOutboxMessage;
  /** To the verified account that owns the new address, when one does. */
  ownerNotice?: NewOutboxMessage;
  /** To the current address, on both paths. */
  requestedNotice?: NewOutboxMessage;
}

/** The kind of the link that carries a token of this purpose. */
export function linkKind(purpose: TokenPurpose): OutboxKind {
  return purpose === 'verify_email' ? 'verification' : 'passwordReset';
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

/** An event as the core adds it (`tx.audit.add`): its subject decided by the caller. */
export type AuditInput = NewAuditEvent & { subjectId: string | null };

/** An event as the core would add it: a user acting on their own account, at T0 unless told, no subject unless told. */
export function auditEvent(type: AuditEventType, overrides: Partial<NewAuditEvent> = {}): AuditInput {
  return {
    id: randomUUID(),
    at: new Date(T0),
    type,
    outcome: 'success',
    actorType: 'user',
    actorId: null,
    ip: '192.0.2.10',
    requestId: `request-${type}`,
    details: null,
    ...overrides,
    subjectId: overrides.subjectId ?? null,
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

/** The password hash `newUser(label)` gives a user, as long as nothing changed it. */
export function passwordOf(user: Pick<StoredUser, 'username'>): string {
  return `$argon2id$fake$${user.username}`;
}

/** The user fields of a new user: its password is a credential, not a field of the user. */
export function userFieldsOf(user: NewUser): Omit<NewUser, 'passwordHash'> {
  const { passwordHash: _password, ...fields } = user;
  return fields;
}
