import { KINDS_OF_FEATURES } from './kinds-of-features';

/**
 * The audit trail: one row per security event, written in the same store transaction as the change it records (or
 * alone, for a refusal that changed nothing). Append-only: nothing updates a row, and only the clean-up
 * removes rows, once they are older than the retention (`auditRetentionMs`).
 *
 * An event never holds a token, password, hash or email address: who and what are user ids, role and permission
 * names and counts. The client address and request id come from the request that caused it.
 */
export interface AuditEvent {
  /** A UUID version 7: events of one process sort in the order they happened, within a millisecond too. */
  id: string;
  at: Date;
  /** What happened, e.g. `login`, `password_reset`, `admin.user_disabled` (see `AUDIT_EVENT_TYPES`). */
  type: AuditEventType;
  /** How it ended, e.g. `success`, `wrong_password`, `invalid_token`, `refused`. */
  outcome: string;
  /** Who acted: the person on their own account, an administrator, the CLI's operator, or nobody signed in. */
  actorType: AuditActorType;
  /** The acting user (`user`, `admin`); null for `operator` and `anonymous`. */
  actorId: string | null;
  /** The account the event is about; null when none is known (a login for an unknown name). */
  subjectId: string | null;
  /** The client's address (trusted-proxy aware), when a request caused it. */
  ip: string | null;
  /** The `X-Request-Id` of the request that caused it, when one did. */
  requestId: string | null;
  /** Names and counts only (a role, a permission, how many sessions ended, which second-factor method). */
  details: AuditDetails | null;
}

export type AuditDetails = Record<string, string | number | boolean>;

export type AuditActorType = 'user' | 'admin' | 'operator' | 'anonymous';

/**
 * An event whose subject may be unknown yet (`undefined`). The trail (`UserStoreTransaction.audit`) takes only events
 * whose subject is decided: the core fills it in before writing (the user a token named, once the store found it).
 */
export type NewAuditEvent = Omit<AuditEvent, 'subjectId'> & { subjectId: string | null | undefined };

export type AuditEventType = (typeof KINDS_OF_FEATURES)[number]['audit'][number];

/** Every event type the core writes, gathered from the features' kinds; the admin API and the CLI filter by these. */
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = Object.freeze(
  KINDS_OF_FEATURES.flatMap((feature): AuditEventType[] => [...feature.audit]),
);

const KNOWN_TYPES: ReadonlySet<string> = new Set(AUDIT_EVENT_TYPES);

/**
 * Refuses to record an event type this release does not know. The table does not constrain `type`, so a new type is
 * one entry in its feature's kinds (`services/kinds-of-features.ts`), not a table rebuild; the stores check it where they write an event. A type read
 * back that this release does not know (a later release's) is listed as it is.
 */
export function checkAuditEventType(type: unknown): AuditEventType {
  if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) {
    throw new TypeError(`Gatehouse: unknown audit event type ${JSON.stringify(type)}`);
  }
  return type as AuditEventType;
}

/**
 * A page of the audit trail, newest first (`at`, then `id`, both descending). Filters combine with AND; `userId`
 * matches events whose subject or actor is that user.
 */
export interface AuditQuery {
  userId?: string;
  types?: readonly AuditEventType[];
  /** Events at or after this instant. */
  since?: Date;
  /** Events strictly before this instant. */
  until?: Date;
  /** Continue after this event (the last of the previous page): keyset, so inserts meanwhile never shift a page. */
  after?: AuditCursor;
  /** At most this many (the core asks for one more than it shows, to know whether a next page exists). */
  limit: number;
}

export interface AuditCursor {
  at: Date;
  id: string;
}
