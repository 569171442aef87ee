import type { ExpiryCutoffs } from '../stores/user-store';
import type { ResolvedAccountOptions } from './account-options';
import type { StoredUser } from './types';

/**
 * How long what the store keeps stays usable, in one place: the clean-up's cut-offs and the core's judgement of an
 * expired registration both come from here. Rows past these are already refused on use; removing them only keeps the
 * tables small, except for registrations, whose removal frees their username.
 */
export interface ExpiryRules {
  /** A session unused this long has ended (the core's `sessionIdleTimeoutMs`). */
  sessionIdleTimeoutMs: number;
  /** A registration unconfirmed this long has expired (`unverifiedRegistrationTtlMs`). */
  unverifiedRegistrationTtlMs: number;
  /** Sent and failed outbox messages are kept this long after their last change (`outbox.retentionMs`). */
  outboxRetentionMs: number;
}

export function expiryRulesOf(options: ResolvedAccountOptions): ExpiryRules {
  return {
    sessionIdleTimeoutMs: options.sessionIdleTimeoutMs,
    unverifiedRegistrationTtlMs: options.unverifiedRegistrationTtlMs,
    outboxRetentionMs: options.outbox.retentionMs,
  };
}

/** What `UserStore.deleteExpired` removes at `now` under `rules`. */
export function expiryCutoffs(now: Date, rules: ExpiryRules): ExpiryCutoffs {
  const at = now.getTime();
  return {
    now: new Date(at),
    sessionIdleBefore: new Date(at - rules.sessionIdleTimeoutMs),
    unverifiedCreatedBefore: unverifiedCreatedBefore(now, rules.unverifiedRegistrationTtlMs),
    outboxChangedBefore: new Date(at - rules.outboxRetentionMs),
  };
}

/** Registrations created at or before this instant and still unconfirmed have expired. */
export function unverifiedCreatedBefore(now: Date, unverifiedRegistrationTtlMs: number): Date {
  return new Date(now.getTime() - unverifiedRegistrationTtlMs);
}

export function isExpiredRegistration(user: StoredUser, now: Date, unverifiedRegistrationTtlMs: number): boolean {
  return !user.verified && user.createdAt.getTime() <= unverifiedCreatedBefore(now, unverifiedRegistrationTtlMs).getTime();
}

/** When a registration created at `createdAt` expires: its verification links never outlive it. */
export function registrationExpiresAt(createdAt: Date, unverifiedRegistrationTtlMs: number): Date {
  return new Date(createdAt.getTime() + unverifiedRegistrationTtlMs);
}
