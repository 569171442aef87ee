import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_TOKEN } from '../dto/bounds';

/** POST /email-change/confirm: the raw token from the link sent to the new address. */
export class EmailChangeConfirmBody {
  @JSONSchema({ description: 'The `token` parameter of the email-change link.' })
  @MaxLength(MAX_TOKEN)
  @IsString()
  token!: string;
}
