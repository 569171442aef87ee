import type { ExpiryCutoffs } from './user-store';
import type { ResolvedAccountOptions } from './account-options';
import type { StoredSession, StoredUser } from './types';

// When what the store keeps stops being usable, in one place: sessions (absolute and idle), unconfirmed
// registrations, and the clean-up's cut-offs. Rows past these are refused on use whether or not they are still
// stored; the clean-up only keeps the tables small, except for registrations, whose removal frees their username.

/** The rules of the clean-up (`UserStore.deleteExpired`). */
export interface ExpiryRules {
  /** A session unused this long has ended (the core's `sessionIdleTimeoutMs`). */
  sessionIdleTimeoutMs: number;
  /** A registration unconfirmed this long has expired (`unverifiedRegistrationTtlMs`). */
  unverifiedRegistrationTtlMs: number;
  /** Sent and failed outbox messages are kept this long after their last change (`outbox.retentionMs`). */
  outboxRetentionMs: number;
  /** Audit events are kept this long (`auditRetentionMs`). */
  auditRetentionMs: number;
}

export function expiryRulesOf(options: ResolvedAccountOptions): ExpiryRules {
  return {
    sessionIdleTimeoutMs: options.sessionIdleTimeoutMs,
    unverifiedRegistrationTtlMs: options.unverifiedRegistrationTtlMs,
    outboxRetentionMs: options.outbox.retentionMs,
    auditRetentionMs: options.auditRetentionMs,
  };
}

/** The session options that decide when a session ends (see `AccountOptions`). */
export type SessionRules = Pick<
  ResolvedAccountOptions,
  'sessionLifetimeMs' | 'sessionIdleTimeoutMs' | 'sessionRefreshIntervalMs'
>;

/** The absolute end of a session created at `createdAt`: however active, it never lives past this. */
export function sessionExpiresAt(createdAt: Date, rules: SessionRules): Date {
  return new Date(createdAt.getTime() + rules.sessionLifetimeMs);
}

/**
 * `expired` at or past its absolute expiry, or once idle for `sessionIdleTimeoutMs`; `refresh` when its idle window
 * is due to move (at most once a `sessionRefreshIntervalMs`, which bounds the writes of the hot path); else `live`.
 */
export function sessionStatus(
  session: Pick<StoredSession, 'expiresAt' | 'lastSeenAt'>,
  now: Date,
  rules: SessionRules,
): 'expired' | 'refresh' | 'live' {
  const at = now.getTime();
  const idleDeadline = session.lastSeenAt.getTime() + rules.sessionIdleTimeoutMs;
  if (at >= session.expiresAt.getTime() || at >= idleDeadline) return 'expired';
  return at - session.lastSeenAt.getTime() >= rules.sessionRefreshIntervalMs ? 'refresh' : 'live';
}

/** What `UserStore.deleteExpired` removes at `now` under `rules`. */
export function expiryCutoffs(now: Date, rules: ExpiryRules): ExpiryCutoffs {
  const at = now.getTime();
  return {
    now: new Date(at),
    sessionIdleBefore: new Date(at - rules.sessionIdleTimeoutMs),
    unverifiedCreatedBefore: unverifiedCreatedBefore(now, rules.unverifiedRegistrationTtlMs),
    outboxChangedBefore: new Date(at - rules.outboxRetentionMs),
    auditBefore: new Date(at - rules.auditRetentionMs),
  };
}

/** Registrations created at or before this instant and still unconfirmed have expired. */
export function unverifiedCreatedBefore(now: Date, unverifiedRegistrationTtlMs: number): Date {
  return new Date(now.getTime() - unverifiedRegistrationTtlMs);
}

export function isExpiredRegistration(user: StoredUser, now: Date, unverifiedRegistrationTtlMs: number): boolean {
  return (
    !user.verified && user.createdAt.getTime() <= unverifiedCreatedBefore(now, unverifiedRegistrationTtlMs).getTime()
  );
}

/** When a registration created at `createdAt` expires: its verification links never outlive it. */
export function registrationExpiresAt(createdAt: Date, unverifiedRegistrationTtlMs: number): Date {
  return new Date(createdAt.getTime() + unverifiedRegistrationTtlMs);
}
