import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { MAX_PASSKEY_NAME, MAX_TOKEN } from '../dto/bounds';
import { IsWebAuthnResponse, WEBAUTHN_RESPONSE_SCHEMA } from './webauthn-response';

/**
 * Some text that is not blank and has no control characters (nor the line and paragraph separators): a name is shown
 * in lists, notices and the CLI's table, where a newline or an escape sequence would rewrite what is around it.
 */
const PASSKEY_NAME = /^(?=.*\S)[^\p{Cc}\u2028\u2029]+$/u;
// The same set for the API document, spelled without `\p{}`, which not every JSON Schema validator reads (Cc is
// U+0000 to U+001F and U+007F to U+009F).
const PASSKEY_NAME_PATTERN = '^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029]+$';

const NAME_SCHEMA = {
  pattern: PASSKEY_NAME_PATTERN,
  minLength: 1,
  maxLength: MAX_PASSKEY_NAME,
  description: `A name to tell it apart (“Work laptop”): 1 to ${MAX_PASSKEY_NAME} characters, not blank, no control characters.`,
};

/** `name`, as the two bodies that carry it check it. */
function PasskeyName(): PropertyDecorator {
  return (target, property) => {
    // In the order a stack of decorators is applied (bottom-up), which is the order they are checked in, stopping
    // at the first failure: a wrong type is reported as a wrong type.
    for (const decorate of [
      JSONSchema(NAME_SCHEMA),
      IsString(),
      MinLength(1),
      MaxLength(MAX_PASSKEY_NAME),
      Matches(PASSKEY_NAME, { message: 'name must not be blank or hold control characters' }),
    ])
      decorate(target, String(property));
  };
}

// A function, so the schema replaces what the generator makes of the property's type (a `$ref` to `Object`).
const RESPONSE = (what: string) => () => ({ ...WEBAUTHN_RESPONSE_SCHEMA, description: what });

/** POST /passkeys: the new passkey's name and the browser's answer to `POST /passkeys/registration-options`. */
export class PasskeyRegistrationBody {
  @PasskeyName()
  name!: string;

  @JSONSchema(
    RESPONSE(
      'The `RegistrationResponseJSON` that `@simplewebauthn/browser`’s `startRegistration()` (or the credential’s ' +
        '`toJSON()`) returns for the options of `POST /passkeys/registration-options`.',
    ),
  )
  @IsWebAuthnResponse()
  response!: Record<string, unknown>;
}

/** PATCH /passkeys/:id */
export class PasskeyNameBody {
  @PasskeyName()
  name!: string;
}

/** POST /passkeys/login, POST /passkeys/reauthenticate: an assertion for the options the route's `-options` gave. */
export class PasskeyAssertionBody {
  @JSONSchema(
    RESPONSE(
      'The `AuthenticationResponseJSON` that `@simplewebauthn/browser`’s `startAuthentication()` (or the ' +
        'credential’s `toJSON()`) returns for the options the matching `-options` route answered.',
    ),
  )
  @IsWebAuthnResponse()
  response!: Record<string, unknown>;
}

/** POST /passkeys/second-factor-options: the challenge a sign-in answered `second_factor_required` with. */
export class PasskeyChallengeBody {
  @JSONSchema({ description: 'The `challenge_token` that `POST /login` answered.' })
  @MaxLength(MAX_TOKEN)
  @IsString()
  challenge_token!: string;
}

/** POST /passkeys/second-factor: that challenge, answered with an assertion of one of the account's passkeys. */
export class PasskeySecondFactorBody extends PasskeyChallengeBody {
  @JSONSchema(
    RESPONSE(
      'The `AuthenticationResponseJSON` for the options of `POST /passkeys/second-factor-options` (same ' +
        '`challenge_token`).',
    ),
  )
  @IsWebAuthnResponse()
  response!: Record<string, unknown>;
}
