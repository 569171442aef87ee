import { IsString, Matches } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { TOTP_CODE } from './bounds';

/** POST /second-factor/totp/confirm: the first code of the new authenticator, which switches the factor on. */
export class TotpCodeBody {
  @JSONSchema({ description: 'The six digits the authenticator app shows now, for the secret just given.' })
  @Matches(TOTP_CODE, { message: 'code must be six digits' })
  @IsString()
  code!: string;
}
