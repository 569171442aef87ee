import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD, MAX_TOKEN } from '../dto/bounds';
import { OptionalField } from '../dto/optional-field';

/** POST /password-reset/confirm */
export class PasswordResetConfirmBody {
  @JSONSchema({ description: 'The `token` parameter of the reset link.' })
  @MaxLength(MAX_TOKEN)
  @IsString()
  token!: string;

  @JSONSchema({ description: 'Judged by the password policy.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  new_password!: string;

  @JSONSchema({
    description:
      'Also revoke every API key of the account (each revocation audited). Default false: keys are kept, since a ' +
      'new password does not mean a key leaked; revoke them when it might have.',
  })
  @IsBoolean()
  @OptionalField()
  revoke_api_keys?: boolean;
}
