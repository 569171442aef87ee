import type { AuditEvent } from '../../services/audit-event';
import type { ClaimedMessage, OutboxEntry } from '../../services/outbox-message';
import type {
  StoredEmailChange,
  StoredLoginChallenge,
  StoredSecondFactor,
  StoredSession,
  StoredToken,
  StoredUser,
} from '../../services/types';

// Rows are copied on the way in and on the way out: a caller never reaches a stored object. Copies name every field,
// so that extra properties of a caller's object are not kept (a database would drop them).

/** A message as kept here: the listed fields plus the sealed token and the current claim. */
export interface OutboxRow extends Omit<OutboxEntry, 'hasToken' | 'claimed'> {
  sealedToken: string | null;
  claimId: string | null;
}

export function copyUser(user: StoredUser): StoredUser {
  return {
    id: user.id,
    username: user.username,
    usernameKey: user.usernameKey,
    email: user.email,
    emailKey: user.emailKey,
    verified: user.verified,
    createdAt: new Date(user.createdAt),
    updatedAt: new Date(user.updatedAt),
    disabledAt: user.disabledAt ? new Date(user.disabledAt) : null,
    credentialEpoch: user.credentialEpoch,
  };
}

export function copySession(session: StoredSession): StoredSession {
  return {
    tokenHash: session.tokenHash,
    id: session.id,
    userId: session.userId,
    createdAt: new Date(session.createdAt),
    expiresAt: new Date(session.expiresAt),
    lastSeenAt: new Date(session.lastSeenAt),
    authenticatedAt: new Date(session.authenticatedAt),
    ip: session.ip ?? null,
    userAgent: session.userAgent ?? null,
    methods: Object.freeze([...session.methods]),
    credentialEpoch: session.credentialEpoch,
  };
}

export function copyToken(token: StoredToken): StoredToken {
  const { tokenHash, userId, purpose, expiresAt } = token;
  return { tokenHash, userId, purpose, expiresAt: new Date(expiresAt) };
}

export function copyEmailChange(change: StoredEmailChange): StoredEmailChange {
  return {
    tokenHash: change.tokenHash,
    userId: change.userId,
    newEmail: change.newEmail,
    newEmailKey: change.newEmailKey,
    createdAt: new Date(change.createdAt),
    expiresAt: new Date(change.expiresAt),
    endOtherSessions: change.endOtherSessions,
    keepSessionId: change.keepSessionId,
  };
}

export function copySecondFactor(factor: StoredSecondFactor): StoredSecondFactor {
  return {
    userId: factor.userId,
    sealedSecret: factor.sealedSecret,
    enabled: factor.enabled,
    createdAt: new Date(factor.createdAt),
    enabledAt: factor.enabledAt && new Date(factor.enabledAt),
    lastUsedStep: factor.lastUsedStep ?? null,
  };
}

export function copyLoginChallenge(challenge: StoredLoginChallenge): StoredLoginChallenge {
  return {
    tokenHash: challenge.tokenHash,
    userId: challenge.userId,
    credentialEpoch: challenge.credentialEpoch,
    attempts: challenge.attempts,
    createdAt: new Date(challenge.createdAt),
    expiresAt: new Date(challenge.expiresAt),
    ip: challenge.ip ?? null,
    userAgent: challenge.userAgent ?? null,
    firstFactor: challenge.firstFactor === 'fed' ? 'fed' : 'pwd',
  };
}

export function copyAuditEvent(event: AuditEvent): AuditEvent {
  return {
    id: event.id,
    at: new Date(event.at),
    type: event.type,
    outcome: event.outcome,
    actorType: event.actorType,
    actorId: event.actorId,
    subjectId: event.subjectId,
    ip: event.ip,
    requestId: event.requestId,
    details: event.details === null ? null : { ...event.details },
  };
}

export function entryOf(row: OutboxRow): OutboxEntry {
  const { sealedToken, claimId, ...fields } = row;
  return {
    ...fields,
    nextAttemptAt: new Date(row.nextAttemptAt),
    giveUpAt: new Date(row.giveUpAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    sentAt: row.sentAt && new Date(row.sentAt),
    hasToken: sealedToken !== null,
    claimed: claimId !== null,
  };
}

export function claimedOf(row: OutboxRow): ClaimedMessage {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.userId,
    username: row.username,
    email: row.email,
    sealedToken: row.sealedToken,
    attempts: row.attempts,
    giveUpAt: new Date(row.giveUpAt),
    createdAt: new Date(row.createdAt),
    claimId: row.claimId!,
  };
}

/** Newest first: `createdAt`, then `id`, both descending (ids by UTF-16 code units, as `Array#sort`). */
export function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Newest first: `at`, then `id`, both descending. */
export function newestEventFirst(a: { at: Date; id: string }, b: { at: Date; id: string }): number {
  return b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Expiry instants are exclusive: a token or session is dead from the millisecond it expires. */
export function isAtOrBefore(instant: Date, reference: Date): boolean {
  return instant.getTime() <= reference.getTime();
}
