import { IsString, MaxLength } from 'class-validator';
import { MAX_TOKEN } from './bounds';

/** POST /verify-email: the raw token from the verification email. */
export class TokenBody {
  @IsString()
  @MaxLength(MAX_TOKEN)
  token!: string;
}
