import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD } from './bounds';

/** DELETE /account: the current password confirms the deletion. */
export class PasswordBody {
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
