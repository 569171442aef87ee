import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH } from '../../services/identity';
import { MAX_EMAIL, MAX_PASSWORD, MAX_USERNAME } from '../dto/bounds';

/** POST /register */
export class RegisterBody {
  @JSONSchema({
    description:
      `${USERNAME_MIN_LENGTH} to ${USERNAME_MAX_LENGTH} ASCII letters, digits, \`_\`, \`.\` or \`-\`, starting with ` +
      'a letter or digit; unique regardless of case.',
  })
  @MaxLength(MAX_USERNAME)
  @IsString()
  username!: string;

  @JSONSchema({ description: 'Where the verification link goes; unique regardless of case.' })
  @MaxLength(MAX_EMAIL)
  @IsString()
  email!: string;

  @JSONSchema({ description: 'Judged by the password policy: its length, common passwords, the account’s own words.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
