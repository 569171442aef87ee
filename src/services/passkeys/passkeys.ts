import { randomUUID } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AccountError, invalidLoginChallenge, invalidSession } from '../../errors/account-error';
import type { AccountContext } from '../account-context';
import { adminParties, authoriseAdmin, authoriseAdminChange } from '../admin-authorisation';
import { ADMIN_PERMISSIONS } from '../admin-permissions';
import type { AdminActor } from '../admin-views';
import { anonymous, self } from '../audit-trail';
import type { OutboxKind } from '../outbox-message';
import { canSend } from '../sender-operations';
import { issueSession } from '../session-issuer';
import type { AuthMethod, SessionClient, SignInResult, StoredUser } from '../types';
import { acceptAssertion, type AcceptedAssertion } from './assertions';
import { newChallenge, spendChallenge, storeChallenge, UNBOUND } from './ceremony-challenges';
import type { PasskeyCeremony, StoredPasskey } from './passkey-records';
import { MAX_PASSKEY_NAME, passkeyView, type PasskeyView } from './passkey-view';
import type { RelyingParty } from './relying-party';
import { webauthnLibrary } from './webauthn-library';

/** The options a browser hands to `navigator.credentials.get`, as `@simplewebauthn/server` makes them (JSON). */
export type PasskeyOptionsJSON = PublicKeyCredentialRequestOptionsJSON;

const notConfigured = () => new AccountError('passkeys_not_configured', 'Passkeys are not configured on this server');
const notFound = () => new AccountError('passkey_not_found', 'No such passkey');
const refusedRegistration = () =>
  new AccountError('invalid_passkey_response', 'The passkey could not be verified; start again');
// One answer for every failed passwordless sign-in, as /login gives one for every wrong password (no enumeration).
const refusedSignIn = () => new AccountError('invalid_credentials', 'The passkey was not accepted');
const refusedFactor = () => new AccountError('invalid_second_factor_code', 'The passkey was not accepted');

const NAME_PATTERN = /^[^\p{Cc}\p{Cf}]+$/u;

/**
 * Passkeys (WebAuthn, `@simplewebauthn/server`): a person adds named passkeys to a signed-in, recently
 * re-authenticated account; a passkey then signs in without a username (counting as two factors when the
 * authenticator verified the person), answers a password sign-in's second-factor challenge, or re-authenticates a
 * session without minting a new one. Every ceremony's challenge is stored hashed and bound (`ceremony-challenges.ts`)
 * so that any instance finishes what another started, and is spent by the first verify. Off without a relying party
 * (`AccountOptions.passkeys`).
 */
export class Passkeys {
  constructor(private readonly core: AccountContext) {}

  // --- Adding and managing ---------------------------------------------------------------------------------------

  /**
   * The options of a registration: a discoverable credential, the account's passkeys excluded (one authenticator
   * holds one passkey of the account), the account's random user handle (never its id or address).
   */
  async registrationOptions(sessionToken: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const rp = this.relyingParty();
    const { user, session } = await this.core.requireRecentSession(sessionToken);
    const passkeys = await this.core.store.passkeys.list(user.id);
    const userHandle = passkeys[0]?.userHandle ?? Buffer.from(newChallenge()).toString('base64url');
    const { generateRegistrationOptions } = await webauthnLibrary();
    const options = await generateRegistrationOptions({
      rpName: rp.rpName,
      rpID: rp.rpId,
      userName: user.username,
      userDisplayName: user.username,
      userID: Buffer.from(userHandle, 'base64url'),
      challenge: newChallenge(),
      timeout: rp.challengeTtlMs,
      attestationType: rp.attestation,
      excludeCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey) })),
      authenticatorSelection: { residentKey: 'required', userVerification: rp.userVerification },
    });
    await storeChallenge(this.core, rp, options.challenge, 'registration', {
      ...UNBOUND,
      userId: user.id,
      sessionId: session.id,
      userHandle,
    });
    return options;
  }

  /**
   * Verifies a registration made from `registrationOptions` by this session, and stores the passkey under `name`.
   * `passkey_already_registered` when its credential id is stored already, for any account.
   */
  async register(sessionToken: string, response: unknown, name: string): Promise<PasskeyView> {
    const rp = this.relyingParty();
    const label = checkedName(name);
    const { user, session } = await this.core.requireRecentSession(sessionToken);
    const spent = await spendChallenge(this.core, response, 'registration');
    const challenge = spent?.stored;
    if (!spent || challenge?.userId !== user.id || challenge.sessionId !== session.id || !challenge.userHandle) {
      await this.refuse('passkey_added', 'invalid_challenge', self(user.id));
      throw refusedRegistration();
    }
    const { verifyRegistrationResponse } = await webauthnLibrary();
    let info;
    try {
      const verification = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: spent.answered,
        expectedOrigin: [...rp.origins],
        expectedRPID: rp.rpId,
        requireUserVerification: rp.userVerification === 'required',
      });
      info = verification.verified ? verification.registrationInfo : undefined;
    } catch {
      info = undefined;
    }
    if (!info) {
      await this.refuse('passkey_added', 'not_verified', self(user.id));
      throw refusedRegistration();
    }
    const now = this.core.clock.now();
    const passkey: StoredPasskey = {
      id: randomUUID(),
      userId: user.id,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      userHandle: challenge.userHandle,
      name: label,
      transports: [...(info.credential.transports ?? [])],
      aaguid: info.aaguid,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
      userVerified: info.userVerified,
      createdAt: now,
      lastUsedAt: null,
    };
    const audit = this.core.audit.event('passkey_added', 'success', self(user.id), { passkeyId: passkey.id });
    const notice = this.notice('passkeyAdded', now);
    const outcome = await this.core.store.transaction(async (tx) => {
      const added = await tx.passkeys.add(passkey);
      if (added !== 'added') return added;
      if (notice) await tx.outbox.add(notice, user);
      await tx.audit.add(audit);
      return added;
    });
    if (outcome === 'gone') throw invalidSession();
    if (outcome === 'duplicate') {
      await this.refuse('passkey_added', 'duplicate', self(user.id));
      throw new AccountError('passkey_already_registered', 'This passkey is registered already');
    }
    this.core.logger.info({ event: 'passkey_added', outcome: 'success', userId: user.id }, 'passkey added');
    this.core.delivery?.nudge();
    return passkeyView(passkey);
  }

  /** The session's account's passkeys, oldest first. */
  async list(sessionToken: string): Promise<PasskeyView[]> {
    this.relyingParty();
    const user = await this.core.requireSessionUser(sessionToken);
    return (await this.core.store.passkeys.list(user.id)).map(passkeyView);
  }

  async rename(sessionToken: string, id: string, name: string): Promise<PasskeyView> {
    this.relyingParty();
    const label = checkedName(name);
    const user = await this.core.requireSessionUser(sessionToken);
    const audit = this.core.audit.event('passkey_renamed', 'success', self(user.id), { passkeyId: id });
    const renamed = await this.core.store.transaction(async (tx) => {
      const passkey = await tx.passkeys.rename(user.id, id, label);
      if (passkey) await tx.audit.add(audit);
      return passkey;
    });
    if (!renamed) throw notFound();
    return passkeyView(renamed);
  }

  /**
   * Removes one of the account's passkeys, after a recent re-authentication (ASVS V7.5.1). Refused
   * (`last_sign_in_method`) when it is the account's last way to sign in (ory/kratos PR #2260). The owner is told by
   * mail, and, when it was the account's last second factor, that two-factor sign-in is now off.
   */
  async remove(sessionToken: string, id: string): Promise<void> {
    this.relyingParty();
    const { user } = await this.core.requireRecentSession(sessionToken);
    await this.removeFrom(user.id, id, true, self(user.id), 'passkey_removed');
  }

  // --- Signing in, the second factor, re-authentication ------------------------------------------------------------

  /** Options for a sign-in without a username: no `allowCredentials`, the authenticator offers its passkeys. */
  async signInOptions(): Promise<PasskeyOptionsJSON> {
    return this.assertionOptions('sign_in', UNBOUND, [], this.relyingParty().userVerification);
  }

  /**
   * A passwordless sign-in: the passkey the response names, its user handle the same account's, verified as
   * `acceptAssertion` says. A session counting as multi-factor (`mfa`) when the person was verified; without
   * verification (allowed only with `userVerification: 'preferred'`) a one-factor session, or a refusal for an account
   * that has a second factor. Every failure, an unknown passkey, a disabled or unverified account alike, is
   * `invalid_credentials`.
   */
  async signIn(response: unknown, client?: SessionClient): Promise<SignInResult> {
    const rp = this.relyingParty();
    const spent = await spendChallenge(this.core, response, 'sign_in');
    const credentialId = credentialIdOf(response);
    const passkey = spent && credentialId ? await this.core.store.passkeys.findByCredentialId(credentialId) : null;
    if (!spent || !passkey) return this.refuseSignIn(null, spent ? 'unknown_passkey' : 'invalid_challenge');
    // Discoverable sign-in names the account twice: the credential and the user handle must agree (WebAuthn §7.2).
    if (userHandleOf(response) !== passkey.userHandle) return this.refuseSignIn(passkey.userId, 'wrong_account');
    const user = await this.core.store.users.findById(passkey.userId);
    if (!user) return this.refuseSignIn(null, 'unknown_passkey');
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const required = rp.userVerification === 'required';
    const accepted = await acceptAssertion(
      this.core,
      rp,
      passkey,
      response as AuthenticationResponseJSON,
      spent.answered,
      required,
    );
    if (typeof accepted === 'string') return this.refuseSignIn(user.id, accepted);
    if (!this.maySignIn(user) || (!accepted.userVerified && (await this.hasOtherFactor(user.id)))) {
      return this.refuseSignIn(user.id, 'refused');
    }
    await this.core.forgetPasswordGuesses(user.usernameKey);
    const token = await issueSession(this.core, {
      userId: user.id,
      methods: methodsOf(accepted),
      credentialEpoch: user.credentialEpoch,
      client,
      audit: this.core.audit.event('login', 'success', self(user.id), { method: 'passkey' }),
    });
    if (token === null) return this.refuseSignIn(user.id, 'refused');
    this.core.logger.info(
      { event: 'login', outcome: 'success', userId: user.id, method: 'passkey' },
      'login succeeded',
    );
    return { kind: 'session', token };
  }

  /** Options to answer a password sign-in's challenge with one of the account's passkeys. */
  async secondFactorOptions(challengeToken: string): Promise<PasskeyOptionsJSON> {
    const rp = this.relyingParty();
    const { user, tokenHash } = await this.core.liveLoginChallenge(challengeToken, { method: 'passkey' });
    const passkeys = await this.core.store.passkeys.list(user.id);
    if (passkeys.length === 0) throw notFound();
    return this.assertionOptions(
      'second_factor',
      { ...UNBOUND, userId: user.id, loginChallengeHash: tokenHash },
      passkeys,
      rp.presenceOnlySecondFactor ? 'preferred' : 'required',
    );
  }

  /**
   * Answers a password sign-in's challenge with a passkey: counted and spent as a code's answer is
   * (`loginChallengeMaxAttempts`, the account's guess budget), then a session of the password and the passkey.
   */
  async completeSecondFactor(challengeToken: string, response: unknown, client?: SessionClient): Promise<string> {
    const rp = this.relyingParty();
    const { user, tokenHash } = await this.core.liveLoginChallenge(challengeToken, { method: 'passkey' });
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const now = this.core.clock.now();
    const challenge = await this.core.store.transaction((tx) =>
      tx.loginChallenges.takeAttempt(tokenHash, now, this.core.options.loginChallengeMaxAttempts),
    );
    if (!challenge) throw await this.core.refuseLoginChallenge(user.id, { method: 'passkey' });
    const accepted = await this.acceptFor(
      user,
      response,
      'second_factor',
      !rp.presenceOnlySecondFactor,
      (bound) => bound.loginChallengeHash === tokenHash,
    );
    if (typeof accepted === 'string') {
      this.core.logger.info(
        { event: 'login_second_factor', outcome: accepted, userId: user.id, method: 'passkey' },
        'second factor refused',
      );
      await this.core.audit.record('login_second_factor', accepted, anonymous(user.id), { method: 'passkey' });
      throw refusedFactor();
    }
    if (user.disabledAt !== null) throw invalidLoginChallenge();
    await this.core.forgetPasswordGuesses(user.usernameKey);
    if (!(await this.core.store.transaction((tx) => tx.loginChallenges.consume(tokenHash))))
      throw invalidLoginChallenge();
    const token = await issueSession(this.core, {
      userId: user.id,
      methods: [challenge.firstFactor, accepted.keyMethod, 'mfa'],
      credentialEpoch: challenge.credentialEpoch,
      client: client ?? { ip: challenge.ip, userAgent: challenge.userAgent },
      audit: this.core.audit.event('login_second_factor', 'success', self(user.id), { method: 'passkey' }),
    });
    if (token === null) throw invalidLoginChallenge();
    this.core.logger.info(
      { event: 'login_second_factor', outcome: 'success', userId: user.id, method: 'passkey' },
      'login succeeded',
    );
    return token;
  }

  /** Options to re-authenticate this session with one of its account's passkeys. */
  async reauthenticationOptions(sessionToken: string): Promise<PasskeyOptionsJSON> {
    this.relyingParty();
    const { user, session } = await this.core.requireLiveSession(sessionToken);
    const passkeys = await this.core.store.passkeys.list(user.id);
    if (passkeys.length === 0) throw notFound();
    // A step-up proves the person, not only a device at hand (talex-touch/tuff #923): verification is required.
    return this.assertionOptions(
      'reauthentication',
      { ...UNBOUND, userId: user.id, sessionId: session.id },
      passkeys,
      'required',
    );
  }

  /**
   * Re-authenticates this session with a passkey that verified the person: the session counts as recently
   * authenticated from now, as after `POST /reauthenticate`; no new session is made (better-auth #8071).
   */
  async reauthenticate(sessionToken: string, response: unknown): Promise<{ authenticatedUntil: Date }> {
    this.relyingParty();
    const { user, session } = await this.core.requireLiveSession(sessionToken);
    await this.core.takePasswordGuess(user.usernameKey, user.id);
    const accepted = await this.acceptFor(
      user,
      response,
      'reauthentication',
      true,
      (bound) => bound.sessionId === session.id,
    );
    if (typeof accepted === 'string') {
      this.core.logger.info({ event: 'reauthenticate', outcome: accepted, userId: user.id }, 'passkey refused');
      await this.core.audit.record('reauthenticate', accepted, self(user.id), { method: 'passkey' });
      throw refusedSignIn();
    }
    await this.core.forgetPasswordGuesses(user.usernameKey);
    const now = this.core.clock.now();
    const audit = this.core.audit.event('reauthenticate', 'success', self(user.id), { method: 'passkey' });
    const marked = await this.core.audited(audit, (tx) =>
      tx.sessions.markAuthenticated(session.tokenHash, user.credentialEpoch, now),
    );
    if (!marked) throw invalidSession();
    this.core.logger.info({ event: 'reauthenticate', outcome: 'success', userId: user.id }, 'passkey confirmed');
    return { authenticatedUntil: new Date(now.getTime() + this.core.options.reauthenticationWindowMs) };
  }

  // --- Administration ----------------------------------------------------------------------------------------------

  /** An administrator's (`gatehouse.users.read`) or the operator's view of a user's passkeys; audited. */
  async listOf(actor: AdminActor, userId: string): Promise<PasskeyView[]> {
    await authoriseAdmin(this.core, actor, ADMIN_PERMISSIONS.readUsers);
    const user = await this.core.store.users.findById(userId);
    if (!user) throw new AccountError('user_not_found', 'No such user');
    const passkeys = await this.core.store.passkeys.list(user.id);
    await this.core.audit.write(
      this.core.audit.event('admin.passkeys_listed', 'success', adminParties(actor, user.id)),
    );
    return passkeys.map(passkeyView);
  }

  /**
   * An administrator's (`gatehouse.users.manage`, with a recent session) or the operator's removal of a user's
   * passkey (a lost or stolen one): allowed even when it was the last way in, since a password reset gives one back.
   */
  async removeOf(actor: AdminActor, userId: string, id: string): Promise<void> {
    await authoriseAdminChange(this.core, actor, ADMIN_PERMISSIONS.manageUsers);
    if (!(await this.core.store.users.findById(userId))) throw new AccountError('user_not_found', 'No such user');
    await this.removeFrom(userId, id, false, adminParties(actor, userId), 'admin.passkey_removed');
  }

  // --- Shared steps ------------------------------------------------------------------------------------------------

  private relyingParty(): RelyingParty {
    const rp = this.core.options.passkeys;
    if (!rp) throw notConfigured();
    return rp;
  }

  private async assertionOptions(
    ceremony: PasskeyCeremony,
    binding: typeof UNBOUND,
    passkeys: readonly StoredPasskey[],
    userVerification: 'required' | 'preferred',
  ): Promise<PasskeyOptionsJSON> {
    const rp = this.relyingParty();
    const { generateAuthenticationOptions } = await webauthnLibrary();
    const options = await generateAuthenticationOptions({
      rpID: rp.rpId,
      challenge: newChallenge(),
      timeout: rp.challengeTtlMs,
      allowCredentials: passkeys.map((passkey) => ({ id: passkey.credentialId, transports: transportsOf(passkey) })),
      userVerification,
    });
    await storeChallenge(this.core, rp, options.challenge, ceremony, binding);
    return options;
  }

  /** Spends the challenge, checks who it was bound to, and accepts an assertion of one of `user`'s passkeys. */
  private async acceptFor(
    user: StoredUser,
    response: unknown,
    ceremony: PasskeyCeremony,
    requireUserVerification: boolean,
    boundHere: (bound: { sessionId: string | null; loginChallengeHash: string | null }) => boolean,
  ): Promise<AcceptedAssertion | string> {
    const rp = this.relyingParty();
    const spent = await spendChallenge(this.core, response, ceremony);
    if (!spent || spent.stored.userId !== user.id || !boundHere(spent.stored)) return 'invalid_challenge';
    const credentialId = credentialIdOf(response);
    const passkey = credentialId ? await this.core.store.passkeys.findByCredentialId(credentialId) : null;
    if (!passkey || passkey.userId !== user.id) return 'unknown_passkey';
    const answer = response as AuthenticationResponseJSON;
    return acceptAssertion(this.core, rp, passkey, answer, spent.answered, requireUserVerification);
  }

  private async removeFrom(
    userId: string,
    id: string,
    keepWayIn: boolean,
    parties: ReturnType<typeof self>,
    type: 'passkey_removed' | 'admin.passkey_removed',
  ): Promise<void> {
    const now = this.core.clock.now();
    const audit = this.core.audit.event(type, 'success', parties, { passkeyId: id });
    const removedNotice = this.notice('passkeyRemoved', now);
    const factorOffNotice = this.notice('secondFactorDisabled', now);
    const wayIn = keepWayIn ? this.core.wayInRule() : null;
    const removal = await this.core.store.transaction(async (tx) => {
      const result = await tx.passkeys.remove(userId, id, now, wayIn);
      if (result.outcome !== 'removed') return result;
      if (removedNotice) await tx.outbox.add(removedNotice, result.user);
      // The last second factor gone: the person is told two-factor sign-in is off, as when they switch it off.
      const factorLeft = (await tx.passkeys.count(userId)) > 0 || (await tx.secondFactors.get(userId))?.enabled;
      if (!factorLeft && factorOffNotice) await tx.outbox.add(factorOffNotice, result.user);
      await tx.audit.add(audit);
      return result;
    });
    if (removal.outcome === 'not_found') throw notFound();
    if (removal.outcome === 'last_way_in') {
      await this.refuse(type, 'last_sign_in_method', parties);
      throw new AccountError('last_sign_in_method', 'This passkey is the only way to sign in to the account');
    }
    this.core.logger.info({ event: type, outcome: 'success', userId, passkeyId: id }, 'passkey removed');
    this.core.delivery?.nudge();
  }

  /** Whether the account may be signed in to at all: told to nobody but as the generic refusal. */
  private maySignIn(user: StoredUser): boolean {
    return user.verified && user.disabledAt === null && !this.core.hasExpired(user, this.core.clock.now());
  }

  /** An authenticator app on: a passkey that did not verify the person is then one factor of two. */
  private async hasOtherFactor(userId: string): Promise<boolean> {
    return (await this.core.store.secondFactors.get(userId))?.enabled === true;
  }

  private async refuseSignIn(userId: string | null, why: string): Promise<never> {
    this.core.logger.info({ event: 'login', outcome: why, userId, method: 'passkey' }, 'login failed');
    await this.core.audit.record('login', why, anonymous(userId), { method: 'passkey' });
    throw refusedSignIn();
  }

  private async refuse(
    type: 'passkey_added' | 'passkey_removed' | 'admin.passkey_removed',
    why: string,
    parties: ReturnType<typeof self>,
  ): Promise<void> {
    this.core.logger.info({ event: type, outcome: why, userId: parties.subjectId }, 'passkey change refused');
    await this.core.audit.record(type, why, parties);
  }

  /** A notice, queued only for a sender that carries its kind. */
  private notice(kind: OutboxKind, now: Date) {
    return canSend(this.core.sender, kind) ? this.core.messages.notice(kind, now) : undefined;
  }
}

/** The methods (RFC 8176) a passwordless sign-in records: the key's, and `mfa` when the person was verified. */
function methodsOf(accepted: AcceptedAssertion): AuthMethod[] {
  return accepted.userVerified ? [accepted.keyMethod, 'mfa'] : [accepted.keyMethod];
}

function checkedName(name: string): string {
  const label = typeof name === 'string' ? name.trim() : '';
  if (label.length === 0 || label.length > MAX_PASSKEY_NAME || !NAME_PATTERN.test(label)) {
    throw new AccountError(
      'account_error',
      `A passkey's name is 1 to ${MAX_PASSKEY_NAME} characters, without control characters`,
    );
  }
  return label;
}

function credentialIdOf(response: unknown): string | null {
  const id = (response as { id?: unknown } | null)?.id;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{16,1400}$/.test(id) ? id : null;
}

function userHandleOf(response: unknown): string | null {
  const handle = (response as { response?: { userHandle?: unknown } } | null)?.response?.userHandle;
  return typeof handle === 'string' ? handle : null;
}

function transportsOf(passkey: StoredPasskey): AuthenticatorTransport[] {
  return passkey.transports as AuthenticatorTransport[];
}
