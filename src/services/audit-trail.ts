import type { AuditActorType, AuditDetails, AuditEventType, NewAuditEvent } from './audit-event';
import type { Clock } from './clock';
import { orderedId } from './ordered-id';
import type { UserStore } from './user-store';

/** The request an event comes from, as the HTTP layer knows it; absent outside a request (CLI, clean-up). */
export interface RequestOrigin {
  requestId?: string;
  ip?: string;
}

/** Who acted, and on whose account. */
export interface AuditParties {
  actorType: AuditActorType;
  actorId: string | null;
  /** `undefined` only for the store methods that fill in the user a token names (see `NewAuditEvent`). */
  subjectId: string | null | undefined;
}

/** The person on their own account. */
export const self = (userId: string): AuditParties => ({ actorType: 'user', actorId: userId, subjectId: userId });

/** Nobody signed in (a login, a link from an email): about `subjectId`, when known. */
export const anonymous = (subjectId: string | null | undefined): AuditParties => ({
  actorType: 'anonymous',
  actorId: null,
  subjectId,
});

/** The operator at the CLI (no user: they hold the database), acting on `subjectId`. */
export const operator = (subjectId: string | null): AuditParties => ({
  actorType: 'operator',
  actorId: null,
  subjectId,
});

/**
 * Builds audit events (id, time, request id and client address filled in) and writes those that record no change.
 * Events that record a change are handed to the store method making it, which writes them in its transaction.
 */
export class AuditTrail {
  constructor(
    private readonly store: Pick<UserStore, 'appendAuditEvent'>,
    private readonly clock: Clock,
    private readonly origin: () => RequestOrigin | undefined = () => undefined,
  ) {}

  /** The same trail for events of one request: each carries `origin`. */
  from(origin: RequestOrigin): AuditTrail {
    return new AuditTrail(this.store, this.clock, () => origin);
  }

  event(type: AuditEventType, outcome: string, parties: AuditParties, details?: AuditDetails): NewAuditEvent {
    const origin = this.origin();
    return {
      id: orderedId(),
      at: this.clock.now(),
      type,
      outcome,
      ...parties,
      ip: origin?.ip ?? null,
      requestId: origin?.requestId ?? null,
      details: details ?? null,
    };
  }

  /** Writes an event that records no change (a refusal, a failed sign-in). */
  async record(type: AuditEventType, outcome: string, parties: AuditParties, details?: AuditDetails): Promise<void> {
    const event = this.event(type, outcome, parties, details);
    await this.store.appendAuditEvent({ ...event, subjectId: event.subjectId ?? null });
  }
}
