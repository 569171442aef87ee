import { IsString, MaxLength, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD, MAX_RECOVERY_CODE } from '../dto/bounds';

/** POST /reauthenticate */
export class ReauthenticateBody {
  @JSONSchema({ description: 'The current password, proved again on this session.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;

  @JSONSchema({
    description:
      'Needed when the account has two-factor sign-in on (without it the answer is `second_factor_required`): six ' +
      'digits from the authenticator app, or an unused recovery code (which this spends). Ignored otherwise.',
  })
  // Absent is "no code"; null is not a string, and is refused like any other value that is not.
  @ValidateIf((body: ReauthenticateBody) => body.code !== undefined)
  @MaxLength(MAX_RECOVERY_CODE)
  @IsString()
  code?: string;
}
