import { expect } from 'chai';
import { Passkeys } from '../../src/services/passkeys/passkeys';
import type { PasskeyView } from '../../src/services/passkeys/passkey-view';
import { buildAdminApp } from '../http/admin-support';
import { bearer, DRIVERS, PREFIX } from '../support/test-app';
import {
  ASSERTION_RESPONSE,
  CHALLENGE_TOKEN,
  configurePasskeys,
  REGISTRATION_RESPONSE,
  SOME_ID,
} from './http-passkeys-support';

// What the routes make of the core's results, and what they hand it: the JSON of a passkey, the status of each answer,
// the body's response passed on whole. The core is stood in for here (its methods replaced on the prototype), since
// its ceremonies need a browser's authenticator: those are the service's own tests, over the same routes.

const VIEW: PasskeyView = {
  id: SOME_ID,
  name: 'Laptop',
  createdAt: new Date('2026-11-28T06:00:00.000Z'),
  lastUsedAt: null,
  deviceType: 'synced',
};
const VIEW_JSON = {
  id: SOME_ID,
  name: 'Laptop',
  created_at: '2026-11-28T06:00:00.000Z',
  last_used_at: null,
  device_type: 'synced',
};
const OPTIONS = { challenge: 'Y2hhbGxlbmdl', allowCredentials: [], userVerification: 'required' };
const CREATION_OPTIONS = {
  rp: { id: 'localhost', name: 'Gatehouse' },
  user: { id: 'aGFuZGxl', name: 'root', displayName: 'root' },
  challenge: 'Y2hhbGxlbmdl',
  pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  excludeCredentials: [],
  authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  attestation: 'none',
};

type Method = keyof Passkeys;

for (const driver of DRIVERS)
  describe(`passkeys over HTTP: the answers around the core (${driver})`, () => {
    const replaced = new Map<Method, unknown>();
    const calls: { method: Method; args: unknown[] }[] = [];
    /** Stands in for one method of the core, recording its arguments. */
    function stand(method: Method, result: unknown): void {
      if (!replaced.has(method)) replaced.set(method, Passkeys.prototype[method]);
      (Passkeys.prototype as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        calls.push({ method, args });
        return result;
      };
    }
    afterEach(() => {
      for (const [method, original] of replaced)
        (Passkeys.prototype as unknown as Record<string, unknown>)[method] = original;
      replaced.clear();
      calls.length = 0;
    });

    it('answers each route with its status and JSON, and hands the core the body as sent', async () => {
      const { t, admin, rootId } = await buildAdminApp(driver);
      configurePasskeys();
      const token = admin.Authorization.slice('Bearer '.length);
      stand('registrationOptions', CREATION_OPTIONS);
      stand('register', VIEW);
      stand('list', [VIEW, { ...VIEW, lastUsedAt: new Date('2026-11-28T07:00:00.000Z'), deviceType: 'device_bound' }]);
      stand('rename', { ...VIEW, name: 'Phone' });
      stand('remove', undefined);
      stand('signInOptions', OPTIONS);
      stand('signIn', { kind: 'session', token: 'new-session' });
      stand('secondFactorOptions', OPTIONS);
      stand('completeSecondFactor', 'second-session');
      stand('reauthenticationOptions', OPTIONS);
      stand('reauthenticate', undefined);
      stand('listOf', [VIEW]);
      stand('removeOf', undefined);

      const expectAnswer = async (
        request: PromiseLike<{ status: number; body: unknown; text: string }>,
        status: number,
        body?: unknown,
      ) => {
        const response = await request;
        expect(response.status, response.text).to.equal(status);
        if (body !== undefined) expect(response.body).to.deep.equal(body);
        if (status === 204) expect(response.text).to.equal('');
      };
      await expectAnswer(
        t.http.post(`${PREFIX}/passkeys/registration-options`).set(admin).send({}),
        200,
        CREATION_OPTIONS,
      );
      await expectAnswer(
        t.http.post(`${PREFIX}/passkeys`).set(admin).send({ name: 'Laptop', response: REGISTRATION_RESPONSE }),
        201,
        VIEW_JSON,
      );
      await expectAnswer(t.http.get(`${PREFIX}/passkeys`).set(admin), 200, {
        passkeys: [VIEW_JSON, { ...VIEW_JSON, last_used_at: '2026-11-28T07:00:00.000Z', device_type: 'device_bound' }],
      });
      await expectAnswer(t.http.patch(`${PREFIX}/passkeys/${SOME_ID}`).set(admin).send({ name: 'Phone' }), 200, {
        ...VIEW_JSON,
        name: 'Phone',
      });
      await expectAnswer(t.http.delete(`${PREFIX}/passkeys/${SOME_ID}`).set(admin), 204);
      await expectAnswer(t.http.post(`${PREFIX}/passkeys/login-options`).send({}), 200, OPTIONS);
      await expectAnswer(t.http.post(`${PREFIX}/passkeys/login`).send({ response: ASSERTION_RESPONSE }), 200, {
        access_token: 'new-session',
        token_type: 'bearer',
      });
      await expectAnswer(
        t.http.post(`${PREFIX}/passkeys/second-factor-options`).send({ challenge_token: CHALLENGE_TOKEN }),
        200,
        OPTIONS,
      );
      await expectAnswer(
        t.http
          .post(`${PREFIX}/passkeys/second-factor`)
          .send({ challenge_token: CHALLENGE_TOKEN, response: ASSERTION_RESPONSE }),
        200,
        { access_token: 'second-session', token_type: 'bearer' },
      );
      await expectAnswer(t.http.post(`${PREFIX}/passkeys/reauthentication-options`).set(admin).send({}), 200, OPTIONS);
      await expectAnswer(
        t.http.post(`${PREFIX}/passkeys/reauthenticate`).set(admin).send({ response: ASSERTION_RESPONSE }),
        204,
      );
      await expectAnswer(t.http.get(`${PREFIX}/admin/users/${rootId}/passkeys`).set(admin), 200, {
        passkeys: [VIEW_JSON],
      });
      await expectAnswer(t.http.delete(`${PREFIX}/admin/users/${rootId}/passkeys/${SOME_ID}`).set(admin), 204);

      const argsOf = (method: Method) => calls.find((call) => call.method === method)?.args;
      expect(argsOf('register')).to.deep.equal([token, REGISTRATION_RESPONSE, 'Laptop']);
      expect(argsOf('rename')).to.deep.equal([token, SOME_ID, 'Phone']);
      expect(argsOf('remove')).to.deep.equal([token, SOME_ID]);
      // The response goes on whole: the library reads fields a DTO class would strip.
      expect(argsOf('signIn')?.[0]).to.deep.equal(ASSERTION_RESPONSE);
      expect(argsOf('signIn')?.[1]).to.have.keys('ip', 'userAgent');
      expect(argsOf('completeSecondFactor')?.slice(0, 2)).to.deep.equal([CHALLENGE_TOKEN, ASSERTION_RESPONSE]);
      expect(argsOf('reauthenticate')).to.deep.equal([token, ASSERTION_RESPONSE]);
      expect(argsOf('listOf')).to.deep.equal([{ kind: 'admin', user: { id: rootId } }, rootId]);
      expect(argsOf('removeOf')).to.deep.equal([
        { kind: 'admin', user: { id: rootId }, sessionToken: token },
        rootId,
        SOME_ID,
      ]);
    });

    it('answers a passkey sign-in that needs a second factor with the challenge, as POST /login does', async () => {
      const { t } = await buildAdminApp(driver);
      configurePasskeys();
      const expiresAt = new Date('2026-11-28T06:05:00.000Z');
      stand('signIn', { kind: 'challenge', challengeToken: 'challenge', expiresAt, methods: ['totp', 'passkey'] });
      stand('signInOptions', OPTIONS);
      const response = await t.http.post(`${PREFIX}/passkeys/login`).send({ response: ASSERTION_RESPONSE });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({
        second_factor_required: true,
        challenge_token: 'challenge',
        expires_at: expiresAt.toISOString(),
        methods: ['totp', 'passkey'],
      });
      // Not a bearer route: a session sent along changes nothing.
      const other = bearer('x'.repeat(43));
      expect((await t.http.post(`${PREFIX}/passkeys/login-options`).set(other).send({})).status).to.equal(200);
    });
  });
