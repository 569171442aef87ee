import { IsString, MaxLength } from 'class-validator';
import { MAX_EMAIL } from './bounds';

/** POST /resend-verification and POST /password-reset/request. */
export class EmailBody {
  @MaxLength(MAX_EMAIL)
  @IsString()
  email!: string;
}
