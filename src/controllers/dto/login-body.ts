import { IsString, MaxLength } from 'class-validator';
import { MAX_PASSWORD, MAX_USERNAME } from './bounds';

/** POST /login */
export class LoginBody {
  @IsString()
  @MaxLength(MAX_USERNAME)
  username!: string;

  @IsString()
  @MaxLength(MAX_PASSWORD)
  password!: string;
}
