import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD, MAX_TOKEN } from './bounds';

/** POST /password-reset/confirm */
export class PasswordResetConfirmBody {
  @IsString()
  @MaxLength(MAX_TOKEN)
  token!: string;

  @IsString()
  @MaxLength(MAX_PASSWORD)
  new_password!: string;
}
