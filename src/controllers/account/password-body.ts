import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD } from '../dto/bounds';

/** DELETE /account: the current password confirms the deletion. */
export class PasswordBody {
  @JSONSchema({ description: 'The current password, confirming the deletion.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
