import { Body, Delete, Get, HttpCode, JsonController, OnUndefined, Patch, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { PasskeyIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { SessionClientInfo } from '../../guards/session-client';
import { rateLimit } from '../../http/rate-limit';
import { loginAnswer } from '../../http/second-factor-answer';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import type { SessionClient } from '../../services/types';
import { PLAIN_ANSWER } from '../plain-answer';
import { passkeyAnswer, passkeyListAnswer, requirePasskeys } from './passkey-answer';
import {
  PasskeyAssertionBody,
  PasskeyChallengeBody,
  PasskeyNameBody,
  PasskeyRegistrationBody,
  PasskeySecondFactorBody,
} from './passkey-bodies';

const PASSKEY_ID = { id: 'The passkey’s `id`, as `GET /passkeys` lists it.' };

/**
 * Passkeys (WebAuthn): a signed-in person adds, lists, renames and removes theirs; anyone signs in with one, without
 * a username; a sign-in's second-factor challenge and a session's re-authentication are answered with one. Each
 * ceremony is two requests: its `-options` route answers the options (with a single-use challenge kept by the core,
 * so any instance can finish it), the browser's answer to them goes to the route itself. Every route is 404
 * `passkeys_not_configured` on a server without a relying party.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class PasskeysController {
  // The routes of fixed paths come before `/passkeys/:id`, so the document lists them first and a reader matching
  // paths in order (as the contract check does) does not take `login` for an id.
  @Post('/passkeys/registration-options', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start adding a passkey',
    description:
      'Needs the session proved recently (`POST /reauthenticate`, or `POST /passkeys/reauthenticate`). Answers the ' +
      'WebAuthn creation options: a discoverable credential, the account’s passkeys in `excludeCredentials`, user ' +
      'verification as configured. Hand them to the browser, then send its answer to `POST /passkeys`.',
    response: 'PasskeyCreationOptions',
    errors: ['passkeys_not_configured', 'reauthentication_required'],
    bearer: true,
  })
  @UseBefore(rateLimit('passkeys.ip'))
  async passkeyRegistrationOptions(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    requirePasskeys();
    return accounts.passkeys.registrationOptions(token);
  }

  @Post('/passkeys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Add a passkey',
    description:
      'Needs the session proved recently. Verifies the browser’s answer to `POST /passkeys/registration-options` ' +
      '(its challenge works once, on any instance, and dies after a few minutes), stores the passkey under `name` ' +
      'and mails the owner a notice. A credential already registered, to this account or another, is 409 ' +
      '`passkey_already_registered`.',
    response: 'Passkey',
    errors: [
      'passkeys_not_configured',
      'reauthentication_required',
      'invalid_passkey_response',
      'passkey_already_registered',
    ],
    bearer: true,
  })
  @HttpCode(201)
  @UseBefore(rateLimit('passkeys.ip'))
  async registerPasskey(
    @BearerToken() token: string,
    @Body() body: PasskeyRegistrationBody,
    @Accounts() accounts: AccountService,
  ) {
    requirePasskeys();
    return passkeyAnswer(await accounts.passkeys.register(token, body.response, body.name));
  }

  @Get('/passkeys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List your passkeys',
    description:
      'The passkeys of the signed-in account: id, name, when added and last used, synced or bound to one device. ' +
      'Never a public key, credential id or user handle.',
    response: 'PasskeyList',
    errors: ['passkeys_not_configured'],
    bearer: true,
  })
  @UseBefore(rateLimit('passkeys.ip'))
  async listPasskeys(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    requirePasskeys();
    return passkeyListAnswer(await accounts.passkeys.list(token));
  }

  @Post('/passkeys/login-options', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start signing in with a passkey',
    description:
      'No username: answers WebAuthn request options with an empty `allowCredentials`, so the browser offers the ' +
      'passkeys it holds for this site (also as autofill, conditional mediation). Send its answer to ' +
      '`POST /passkeys/login`.',
    response: 'PasskeyRequestOptions',
    errors: ['passkeys_not_configured'],
  })
  // Not the sign-in's budget: the hosted sign-in page asks for options on every load (for autofill), and loading a
  // page is no guess. The answer proves nothing; `POST /passkeys/login` spends `login.ip`.
  @UseBefore(rateLimit('passkeys.ip'))
  async passkeySignInOptions(@Accounts() accounts: AccountService) {
    requirePasskeys();
    return accounts.passkeys.signInOptions();
  }

  @Post('/passkeys/login', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Sign in with a passkey',
    description:
      'Answers as `POST /login` does, with a session. A passkey that did not verify the person (accepted only when ' +
      'the deployer set user verification to preferred) gives a one-factor session, and none on an account with ' +
      'an authenticator app on. An unknown passkey, a wrong signature, a used or expired ' +
      'challenge, a disabled account and an unverified address all get the same `invalid_credentials`. A session ' +
      'made by a passkey that verified the person (PIN, biometrics) counts as multi-factor.',
    response: 'LoginAnswer',
    errors: ['passkeys_not_configured', 'invalid_credentials'],
  })
  @UseBefore(rateLimit('login.ip'))
  async passkeySignIn(
    @Body() body: PasskeyAssertionBody,
    @SessionClientInfo() client: SessionClient,
    @Accounts() accounts: AccountService,
  ) {
    requirePasskeys();
    // Recorded on the session for its owner's list of sessions: display only, never a check.
    return loginAnswer(await accounts.passkeys.signIn(body.response, client));
  }

  @Post('/passkeys/second-factor-options', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start answering the second-factor challenge with a passkey',
    description:
      'For a sign-in that answered `second_factor_required` with `passkey` among its `methods`: WebAuthn request ' +
      'options that allow the account’s passkeys. Send the browser’s answer to `POST /passkeys/second-factor`.',
    response: 'PasskeyRequestOptions',
    errors: ['passkeys_not_configured', 'invalid_login_challenge'],
  })
  @UseBefore(rateLimit('second-factor.ip'))
  async passkeySecondFactorOptions(@Body() body: PasskeyChallengeBody, @Accounts() accounts: AccountService) {
    requirePasskeys();
    return accounts.passkeys.secondFactorOptions(body.challenge_token);
  }

  @Post('/passkeys/second-factor', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Answer the second-factor challenge with a passkey',
    description:
      'Completes the sign-in with an assertion of one of the account’s passkeys for the options of ' +
      '`POST /passkeys/second-factor-options`. A presence-only assertion (no user verification) counts only where ' +
      'the deployer allows it. A refused assertion counts against the account like a wrong code.',
    response: 'AccessToken',
    errors: ['passkeys_not_configured', 'invalid_second_factor_code', 'invalid_login_challenge'],
  })
  @UseBefore(rateLimit('second-factor.ip'))
  async completePasskeySecondFactor(
    @Body() body: PasskeySecondFactorBody,
    @SessionClientInfo() client: SessionClient,
    @Accounts() accounts: AccountService,
  ) {
    requirePasskeys();
    const token = await accounts.passkeys.completeSecondFactor(body.challenge_token, body.response, client);
    return { access_token: token, token_type: 'bearer' };
  }

  @Post('/passkeys/reauthentication-options', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start confirming it is you with a passkey',
    description:
      'WebAuthn request options allowing the account’s passkeys, for `POST /passkeys/reauthenticate`: the ' +
      'passkey way of `POST /reauthenticate`.',
    response: 'PasskeyRequestOptions',
    errors: ['passkeys_not_configured'],
    bearer: true,
  })
  @UseBefore(rateLimit('reauthenticate.ip'))
  async passkeyReauthenticationOptions(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    requirePasskeys();
    return accounts.passkeys.reauthenticationOptions(token);
  }

  @Post('/passkeys/reauthenticate', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Confirm it is you with a passkey',
    description:
      'Proves the session again with an assertion of one of the account’s passkeys (user verification as ' +
      'configured): this session, not a new one, counts as recently authenticated for the re-authentication ' +
      'window. A refused assertion is `invalid_credentials` and leaves the session as it was.',
    response: null,
    errors: ['passkeys_not_configured', 'invalid_credentials'],
    bearer: true,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('reauthenticate.ip'))
  async reauthenticateWithPasskey(
    @BearerToken() token: string,
    @Body() body: PasskeyAssertionBody,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    requirePasskeys();
    await accounts.passkeys.reauthenticate(token, body.response);
  }

  @Patch('/passkeys/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Rename a passkey',
    description: 'Gives one of your passkeys a new name. An id that is not one of yours is `passkey_not_found`.',
    response: 'Passkey',
    errors: ['passkeys_not_configured', 'passkey_not_found'],
    bearer: true,
    pathParameters: PASSKEY_ID,
  })
  @UseBefore(rateLimit('passkeys.ip'))
  async renamePasskey(
    @BearerToken() token: string,
    @PasskeyIdParam() id: string,
    @Body() body: PasskeyNameBody,
    @Accounts() accounts: AccountService,
  ) {
    requirePasskeys();
    return passkeyAnswer(await accounts.passkeys.rename(token, id, body.name));
  }

  @Delete('/passkeys/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Remove a passkey',
    description:
      'Needs the session proved recently. The passkey no longer signs in, and the owner is told by email. Removing ' +
      'the account’s last way to sign in (no password, no other passkey) is 409 `last_sign_in_method`. An id that ' +
      'is not one of yours is `passkey_not_found`.',
    response: null,
    errors: ['passkeys_not_configured', 'reauthentication_required', 'passkey_not_found', 'last_sign_in_method'],
    bearer: true,
    pathParameters: PASSKEY_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('passkeys.ip'))
  async removePasskey(
    @BearerToken() token: string,
    @PasskeyIdParam() id: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    requirePasskeys();
    await accounts.passkeys.remove(token, id);
  }
}
