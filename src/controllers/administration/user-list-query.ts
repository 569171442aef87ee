import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ACCESS_NAME_SCHEMA } from '../../openapi/administration/admin-schemas';
import type { UserFilters } from '../../services/admin-views';
import { MAX_ACCESS_NAME, MAX_PREFIX } from '../dto/bounds';
import { instantOf, IsBooleanText, IsInstantText, IsPlainText, NO_CONTROL_PATTERN } from './query-values';
import { PageQuery } from './page-query';

/** The query of `GET /admin/users`: every filter optional, combined with AND. */
export class UserListQuery extends PageQuery {
  @JSONSchema({
    pattern: NO_CONTROL_PATTERN,
    description: 'A prefix of the username or of the email address, regardless of case.',
  })
  @IsPlainText()
  @MaxLength(MAX_PREFIX)
  @IsString()
  @IsOptional()
  prefix?: string;

  @JSONSchema({ type: 'boolean', description: 'Only verified (`true`) or unverified (`false`) accounts.' })
  @IsBooleanText()
  @IsOptional()
  verified?: string;

  @JSONSchema({ type: 'boolean', description: 'Only disabled (`true`) or enabled (`false`) accounts.' })
  @IsBooleanText()
  @IsOptional()
  disabled?: string;

  // The core refuses a name outside the rule (400 `invalid_role`); the schema states that rule.
  @JSONSchema({ ...ACCESS_NAME_SCHEMA, description: 'Only accounts holding this role (a role name).' })
  @MaxLength(MAX_ACCESS_NAME)
  @IsString()
  @IsOptional()
  role?: string;

  @JSONSchema({ format: 'date-time', description: 'Created at or after this ISO 8601 instant (or day, UTC).' })
  @IsInstantText()
  @IsOptional()
  created_from?: string;

  @JSONSchema({ format: 'date-time', description: 'Created strictly before this ISO 8601 instant (or day, UTC).' })
  @IsInstantText()
  @IsOptional()
  created_before?: string;

  /** The validated text as the core's filters. */
  toFilters(): UserFilters {
    return {
      prefix: this.prefix,
      verified: booleanOf(this.verified),
      disabled: booleanOf(this.disabled),
      role: this.role,
      createdFrom: this.created_from === undefined ? undefined : instantOf(this.created_from)!,
      createdBefore: this.created_before === undefined ? undefined : instantOf(this.created_before)!,
      ...this.page(),
    };
  }
}

function booleanOf(text: string | undefined): boolean | undefined {
  return text === undefined ? undefined : text === 'true';
}
