import { IsString, MaxLength } from 'class-validator';
import { MAX_EMAIL, MAX_PASSWORD, MAX_USERNAME } from './bounds';

/** POST /register */
export class RegisterBody {
  @MaxLength(MAX_USERNAME)
  @IsString()
  username!: string;

  @MaxLength(MAX_EMAIL)
  @IsString()
  email!: string;

  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
