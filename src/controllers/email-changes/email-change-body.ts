import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_EMAIL } from '../dto/bounds';
import { OptionalField } from '../dto/optional-field';

/** POST /email-change */
export class EmailChangeBody {
  @JSONSchema({ description: 'The address to change to; it gets the link that makes the change.' })
  @MaxLength(MAX_EMAIL)
  @IsString()
  new_email!: string;

  @JSONSchema({ description: 'End every other session when the change is made. Default true.' })
  @IsBoolean()
  @OptionalField()
  end_other_sessions?: boolean;
}
