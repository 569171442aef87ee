import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_ACCESS_NAME } from './bounds';

/** POST /admin/roles, POST /admin/permissions */
export class NameBody {
  @JSONSchema({
    description:
      '1 to 64 letters, digits, `_`, `.`, `:` or `-`, starting with a letter or digit (e.g. `editor`, `posts.write`).',
  })
  @MaxLength(MAX_ACCESS_NAME)
  @IsString()
  name!: string;
}
