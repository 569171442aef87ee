import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD } from '../dto/bounds';

/** POST /password/change */
export class PasswordChangeBody {
  @JSONSchema({ description: 'The current password.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  old_password!: string;

  @JSONSchema({ description: 'Judged by the password policy; must differ from the current one.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  new_password!: string;
}
