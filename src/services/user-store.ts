import type { AccessReads, AccessRecords } from './store/access-records';
import type { ApiKeyReads, ApiKeyRecords } from './api-keys/api-key-records';
import type { AdminReads } from './administration/admin-reads';
import type { AuditReads, AuditWriter } from './store/audit-records';
import type { EmailChangeReads, EmailChangeRecords } from './email-changes/email-change-records';
import type { OutboxQueue, OutboxWriter } from './store/outbox-records';
import type { IdentityReads, IdentityRecords } from './oidc/identity-records';
import type { OrganizationReads, OrganizationRecords } from './organizations/organization-records';
import type { PasskeyReads, PasskeyRecords } from './passkeys/passkey-records';
import type { PasswordReads, PasswordRecords, TokenReads, TokenRecords } from './store/password-records';
import type {
  LoginChallengeReads,
  LoginChallengeRecords,
  SecondFactorReads,
  SecondFactorRecords,
} from './second-factor/second-factor-records';
import type { SessionReads, SessionRecords } from './store/session-records';
import type { UserReads, UserRecords } from './store/user-records';

// The store contract: small stores by aggregate (one file each in `store/`), reached through one unit of work. The
// core composes a change and the effects it causes (an outbox message, an audit event) in one transaction; the store
// keeps each aggregate's own invariants (uniqueness, single use, the row locks of a user) inside it. Its conformance
// suite is `stores/conformance/`.

/** How a transaction commits. */
export interface TransactionOptions {
  /**
   * Default true: the commit returns once it is on disk. False: only a crash of the machine (or of the database
   * server), never of the process, may undo it; for work whose loss only repeats work (a new session and its sign-in
   * record: the person signs in again), where a flush each costs more than the work it records.
   */
  durable?: boolean;
}

/** The aggregates as one transaction sees them: reads and writes, committed together or not at all. */
export interface UserStoreTransaction {
  readonly users: UserRecords;
  readonly passwords: PasswordRecords;
  readonly tokens: TokenRecords;
  readonly emailChanges: EmailChangeRecords;
  readonly sessions: SessionRecords;
  readonly secondFactors: SecondFactorRecords;
  readonly loginChallenges: LoginChallengeRecords;
  readonly passkeys: PasskeyRecords;
  readonly oidc: IdentityRecords;
  readonly organizations: OrganizationRecords;
  readonly apiKeys: ApiKeyRecords;
  readonly access: AccessRecords;
  readonly outbox: OutboxWriter;
  readonly audit: AuditWriter;
}

/** The cut-offs of `deleteExpired`: rows at or before them go. */
export interface ExpiryCutoffs {
  /**
   * Sessions, tokens, pending email changes, login challenges, passkey challenges, OpenID flows and handoffs,
   * invitations and API keys whose `expiresAt` is at or before it.
   */
  now: Date;
  /** Sessions last seen at or before it (the idle timeout). */
  sessionIdleBefore: Date;
  /** Unverified users created at or before it, with everything of theirs (registrations that were never confirmed). */
  unverifiedCreatedBefore?: Date;
  /** Sent and failed outbox messages last changed at or before it; pending ones never go. */
  outboxChangedBefore?: Date;
  /** Audit events at or before it (the retention, `auditRetentionMs`). */
  auditBefore?: Date;
}

/**
 * Storage of users, their credentials, sessions, emailed links, access grants, the outbox and the audit trail, in one
 * database so that a change and the messages and events it causes commit together.
 *
 * Contract every implementation keeps (the conformance suite in `stores/conformance/` checks it):
 * - `transaction` runs `work` as one transaction: all of its writes happen, or none. Writes to one user are
 *   serialised inside it (PostgreSQL: the user's row lock, taken before its sessions and tokens, one lock order;
 *   SQLite: one write transaction at a time), and every decision a race could change is a conditional write.
 *   `work` may be run again when the database aborted it only to resolve a conflict (a PostgreSQL deadlock), so it
 *   must do nothing but calls on `tx` and pure computation.
 * - Expected absence is `null`/`false`, never an exception; exceptions mean the store itself failed (and undo the
 *   transaction). Token arguments are always keyed hashes; a store never sees a raw token or password.
 * - Instants are exclusive ends: a token or session whose expiry equals `now` is dead. Methods that change a user set
 *   its `updatedAt` to their `now`. Returned objects are the caller's own: changing them changes nothing stored.
 * - The reads outside a transaction (`users`, `sessions`...) each see only committed data.
 */
export interface UserStore {
  transaction<T>(work: (tx: UserStoreTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  readonly users: UserReads;
  readonly passwords: PasswordReads;
  readonly tokens: TokenReads;
  readonly emailChanges: EmailChangeReads;
  readonly sessions: SessionReads;
  readonly secondFactors: SecondFactorReads;
  readonly loginChallenges: LoginChallengeReads;
  readonly passkeys: PasskeyReads;
  readonly oidc: IdentityReads;
  readonly organizations: OrganizationReads;
  readonly apiKeys: ApiKeyReads;
  readonly access: AccessReads;
  readonly admin: AdminReads;
  readonly audit: AuditReads;
  readonly outbox: OutboxQueue;
  /** Removes what `cutoffs` says has expired (see `ExpiryCutoffs`), in batches; returns how many rows went. */
  deleteExpired(cutoffs: ExpiryCutoffs): Promise<number>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

export type * from './store/access-records';
export type * from './administration/admin-reads';
export type * from './store/audit-records';
export type * from './email-changes/email-change-records';
export type * from './store/outbox-records';
export type * from './store/password-records';
export type * from './second-factor/second-factor-records';
export type * from './passkeys/passkey-records';
export type * from './oidc/identity-records';
export type * from './organizations/organization-records';
export type * from './api-keys/api-key-records';
export type * from './store/session-records';
export type * from './store/user-records';
export type {
  AuditActorType,
  AuditCursor,
  AuditDetails,
  AuditEvent,
  AuditEventType,
  AuditQuery,
  NewAuditEvent,
} from './audit-event';
export type {
  AccessAnswer,
  AccessQuery,
  AuthMethod,
  MembershipQuery,
  SessionQuery,
  SessionCheck,
  SessionClient,
  SessionView,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
  TokenPurpose,
} from './types';
export type { ClaimedMessage, NewOutboxMessage, OutboxEntry, OutboxQuery, RetryTarget } from './outbox-message';
export type { WayInRule } from './ways-in';
