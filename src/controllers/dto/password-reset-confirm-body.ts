import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD, MAX_TOKEN } from './bounds';

/** POST /password-reset/confirm */
export class PasswordResetConfirmBody {
  @MaxLength(MAX_TOKEN)
  @IsString()
  token!: string;

  @MaxLength(MAX_PASSWORD)
  @IsString()
  new_password!: string;
}
