import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_OIDC_CODE, MAX_RETURN_URL } from '../dto/bounds';

const RETURN_TO =
  'Where the flow ends: one of the deployer’s allowed return URLs, exactly (`return_url_not_allowed` otherwise). ' +
  'Default: the first of them (the hosted `/oidc/return` page unless configured).';

/** `GET /oidc/:provider/start?return_to=`: where the browser goes back to with the one-time code. */
export class OidcStartQuery {
  @JSONSchema({ description: RETURN_TO, maxLength: MAX_RETURN_URL })
  @MaxLength(MAX_RETURN_URL)
  @IsString()
  @IsOptional()
  return_to?: string;
}

/** `POST /oidc/:provider/link`. */
export class OidcLinkBody {
  @JSONSchema({ description: RETURN_TO, maxLength: MAX_RETURN_URL })
  @MaxLength(MAX_RETURN_URL)
  @IsString()
  @IsOptional()
  return_to?: string;
}

/** `POST /oidc/exchange`: the one-time code the callback put in the return URL's fragment. */
export class OidcExchangeBody {
  @JSONSchema({
    description: 'The `code` of the return URL’s fragment (`#code=...`): single use, valid for a minute.',
    minLength: 1,
    maxLength: MAX_OIDC_CODE,
  })
  @MaxLength(MAX_OIDC_CODE)
  @MinLength(1)
  @IsString()
  code!: string;
}
