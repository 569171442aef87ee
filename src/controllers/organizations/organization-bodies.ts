import { IsOptional, IsString, Matches, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { RECORD_ID_PATTERN } from '../../services/record-id';
import { ORGANIZATION_ROLE_PATTERN } from '../../services/organizations/organization-options';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../services/admin-views';
import { MAX_CURSOR, MAX_EMAIL, MAX_TOKEN } from '../dto/bounds';

/** An organization's name: 1 to 100 characters once trimmed, not blank, no control characters (the core re-checks). */
export const MAX_ORGANIZATION_NAME = 100;
const ORGANIZATION_NAME = /^(?=.*\S)[^\p{Cc}\u2028\u2029]+$/u;
// The same set for the API document, without `\p{}` (Cc is U+0000 to U+001F and U+007F to U+009F).
const ORGANIZATION_NAME_PATTERN = '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]+$';

/** `POST /organizations` and `PATCH /organizations/:orgId`. */
export class OrganizationNameBody {
  @JSONSchema({
    pattern: ORGANIZATION_NAME_PATTERN,
    minLength: 1,
    maxLength: MAX_ORGANIZATION_NAME,
    description: `The organization’s name: 1 to ${MAX_ORGANIZATION_NAME} characters, not blank, no control characters (trimmed, NFC).`,
  })
  @Matches(ORGANIZATION_NAME, { message: 'name must not be blank or hold control characters' })
  @MaxLength(MAX_ORGANIZATION_NAME)
  @MinLength(1)
  @IsString()
  name!: string;
}

const ROLE_SCHEMA = {
  pattern: ORGANIZATION_ROLE_PATTERN.source,
  minLength: 1,
  maxLength: 32,
  description: 'A role of the organization role template (`owner`, `admin`, `member` by default, or the deployer’s).',
};

/** `PATCH /organizations/:orgId/members/:userId`. */
export class MemberRoleBody {
  @JSONSchema(ROLE_SCHEMA)
  @Matches(ORGANIZATION_ROLE_PATTERN, { message: 'role must be a role name of the template' })
  @MaxLength(32)
  @IsString()
  role!: string;
}

/** `POST /organizations/:orgId/invitations`. */
export class InvitationBody {
  @JSONSchema({ description: 'The invitee’s address: only the verified account owning it may accept.' })
  @MaxLength(MAX_EMAIL)
  @MinLength(1)
  @IsString()
  email!: string;

  @JSONSchema(ROLE_SCHEMA)
  @Matches(ORGANIZATION_ROLE_PATTERN, { message: 'role must be a role name of the template' })
  @MaxLength(32)
  @IsString()
  role!: string;
}

const USER_ID_SCHEMA = {
  format: 'uuid',
  pattern: RECORD_ID_PATTERN.source,
  minLength: 36,
  maxLength: 36,
};

/** `POST /organizations/:orgId/transfer` and `POST /admin/organizations/:orgId/owner`. */
export class UserIdBody {
  @JSONSchema({ ...USER_ID_SCHEMA, description: 'The account’s `id` (a member’s `user_id`).' })
  @Matches(RECORD_ID_PATTERN, { message: 'user_id must be an account id' })
  @MaxLength(36)
  @IsString()
  user_id!: string;
}

/** `POST /invitations/preview`, `/accept` and `/decline`: the token of the invitation mail’s link. */
export class InvitationTokenBody {
  @JSONSchema({ description: 'The `token` parameter of the invitation link (never sent in a URL to the API).' })
  @MaxLength(MAX_TOKEN)
  @MinLength(1)
  @IsString()
  token!: string;
}

/** A query value that is a whole number from `min` to `max`, written in digits. */
function IsWholeNumberText(min: number, max: number): PropertyDecorator {
  return ValidateBy({
    name: 'isWholeNumberText',
    validator: {
      validate: (value) =>
        typeof value === 'string' && /^[0-9]{1,9}$/.test(value) && Number(value) >= min && Number(value) <= max,
      defaultMessage: (args) => `${args?.property} must be a whole number from ${min} to ${max}`,
    },
  });
}

/** `GET /admin/organizations?cursor&limit`: the paging of the administrators' lists, declared here (a subclass
 * without decorators of its own has no schema of its own). */
export class OrganizationPageQuery {
  @JSONSchema({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Organizations per page.',
  })
  @IsWholeNumberText(1, MAX_PAGE_SIZE)
  @IsOptional()
  limit?: string;

  @JSONSchema({ description: 'The `next_cursor` of the previous page.' })
  @MaxLength(MAX_CURSOR)
  @IsString()
  @IsOptional()
  cursor?: string;

  /** The validated text as the core's paging. */
  toPage(): { limit: number | undefined; cursor: string | undefined } {
    return { limit: this.limit === undefined ? undefined : Number(this.limit), cursor: this.cursor };
  }
}
