import {
  registerDecorator,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidationOptions,
  type ValidatorConstraintInterface,
} from 'class-validator';
import type { JSONSchema } from 'class-validator-jsonschema';
import { MAX_CREDENTIAL_ID, MAX_WEBAUTHN_RESPONSE_JSON } from '../dto/bounds';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A schema `@JSONSchema()` takes, as an object (the decorator also takes a function). */
type ObjectSchema = Exclude<Parameters<typeof JSONSchema>[0], (...args: never[]) => unknown>;

/**
 * The schema the API document gives a WebAuthn response: the fields this layer checks, the rest left open. The
 * library (`@simplewebauthn/server`) verifies every field; the document only says what the browser library sends.
 */
export const WEBAUTHN_RESPONSE_SCHEMA: ObjectSchema = {
  type: 'object',
  required: ['id', 'rawId', 'type', 'response'],
  additionalProperties: true,
  properties: {
    id: { type: 'string', pattern: BASE64URL.source, maxLength: MAX_CREDENTIAL_ID },
    rawId: { type: 'string', pattern: BASE64URL.source, maxLength: MAX_CREDENTIAL_ID },
    type: { type: 'string', enum: ['public-key'] },
    response: {
      type: 'object',
      additionalProperties: true,
      description:
        '`clientDataJSON` and `attestationObject` (registration) or `authenticatorData` and `signature` ' +
        '(an assertion), base64url, as the browser made them.',
    },
    clientExtensionResults: { type: 'object', additionalProperties: true },
    authenticatorAttachment: { type: 'string' },
  },
};

/**
 * Why `value` is not a WebAuthn response as the browser's `toJSON()` or `@simplewebauthn/browser` makes it, or null.
 * Only the outline is checked here (a plain object, the credential id in base64url within its bound, the type, a
 * nested `response` object, a bounded size): what the fields mean is the library's to verify, and a response that
 * passes here but not there is the core's answer (`invalid_passkey_response`, `invalid_credentials`), never a 500.
 * The object is handed on whole: the library reads fields (`clientExtensionResults`, `transports`...) that a DTO
 * class would strip.
 */
export function webAuthnResponseProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'response must be an object';
  const size = jsonSize(value);
  if (size === null || size > MAX_WEBAUTHN_RESPONSE_JSON) {
    return `response must be at most ${MAX_WEBAUTHN_RESPONSE_JSON} characters of JSON`;
  }
  for (const field of ['id', 'rawId'] as const) {
    const id = value[field];
    if (typeof id !== 'string' || id.length > MAX_CREDENTIAL_ID || !BASE64URL.test(id)) {
      return `response.${field} must be base64url of at most ${MAX_CREDENTIAL_ID} characters`;
    }
  }
  if (value.type !== 'public-key') return 'response.type must be "public-key"';
  if (!isPlainObject(value.response)) return 'response.response must be an object';
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The length of its JSON; null when it has none (a nesting too deep to write out). */
function jsonSize(value: object): number | null {
  try {
    return JSON.stringify(value).length;
  } catch {
    return null;
  }
}

@ValidatorConstraint({ name: 'webAuthnResponse' })
class WebAuthnResponseConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return webAuthnResponseProblem(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    return webAuthnResponseProblem(args.value) ?? 'response must be a WebAuthn response';
  }
}

/** The property is a WebAuthn response's JSON, as `webAuthnResponseProblem` outlines it. */
export function IsWebAuthnResponse(options?: ValidationOptions): PropertyDecorator {
  return (object, propertyName) =>
    registerDecorator({
      target: object.constructor,
      propertyName: String(propertyName),
      options,
      validator: WebAuthnResponseConstraint,
    });
}
