import { expect } from 'chai';
import { requireChromium } from '../browser/chromium';
import { base64url, WebAuthnHarness } from '../support/virtual-authenticator';

/**
 * The harness on its own, checked by @simplewebauthn/server rather than by Gatehouse: if these pass, a failing
 * passkey test points at Gatehouse, not at the harness.
 */
describe('test harness: WebAuthn ceremonies through Chromium’s virtual authenticator', function () {
  this.timeout(60_000);
  let harness: WebAuthnHarness;
  let other: WebAuthnHarness | undefined;
  // The server library is ESM-first and heavy; load it the way Gatehouse does, only here.
  let server: typeof import('@simplewebauthn/server');

  before(async function () {
    requireChromium(this);
    server = await import('@simplewebauthn/server');
    harness = await WebAuthnHarness.start();
  });

  after(async () => {
    await other?.close();
    await harness?.close();
  });

  /** The message of the error the promise rejects with (chai has no promise assertions here). */
  async function rejection(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (error) {
      return String((error as Error).message);
    }
    throw new Error('expected a rejection');
  }

  const userID = new Uint8Array(Buffer.from('a random user handle, 32 bytes!'));

  async function register() {
    const options = await server.generateRegistrationOptions({
      rpName: 'Gatehouse test',
      rpID: 'localhost',
      userName: 'alice',
      userID,
      attestationType: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    const response = await harness.create(options);
    const verified = await server.verifyRegistrationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: harness.origin,
      expectedRPID: 'localhost',
      requireUserVerification: true,
    });
    return { response, verified };
  }

  it('makes a registration response that the server library verifies', async () => {
    const { response, verified } = await register();
    expect(response.type).to.equal('public-key');
    expect(response.id).to.equal(response.rawId);
    expect(response.response.clientDataJSON).to.match(/^[A-Za-z0-9_-]+$/);
    expect(response.response.attestationObject).to.match(/^[A-Za-z0-9_-]+$/);
    expect(response.response.transports).to.include('internal');
    expect(verified.verified).to.equal(true);
    expect(verified.registrationInfo!.credential.id).to.equal(response.id);
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString());
    expect(clientData).to.include({ type: 'webauthn.create', origin: harness.origin });

    const [credential] = await harness.credentials();
    expect(base64url(credential.credentialId)).to.equal(response.id);
    expect(credential.isResidentCredential).to.equal(true);
    expect(credential.rpId).to.equal('localhost');
    expect(Buffer.from(credential.userHandle!, 'base64')).to.deep.equal(Buffer.from(userID));
  });

  it('makes discoverable and user-verified assertions, presence-only ones on demand, and restores a clone', async () => {
    await harness.newAuthenticator();
    const { verified } = await register();
    const credential = verified.registrationInfo!.credential;
    let counter = credential.counter;

    const assert = async (requireUserVerification: boolean, allow: boolean) => {
      const options = await server.generateAuthenticationOptions({
        rpID: 'localhost',
        userVerification: requireUserVerification ? 'required' : 'preferred',
        allowCredentials: allow ? [{ id: credential.id, transports: credential.transports }] : [],
      });
      const response = await harness.get(options);
      const result = await server.verifyAuthenticationResponse({
        response,
        expectedChallenge: options.challenge,
        expectedOrigin: harness.origin,
        expectedRPID: 'localhost',
        credential: { ...credential, counter },
        requireUserVerification,
      });
      return { response, result };
    };

    // Discoverable (no allowCredentials): the user handle comes back, as passwordless sign-in needs.
    const saved = (await harness.credentials())[0];
    const first = await assert(true, false);
    expect(first.result.verified).to.equal(true);
    expect(first.result.authenticationInfo.userVerified).to.equal(true);
    expect(first.response.response.userHandle).to.equal(Buffer.from(userID).toString('base64url'));
    expect(first.result.authenticationInfo.newCounter).to.be.greaterThan(counter);
    counter = first.result.authenticationInfo.newCounter;

    // Presence only: a client that asks for no verification (the options rewritten to 'discouraged') gets an
    // assertion with the UV flag clear, which a server that requires UV must refuse whatever it asked for.
    const again = await server.generateAuthenticationOptions({ rpID: 'localhost', userVerification: 'required' });
    const stripped = await harness.get({ ...again, userVerification: 'discouraged' });
    expect(Buffer.from(stripped.response.authenticatorData, 'base64url')[32] & 0x04, 'UV flag').to.equal(0);
    expect(
      await rejection(
        server.verifyAuthenticationResponse({
          response: stripped,
          expectedChallenge: again.challenge,
          expectedOrigin: harness.origin,
          expectedRPID: 'localhost',
          credential: { ...credential, counter },
          requireUserVerification: true,
        }),
      ),
    ).to.match(/user could not be verified/i);
    const presenceOnly = await server.verifyAuthenticationResponse({
      response: stripped,
      expectedChallenge: again.challenge,
      expectedOrigin: harness.origin,
      expectedRPID: 'localhost',
      credential: { ...credential, counter },
      requireUserVerification: false,
    });
    expect(presenceOnly.authenticationInfo.userVerified).to.equal(false);
    counter = presenceOnly.authenticationInfo.newCounter;

    // A person who fails verification: the ceremony itself fails when the server asks for UV.
    await harness.setUserVerified(false);
    const failing = await server.generateAuthenticationOptions({ rpID: 'localhost', userVerification: 'required' });
    expect(await rejection(harness.get({ ...failing, timeout: 3_000 }))).to.match(/NotAllowedError/);
    await harness.setUserVerified(true);

    // The credential as it was before those assertions: its counter is behind the server's, as a clone's would be.
    await harness.newAuthenticator();
    await harness.addCredential(saved);
    const clone = await harness.credentials();
    expect(clone[0].signCount).to.equal(saved.signCount);
    expect(await rejection(assert(true, true))).to.match(/counter/i);
  });

  it('runs a page on another origin with the same RP ID', async () => {
    other = await WebAuthnHarness.start({ browser: harness.page.context() });
    expect(other.origin).to.not.equal(harness.origin);
    const options = await server.generateRegistrationOptions({
      rpName: 'Gatehouse test',
      rpID: 'localhost',
      userName: 'bob',
      attestationType: 'none',
    });
    const response = await other.create(options);
    expect(
      await rejection(
        server.verifyRegistrationResponse({
          response,
          expectedChallenge: options.challenge,
          expectedOrigin: harness.origin,
          expectedRPID: 'localhost',
        }),
      ),
    ).to.match(/origin/i);
    await other.close();
    other = undefined;

    // And back on the first origin, by its origin alone: the same RP, so the server library accepts it.
    other = await WebAuthnHarness.start({ browser: harness.page.context(), origin: harness.origin });
    expect(other.origin).to.equal(harness.origin);
    expect(other.page.url()).to.equal(`${harness.origin}/webauthn-test-harness`);
    const again = await server.generateRegistrationOptions({
      rpName: 'Gatehouse test',
      rpID: 'localhost',
      userName: 'bob',
    });
    const accepted = await server.verifyRegistrationResponse({
      response: await other.create(again),
      expectedChallenge: again.challenge,
      expectedOrigin: harness.origin,
      expectedRPID: 'localhost',
      requireUserVerification: false,
    });
    expect(accepted.verified).to.equal(true);
    await other.close();
    other = undefined;
  });
});
