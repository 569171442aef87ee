import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD, MAX_USERNAME } from './bounds';

/** POST /login */
export class LoginBody {
  @MaxLength(MAX_USERNAME)
  @IsString()
  username!: string;

  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
