import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_RECOVERY_CODE } from '../dto/bounds';

/** POST /second-factor/recovery-codes and /second-factor/disable: a proof of the factor itself. */
export class SecondFactorCodeBody {
  @JSONSchema({
    description:
      'Six digits from the authenticator app, or an unused recovery code (which this spends), for when the ' +
      'authenticator is lost.',
  })
  @MaxLength(MAX_RECOVERY_CODE)
  @IsString()
  code!: string;
}
