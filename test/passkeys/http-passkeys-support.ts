import { Container } from 'typedi';
import type { Response, Test } from 'supertest';
import { ACCOUNT_OPTIONS } from '../../src/di/tokens';
import type { PasskeyOptions } from '../../src/services/passkeys/relying-party';
import { PREFIX, type TestApp } from '../support/test-app';

/** The relying party of the HTTP tests: a page on localhost (plain http is allowed on loopback only). */
export const TEST_PASSKEYS: PasskeyOptions = { rpId: 'localhost', origins: ['http://localhost:3000'] };

/**
 * Turns passkeys on for the app's routes: the routes resolve the core per request from the container, so setting
 * the options token again builds a core with the relying party from the next request on.
 */
export function configurePasskeys(options: PasskeyOptions = TEST_PASSKEYS): void {
  Container.set(ACCOUNT_OPTIONS, { ...Container.get(ACCOUNT_OPTIONS), passkeys: options });
}

/** base64url of `text`. */
const b64url = (text: string) => Buffer.from(text).toString('base64url');

/** A registration response of the right outline (it verifies nothing: the tests here never reach the library). */
export const REGISTRATION_RESPONSE = {
  id: b64url('credential-1'),
  rawId: b64url('credential-1'),
  type: 'public-key',
  response: { clientDataJSON: b64url('{}'), attestationObject: b64url('attestation'), transports: ['internal'] },
  clientExtensionResults: {},
  authenticatorAttachment: 'platform',
};

/** An assertion of the right outline. */
export const ASSERTION_RESPONSE = {
  id: b64url('credential-1'),
  rawId: b64url('credential-1'),
  type: 'public-key',
  response: { clientDataJSON: b64url('{}'), authenticatorData: b64url('data'), signature: b64url('sig') },
  clientExtensionResults: {},
};

export const SOME_ID = '00000000-0000-4000-8000-000000000000';
export const CHALLENGE_TOKEN = 'x'.repeat(43);

/** One passkey route: how to send it a well-formed request, and whether it reads a session. */
export interface PasskeyRoute {
  name: string;
  bearer: boolean;
  send(t: TestApp, headers: Record<string, string>): Test;
}

const post = (path: string, body: object, bearer = true): PasskeyRoute => ({
  name: `POST ${path}`,
  bearer,
  send: (t, headers) => t.http.post(`${PREFIX}${path}`).set(headers).send(body),
});

/** Every route of the passkeys (the person's and the administrators'), each with a well-formed request. */
export function passkeyRoutes(userId: string = SOME_ID): PasskeyRoute[] {
  return [
    post('/passkeys/registration-options', {}),
    post('/passkeys', { name: 'Laptop', response: REGISTRATION_RESPONSE }),
    { name: 'GET /passkeys', bearer: true, send: (t, h) => t.http.get(`${PREFIX}/passkeys`).set(h) },
    {
      name: 'PATCH /passkeys/:id',
      bearer: true,
      send: (t, h) => t.http.patch(`${PREFIX}/passkeys/${SOME_ID}`).set(h).send({ name: 'Phone' }),
    },
    {
      name: 'DELETE /passkeys/:id',
      bearer: true,
      send: (t, h) => t.http.delete(`${PREFIX}/passkeys/${SOME_ID}`).set(h),
    },
    post('/passkeys/login-options', {}, false),
    post('/passkeys/login', { response: ASSERTION_RESPONSE }, false),
    post('/passkeys/second-factor-options', { challenge_token: CHALLENGE_TOKEN }, false),
    post('/passkeys/second-factor', { challenge_token: CHALLENGE_TOKEN, response: ASSERTION_RESPONSE }, false),
    post('/passkeys/reauthentication-options', {}),
    post('/passkeys/reauthenticate', { response: ASSERTION_RESPONSE }),
    {
      name: 'GET /admin/users/:id/passkeys',
      bearer: true,
      send: (t, h) => t.http.get(`${PREFIX}/admin/users/${userId}/passkeys`).set(h),
    },
    {
      name: 'DELETE /admin/users/:id/passkeys/:passkeyId',
      bearer: true,
      send: (t, h) => t.http.delete(`${PREFIX}/admin/users/${userId}/passkeys/${SOME_ID}`).set(h),
    },
  ];
}

/** The code of an error answer. */
export const codeOf = (response: Response): unknown => (response.body as { detail?: { code?: unknown } }).detail?.code;
