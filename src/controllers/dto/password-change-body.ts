import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD } from './bounds';

/** POST /password/change */
export class PasswordChangeBody {
  @IsString()
  @MaxLength(MAX_PASSWORD)
  old_password!: string;

  @IsString()
  @MaxLength(MAX_PASSWORD)
  new_password!: string;
}
