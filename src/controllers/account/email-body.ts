import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_EMAIL } from '../dto/bounds';

/** POST /resend-verification and POST /password-reset/request. */
export class EmailBody {
  @JSONSchema({ description: 'The email address of the account.' })
  @MaxLength(MAX_EMAIL)
  @IsString()
  email!: string;
}
