import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD, MAX_TOKEN } from '../dto/bounds';

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
}
