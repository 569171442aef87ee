import { randomUUID } from 'node:crypto';
import { Insertable, Selectable } from 'kysely';
import type {
  AuditActorType,
  AuditDetails,
  AuditEvent,
  AuditEventType,
  NewAuditEvent,
} from '../../services/audit-event';
import type { CredentialKind } from '../../services/credential-kinds';
import type {
  ClaimedMessage,
  NewOutboxMessage,
  OutboxEntry,
  OutboxKind,
  OutboxStatus,
} from '../../services/outbox-message';
import {
  AuthMethod,
  SessionCheck,
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
} from '../../services/types';
import {
  AuditEventsTable,
  EmailChangesTable,
  LoginChallengesTable,
  OutboxTable,
  CredentialsTable,
  SECOND_FACTOR_COLUMNS,
  SessionsTable,
  TokensTable,
  UsersTable,
} from './schema';

// One mapping per table and direction: the only place that knows both the row shape and the domain shape.
// (Tokens are never read back whole, so they only map one way.)

export function toUserRow(user: StoredUser): Insertable<UsersTable> {
  return {
    id: user.id,
    username: user.username,
    username_key: user.usernameKey,
    email: user.email,
    email_key: user.emailKey,
    verified: user.verified ? 1 : 0,
    created_at: user.createdAt.getTime(),
    updated_at: user.updatedAt.getTime(),
    disabled_at: user.disabledAt === null ? null : user.disabledAt.getTime(),
    credential_epoch: user.credentialEpoch,
  };
}

export function fromUserRow(row: Selectable<UsersTable>): StoredUser {
  return {
    id: row.id,
    username: row.username,
    usernameKey: row.username_key,
    email: row.email,
    emailKey: row.email_key,
    verified: Boolean(row.verified),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    // Read as a row of the previous release would leave it too (a selection without the column): never disabled.
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : toDate(row.disabled_at),
    credentialEpoch: Number(row.credential_epoch),
  };
}

/**
 * The row of an event. A subject left `undefined` by the core is the user the store found (`subjectFallback`): the
 * methods that find their user from a token know it only inside their transaction.
 */
export function toAuditRow(event: NewAuditEvent, subjectFallback: string | null = null): Insertable<AuditEventsTable> {
  return {
    id: event.id,
    at: event.at.getTime(),
    type: event.type,
    outcome: event.outcome,
    actor_type: event.actorType,
    actor_id: event.actorId,
    subject_id: event.subjectId === undefined ? subjectFallback : event.subjectId,
    ip: event.ip,
    request_id: event.requestId,
    details: event.details === null ? null : JSON.stringify(event.details),
  };
}

export function fromAuditRow(row: Selectable<AuditEventsTable>): AuditEvent {
  return {
    id: row.id,
    at: toDate(row.at),
    type: row.type as AuditEventType,
    outcome: row.outcome,
    actorType: row.actor_type as AuditActorType,
    actorId: row.actor_id,
    subjectId: row.subject_id,
    ip: row.ip,
    requestId: row.request_id,
    details: row.details === null ? null : (JSON.parse(row.details) as AuditDetails),
  };
}

export function toSessionRow(session: StoredSession): Insertable<SessionsTable> {
  return {
    token_hash: session.tokenHash,
    user_id: session.userId,
    created_at: session.createdAt.getTime(),
    expires_at: session.expiresAt.getTime(),
    last_seen_at: session.lastSeenAt.getTime(),
    id: session.id,
    authenticated_at: session.authenticatedAt.getTime(),
    ip: session.ip,
    user_agent: session.userAgent,
    amr: session.methods.join(' '),
    credential_epoch: session.credentialEpoch,
  };
}

/** The narrow row of `requestPathQueries().sessionCheck`. */
export function fromSessionCheckRow(
  row: Pick<
    Selectable<UsersTable>,
    'id' | 'username' | 'email' | 'verified' | 'created_at' | 'updated_at' | 'disabled_at'
  > &
    Pick<Selectable<SessionsTable>, 'expires_at' | 'last_seen_at' | 'amr'>,
): SessionCheck {
  return {
    user: {
      id: row.id,
      username: row.username,
      email: row.email,
      verified: Boolean(row.verified),
      createdAt: toDate(row.created_at),
      updatedAt: toDate(row.updated_at),
    },
    disabled: row.disabled_at !== null && row.disabled_at !== undefined,
    expiresAt: toDate(row.expires_at),
    lastSeenAt: toDate(row.last_seen_at),
    methods: methodsOf(row.amr),
  };
}

export function fromSessionRow(row: Selectable<SessionsTable>): StoredSession {
  return {
    tokenHash: row.token_hash,
    id: row.id,
    userId: row.user_id,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    lastSeenAt: toDate(row.last_seen_at),
    authenticatedAt: toDate(row.authenticated_at),
    ip: row.ip,
    userAgent: row.user_agent,
    methods: methodsOf(row.amr),
    credentialEpoch: Number(row.credential_epoch),
  };
}

// A handful of distinct lists exist (one per way to sign in), and the session check reads one on every request: each
// is split once and shared, frozen. The bound only guards against a database that holds lists this code never wrote.
const METHOD_LISTS = new Map<string, readonly AuthMethod[]>();
const METHOD_LISTS_KEPT = 64;

/** `sessions.amr` (space-separated RFC 8176 names) as the session's methods. */
function methodsOf(amr: string): readonly AuthMethod[] {
  let methods = METHOD_LISTS.get(amr);
  if (methods === undefined) {
    methods = Object.freeze(amr.split(' ').filter((name) => name !== '') as AuthMethod[]);
    if (METHOD_LISTS.size < METHOD_LISTS_KEPT) METHOD_LISTS.set(amr, methods);
  }
  return methods;
}

export function toEmailChangeRow(change: StoredEmailChange): Insertable<EmailChangesTable> {
  return {
    token_hash: change.tokenHash,
    user_id: change.userId,
    new_email: change.newEmail,
    new_email_key: change.newEmailKey,
    created_at: change.createdAt.getTime(),
    expires_at: change.expiresAt.getTime(),
    end_other_sessions: change.endOtherSessions ? 1 : 0,
    keep_session_id: change.keepSessionId,
  };
}

export function fromEmailChangeRow(row: Selectable<EmailChangesTable>): StoredEmailChange {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    newEmail: row.new_email,
    newEmailKey: row.new_email_key,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    endOtherSessions: Boolean(row.end_other_sessions),
    keepSessionId: row.keep_session_id,
  };
}

export function toTokenRow(token: StoredToken): Insertable<TokensTable> {
  return {
    token_hash: token.tokenHash,
    user_id: token.userId,
    purpose: token.purpose,
    expires_at: token.expiresAt.getTime(),
  };
}

/**
 * A credential row of `kind` with a fresh id. Its `last_used_at` starts empty: only a use sets it.
 */
export function toCredentialRow(userId: string, kind: CredentialKind, secret: string, now: Date) {
  return {
    id: randomUUID(),
    user_id: userId,
    kind,
    secret,
    created_at: now.getTime(),
  } satisfies Insertable<CredentialsTable>;
}

/** A factor is stored waiting for its first code: enabling it is `SecondFactorRecords.enable`'s alone. */
export function toSecondFactorRow(factor: StoredSecondFactor): Insertable<CredentialsTable> {
  return {
    ...toCredentialRow(factor.userId, 'totp', factor.sealedSecret, factor.createdAt),
    enabled: 0,
    enabled_at: null,
    last_used_step: factor.lastUsedStep,
  };
}

/** The columns of a TOTP credential that make a `StoredSecondFactor`. */
export type SecondFactorRow = Pick<Selectable<CredentialsTable>, (typeof SECOND_FACTOR_COLUMNS)[number]>;

export function fromSecondFactorRow(row: SecondFactorRow): StoredSecondFactor {
  return {
    userId: row.user_id,
    sealedSecret: row.secret,
    enabled: Boolean(row.enabled),
    createdAt: toDate(row.created_at),
    enabledAt: row.enabled_at === null ? null : toDate(row.enabled_at),
    lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
  };
}

export function toLoginChallengeRow(challenge: StoredLoginChallenge): Insertable<LoginChallengesTable> {
  return {
    token_hash: challenge.tokenHash,
    user_id: challenge.userId,
    credential_epoch: challenge.credentialEpoch,
    attempts: challenge.attempts,
    created_at: challenge.createdAt.getTime(),
    expires_at: challenge.expiresAt.getTime(),
    ip: challenge.ip,
    user_agent: challenge.userAgent,
    first_factor: challenge.firstFactor,
  };
}

export function fromLoginChallengeRow(row: Selectable<LoginChallengesTable>): StoredLoginChallenge {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    credentialEpoch: Number(row.credential_epoch),
    attempts: Number(row.attempts),
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    ip: row.ip,
    userAgent: row.user_agent,
    firstFactor: row.first_factor === 'fed' ? 'fed' : 'pwd',
  };
}

/** The row of a new message to `recipient`, the user row of the operation that queues it. */
export function toOutboxRow(
  message: NewOutboxMessage,
  recipient: { id: string; username: string; email: string },
): Insertable<OutboxTable> {
  const created = message.createdAt.getTime();
  return {
    id: message.id,
    kind: message.kind,
    user_id: recipient.id,
    username: recipient.username,
    email: recipient.email,
    sealed_token: message.sealedToken,
    status: 'pending',
    attempts: 0,
    next_attempt_at: created,
    give_up_at: message.giveUpAt.getTime(),
    claim_id: null,
    last_error: null,
    created_at: created,
    updated_at: created,
    sent_at: null,
  };
}

export function fromOutboxRow(row: Selectable<OutboxTable>): OutboxEntry {
  return {
    id: row.id,
    kind: row.kind as OutboxKind,
    userId: row.user_id,
    username: row.username,
    email: row.email,
    status: row.status as OutboxStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: toDate(row.next_attempt_at),
    giveUpAt: toDate(row.give_up_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    sentAt: row.sent_at === null ? null : toDate(row.sent_at),
    lastError: row.last_error,
    hasToken: row.sealed_token !== null,
    claimed: row.claim_id !== null,
  };
}

export function claimedFromOutboxRow(row: Selectable<OutboxTable>): ClaimedMessage {
  return {
    id: row.id,
    kind: row.kind as OutboxKind,
    userId: row.user_id,
    username: row.username,
    email: row.email,
    sealedToken: row.sealed_token,
    attempts: Number(row.attempts),
    giveUpAt: toDate(row.give_up_at),
    createdAt: toDate(row.created_at),
    claimId: row.claim_id ?? '',
  };
}

/** Epoch milliseconds come back as a number, a string (PostgreSQL int8) or a bigint, depending on the driver. */
function toDate(epochMs: number | string | bigint): Date {
  return new Date(Number(epochMs));
}
