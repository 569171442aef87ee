import { IsOptional, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type UserFilters } from '../../services/admin-views';
import { MAX_ACCESS_NAME, MAX_CURSOR, MAX_PREFIX } from './bounds';
import { instantOf, IsBooleanText, IsInstantText, IsWholeNumberText } from './query-values';

/** The query of `GET /admin/users`: every filter optional, combined with AND. */
export class UserListQuery {
  @JSONSchema({ description: 'A prefix of the username or of the email address, regardless of case.' })
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

  @JSONSchema({ description: 'Only accounts holding this role.' })
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

  @JSONSchema({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Accounts per page.',
  })
  @IsWholeNumberText(1, MAX_PAGE_SIZE)
  @IsOptional()
  limit?: string;

  @JSONSchema({ description: 'The `next_cursor` of the previous page, with the same filters.' })
  @MaxLength(MAX_CURSOR)
  @IsString()
  @IsOptional()
  cursor?: string;

  /** The validated text as the core's filters. */
  toFilters(): UserFilters {
    return {
      prefix: this.prefix,
      verified: booleanOf(this.verified),
      disabled: booleanOf(this.disabled),
      role: this.role,
      createdFrom: this.created_from === undefined ? undefined : instantOf(this.created_from)!,
      createdBefore: this.created_before === undefined ? undefined : instantOf(this.created_before)!,
      limit: this.limit === undefined ? undefined : Number(this.limit),
      cursor: this.cursor,
    };
  }
}

function booleanOf(text: string | undefined): boolean | undefined {
  return text === undefined ? undefined : text === 'true';
}
