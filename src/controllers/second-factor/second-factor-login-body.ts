import {
  IsString,
  Matches,
  MaxLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_RECOVERY_CODE, MAX_TOKEN, TOTP_CODE } from '../dto/bounds';

/** One proof per answer: a code and a recovery code together would spend two proofs for one sign-in. */
@ValidatorConstraint({ name: 'oneProof' })
class NotWithCode implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    return (args.object as { code?: unknown }).code === undefined;
  }

  defaultMessage(): string {
    return 'send either code or recovery_code, not both';
  }
}

/** POST /login/second-factor: the challenge of `POST /login`, answered with a TOTP code or a recovery code. */
@JSONSchema({
  description: 'Exactly one of `code` and `recovery_code`.',
  oneOf: [{ required: ['code'] }, { required: ['recovery_code'] }],
})
export class SecondFactorLoginBody {
  @JSONSchema({ description: 'The `challenge_token` that `POST /login` answered.' })
  @MaxLength(MAX_TOKEN)
  @IsString()
  challenge_token!: string;

  @JSONSchema({ description: 'The six digits the authenticator app shows now.' })
  @Matches(TOTP_CODE, { message: 'code must be six digits' })
  @IsString()
  // Checked when given, and when neither is: then "code must be a string" says what is missing.
  @ValidateIf((body: SecondFactorLoginBody) => body.code !== undefined || body.recovery_code === undefined)
  code?: string;

  @JSONSchema({ description: 'One of the recovery codes, unused; case, spaces and dashes do not matter.' })
  @Validate(NotWithCode)
  @MaxLength(MAX_RECOVERY_CODE)
  @IsString()
  @ValidateIf((body: SecondFactorLoginBody) => body.recovery_code !== undefined)
  recovery_code?: string;
}
