import type { AuditEvent, AuditQuery, NewAuditEvent } from '../audit-event';

/**
 * The audit trail inside a transaction (`UserStoreTransaction.audit`): an event recording a change commits with it.
 * An event that records no change (a refusal, a failed sign-in) is added in a transaction of its own.
 */
export interface AuditWriter {
  add(event: NewAuditEvent & { subjectId: string | null }): Promise<void>;
}

/** The audit trail as an administrator reads it (`UserStore.audit`). */
export interface AuditReads {
  list(query: AuditQuery): Promise<AuditEvent[]>;
}
