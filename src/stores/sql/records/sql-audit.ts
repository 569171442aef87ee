import type { Kysely } from 'kysely';
import {
  checkAuditEventType,
  type AuditEvent,
  type AuditQuery,
  type NewAuditEvent,
} from '../../../services/audit-event';
import type { AuditReads, AuditWriter } from '../../../services/store/audit-records';
import { fromAuditRow, toAuditRow } from '../rows';
import type { Database } from '../schema';
import type { SqlUnit } from './unit-of-work';

/**
 * The audit trail inside a transaction: the event waits to go with the change's other inserts (`SqlUnit`), so it
 * commits or rolls back with the change it records, at no round trip of its own on PostgreSQL.
 */
export class SqlAuditWriter implements AuditWriter {
  constructor(private readonly unit: SqlUnit) {}

  async add(event: NewAuditEvent & { subjectId: string | null }): Promise<void> {
    checkAuditEventType(event.type);
    this.unit.queue((db) => db.insertInto('audit_events').values(toAuditRow(event)));
  }
}

/** The audit trail as an administrator reads it, on the store's Kysely. */
export class SqlAuditReads implements AuditReads {
  constructor(private readonly db: Kysely<Database>) {}

  /** A page of the trail, newest first (`at`, then `id`, descending), continuing strictly after `query.after`. */
  async list(query: AuditQuery): Promise<AuditEvent[]> {
    if (query.limit < 1) return [];
    const { userId, types, since, until, after } = query;
    // Ids and user ids come from URLs: PostgreSQL text cannot hold NUL, so nothing stored matches one.
    if (userId?.includes('\u0000') || after?.id.includes('\u0000')) return [];
    if (types !== undefined && types.length === 0) return [];
    const rows = await this.db
      .selectFrom('audit_events')
      .selectAll()
      .$if(userId !== undefined, (q) =>
        q.where((eb) => eb.or([eb('subject_id', '=', userId!), eb('actor_id', '=', userId!)])),
      )
      .$if(types !== undefined, (q) => q.where('type', 'in', [...types!]))
      .$if(since !== undefined, (q) => q.where('at', '>=', since!.getTime()))
      .$if(until !== undefined, (q) => q.where('at', '<', until!.getTime()))
      .$if(after !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('at', '<', after!.at.getTime()),
            eb.and([eb('at', '=', after!.at.getTime()), eb('id', '<', after!.id)]),
          ]),
        ),
      )
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map(fromAuditRow);
  }
}
