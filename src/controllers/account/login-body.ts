import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD, MAX_USERNAME } from '../dto/bounds';

/** POST /login */
export class LoginBody {
  @JSONSchema({ description: 'As registered, in any letter case.' })
  @MaxLength(MAX_USERNAME)
  @IsString()
  username!: string;

  @JSONSchema({ description: 'The current password.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
