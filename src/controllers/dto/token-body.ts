import { IsString, MaxLength } from 'class-validator';
import { MAX_TOKEN } from './bounds';

/** POST /verify-email: the raw token from the verification email. */
export class TokenBody {
  @MaxLength(MAX_TOKEN)
  @IsString()
  token!: string;
}
