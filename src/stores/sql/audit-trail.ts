import type { Kysely } from 'kysely';
import type { AuditDetails, AuditEvent, AuditQuery, NewAuditEvent } from '../../services/audit-event';
import { fromAuditRow, toAuditRow } from './rows';
import type { PendingInsert } from './insert-together';
import type { Database } from './schema';

/**
 * Writes the event, if any, in the caller's transaction: it commits or rolls back with the change it records. A
 * subject left undefined becomes `subjectFallback`; `extraDetails` (a count the store alone knows) join the details.
 */
export async function insertAudit(
  trx: Kysely<Database>,
  event: NewAuditEvent | undefined,
  subjectFallback: string | null = null,
  extraDetails?: AuditDetails,
): Promise<void> {
  await auditInsert(trx, event, subjectFallback, extraDetails)?.execute();
}

/** The insert `insertAudit` runs, to run with others (`insertTogether`); undefined without an event. */
export function auditInsert(
  trx: Kysely<Database>,
  event: NewAuditEvent | undefined,
  subjectFallback: string | null = null,
  extraDetails?: AuditDetails,
): PendingInsert | undefined {
  if (!event) return undefined;
  const withDetails = extraDetails ? { ...event, details: { ...(event.details ?? {}), ...extraDetails } } : event;
  return trx.insertInto('audit_events').values(toAuditRow(withDetails, subjectFallback));
}

/** A page of the trail, newest first (`at`, then `id`, descending), continuing strictly after `query.after`. */
export async function listAuditEvents(db: Kysely<Database>, query: AuditQuery): Promise<AuditEvent[]> {
  if (query.limit < 1) return [];
  const { userId, types, since, until, after } = query;
  // Ids and user ids come from URLs: PostgreSQL text cannot hold NUL, so nothing stored matches one.
  if (userId?.includes('\u0000') || after?.id.includes('\u0000')) return [];
  if (types !== undefined && types.length === 0) return [];
  const rows = await db
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
