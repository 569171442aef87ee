import { IsString, MaxLength } from 'class-validator';
import { MAX_EMAIL, MAX_PASSWORD, MAX_USERNAME } from './bounds';

/** POST /register */
export class RegisterBody {
  @IsString()
  @MaxLength(MAX_USERNAME)
  username!: string;

  @IsString()
  @MaxLength(MAX_EMAIL)
  email!: string;

  @IsString()
  @MaxLength(MAX_PASSWORD)
  password!: string;
}
