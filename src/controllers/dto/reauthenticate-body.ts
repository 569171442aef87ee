import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSWORD } from './bounds';

/** POST /reauthenticate */
export class ReauthenticateBody {
  @JSONSchema({ description: 'The current password, proved again on this session.' })
  @MaxLength(MAX_PASSWORD)
  @IsString()
  password!: string;
}
