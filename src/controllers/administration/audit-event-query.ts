import { IsOptional } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import type { AuditFilters } from '../../services/admin-views';
import { AUDIT_EVENT_TYPES } from '../../services/audit-event';
import { PATH_VALUES } from '../../http/path-values';
import { auditTypesOf, instantOf, IsAuditTypeList, IsInstantText, IsRecordIdText } from './query-values';
import { PageQuery } from './page-query';

/** The query of `GET /admin/users/:id/audit-events`: one account's events, every filter optional. */
export class UserAuditEventQuery extends PageQuery {
  // The whole schema (not merged over the generated one, which would name the design type `Array` as a schema).
  @JSONSchema(() => ({
    type: 'array',
    items: { type: 'string', enum: [...AUDIT_EVENT_TYPES] },
    description: 'Only events of these types: the parameter repeated, or a comma-separated list.',
  }))
  // Declared as an array: routing-controllers then hands a single value over as a one-item array.
  @IsAuditTypeList()
  @IsOptional()
  type?: string[];

  @JSONSchema({ format: 'date-time', description: 'Events at or after this ISO 8601 instant (or day, UTC).' })
  @IsInstantText()
  @IsOptional()
  since?: string;

  @JSONSchema({ format: 'date-time', description: 'Events strictly before this ISO 8601 instant (or day, UTC).' })
  @IsInstantText()
  @IsOptional()
  until?: string;

  /** The validated text as the core's filters. */
  toFilters(): AuditFilters {
    return {
      types: this.type === undefined ? undefined : auditTypesOf(this.type),
      since: this.since === undefined ? undefined : instantOf(this.since)!,
      until: this.until === undefined ? undefined : instantOf(this.until)!,
      ...this.page(),
    };
  }
}

/** The query of `GET /admin/audit-events`: the whole trail, or one account's part of it with `user_id`. */
export class AuditEventQuery extends UserAuditEventQuery {
  @JSONSchema({
    ...PATH_VALUES.userId.schema,
    description: 'Only events whose subject or actor is this account (its `id`, a UUID as every id Gatehouse gives).',
  })
  @IsRecordIdText()
  @IsOptional()
  user_id?: string;

  override toFilters(): AuditFilters {
    return { ...super.toFilters(), userId: this.user_id };
  }
}
