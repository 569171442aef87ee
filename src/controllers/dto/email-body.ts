import { IsString, MaxLength } from 'class-validator';
import { MAX_EMAIL } from './bounds';

/** POST /resend-verification and POST /password-reset/request. */
export class EmailBody {
  @IsString()
  @MaxLength(MAX_EMAIL)
  email!: string;
}
