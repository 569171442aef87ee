import { IsString, MaxLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ACCESS_NAME_SCHEMA } from '../../openapi/administration/admin-schemas';
import { MAX_ACCESS_NAME } from '../dto/bounds';

/** POST /admin/roles, POST /admin/permissions */
export class NameBody {
  // The core's rule as a schema: a name outside it is 400 `invalid_role` / `invalid_permission`.
  @JSONSchema({
    ...ACCESS_NAME_SCHEMA,
    description:
      '1 to 64 letters, digits, `_`, `.`, `:` or `-`, starting with a letter or digit (e.g. `editor`, `posts.write`).',
  })
  @MaxLength(MAX_ACCESS_NAME)
  @IsString()
  name!: string;
}
