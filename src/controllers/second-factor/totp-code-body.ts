import { IsBoolean, IsString, Matches, ValidateIf } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TOTP_CODE } from '../dto/bounds';

/** POST /second-factor/totp/confirm: the first code of the new authenticator, which switches the factor on. */
export class TotpCodeBody {
  @JSONSchema({ description: 'The six digits the authenticator app shows now, for the secret just given.' })
  @Matches(TOTP_CODE, { message: 'code must be six digits' })
  @IsString()
  code!: string;

  @JSONSchema({
    description:
      'End every other session of the account as the factor goes on (this one stays). Default true: a session ' +
      'someone else holds would otherwise outlive the factor meant to keep them out.',
  })
  // Absent means the default; null is not a boolean (as the document says), so it is refused like any other value.
  @ValidateIf((body: TotpCodeBody) => body.end_other_sessions !== undefined)
  @IsBoolean()
  end_other_sessions?: boolean;
}
