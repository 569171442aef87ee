import { checkAuditEventType, type AuditEvent, type AuditQuery, type NewAuditEvent } from '../../services/audit-event';
import type { AuditReads, AuditWriter } from '../../services/store/audit-records';
import { copyAuditEvent, newestEventFirst } from './copies';
import type { MemoryData } from './memory-state';

/** The trail: events are added (inside a transaction) and listed (outside one), never changed. */
export class MemoryAuditRecords implements AuditWriter, AuditReads {
  constructor(private readonly data: MemoryData) {}

  async add(event: NewAuditEvent & { subjectId: string | null }): Promise<void> {
    // Mirrors the trail's primary key: the throw undoes the whole transaction.
    if (this.data.auditEvents.has(event.id)) throw new Error('MemoryUserStore: duplicate audit event id');
    checkAuditEventType(event.type);
    this.data.auditEvents.set(event.id, copyAuditEvent(event));
  }

  async list(query: AuditQuery): Promise<AuditEvent[]> {
    const { userId, types, since, until, after } = query;
    return [...this.data.auditEvents.values()]
      .filter(
        (event) =>
          (userId === undefined || event.subjectId === userId || event.actorId === userId) &&
          (types === undefined || types.includes(event.type)) &&
          (since === undefined || event.at.getTime() >= since.getTime()) &&
          (until === undefined || event.at.getTime() < until.getTime()) &&
          (after === undefined || newestEventFirst(event, after) > 0),
      )
      .sort(newestEventFirst)
      .slice(0, Math.max(0, query.limit))
      .map(copyAuditEvent);
  }
}
