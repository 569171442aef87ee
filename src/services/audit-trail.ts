import type { AuditActorType, AuditDetails, AuditEvent, AuditEventType } from './audit-event';
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
  /**
   * The account the event is about; null when none is known yet (a link from an email names its account only once
   * the store has found it: the caller then writes the event with that user's id, see `AccountContext.changeOfUser`).
   */
  subjectId: string | null;
}

/** The person on their own account. */
export const self = (userId: string): AuditParties => ({ actorType: 'user', actorId: userId, subjectId: userId });

/** Nobody signed in (a login, a link from an email): about `subjectId`, when known. */
export const anonymous = (subjectId: string | null): AuditParties => ({
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

/** The event with `extra` joining its details (a count known only once the change is made, `sessions_ended`). */
export function withDetails(event: AuditEvent, extra: AuditDetails): AuditEvent {
  return { ...event, details: { ...event.details, ...extra } };
}

/**
 * Builds audit events (id, time, request id and client address filled in) and writes those that record no change.
 * An event that records a change is written by the caller in the transaction of that change (`tx.audit.add`), and
 * only when the change happened.
 */
export class AuditTrail {
  constructor(
    private readonly store: Pick<UserStore, 'transaction'>,
    private readonly clock: Clock,
    private readonly origin: () => RequestOrigin | undefined = () => undefined,
  ) {}

  /** The same trail for events of one request: each carries `origin`. */
  from(origin: RequestOrigin): AuditTrail {
    return new AuditTrail(this.store, this.clock, () => origin);
  }

  event(type: AuditEventType, outcome: string, parties: AuditParties, details?: AuditDetails): AuditEvent {
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
  record(type: AuditEventType, outcome: string, parties: AuditParties, details?: AuditDetails): Promise<void> {
    return this.write(this.event(type, outcome, parties, details));
  }

  /** Writes an event already built that records no change (an administrator's read), in a transaction of its own. */
  write(event: AuditEvent): Promise<void> {
    return this.store.transaction((tx) => tx.audit.add(event));
  }
}
