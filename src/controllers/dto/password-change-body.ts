import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD } from './bounds';

/** POST /password/change */
export class PasswordChangeBody {
  @MaxLength(MAX_PASSWORD)
  @IsString()
  old_password!: string;

  @MaxLength(MAX_PASSWORD)
  @IsString()
  new_password!: string;
}
