import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_TOKEN } from '../dto/bounds';

/** POST /verify-email: the raw token from the verification email. */
export class TokenBody {
  @JSONSchema({ description: 'The `token` parameter of the verification link.' })
  @MaxLength(MAX_TOKEN)
  @IsString()
  token!: string;
}
