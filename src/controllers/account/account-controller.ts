import { Body, Delete, Get, HttpCode, JsonController, Post, UseBefore } from 'routing-controllers';
import { instanceToPlain } from 'class-transformer';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { resolveAccountService, resolveSerializer } from '../../di/resolve';
import { invalidSession } from '../../errors/account-error';
import { BearerToken } from '../../guards/bearer-token';
import { Accounts } from '../../guards/request-accounts';
import { SessionClientInfo } from '../../guards/session-client';
import { hashingCapacity } from '../../http/hashing-capacity';
import { rateLimit } from '../../http/rate-limit';
import { loginAnswer } from '../../http/second-factor-answer';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { whenReady } from '../../services/awaitable';
import type { SessionClient } from '../../services/types';
import { EmailBody } from './email-body';
import { LoginBody } from './login-body';
import { PasswordBody } from './password-body';
import { PasswordChangeBody } from './password-change-body';
import { PasswordResetConfirmBody } from './password-reset-confirm-body';
import { RegisterBody } from './register-body';
import { TokenBody } from './token-body';
import { done, PLAIN_ANSWER } from '../plain-answer';

function isPlain(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The account routes of spec section 4. Each action is one call to the account core; bodies are validated by
 * their DTOs before it, and failures are rendered by `gatehouseHttp()`'s error middleware.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class AccountController {
  @Post('/register', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Register an account',
    description:
      'Stores an unverified registration and emails it a verification link that names its username. The ' +
      'registration is a claim on the address until that link is confirmed: the first registration of the address ' +
      'to be confirmed owns it, and every other unverified registration of it ends then. An address a verified ' +
      'account already owns gets the same answer, and the registration is stored alike, but no link is sent, it ' +
      'can never be confirmed, and the owner is told by email. Unconfirmed registrations expire (7 days by default).',
    response: 'Detail',
    errors: ['invalid_username', 'invalid_email', 'weak_password'],
  })
  @HttpCode(201)
  @UseBefore(rateLimit('register.ip'), hashingCapacity)
  async register(@Body() body: RegisterBody, @Accounts() accounts: AccountService) {
    await accounts.register({ username: body.username, email: body.email, password: body.password });
    // The same words whoever holds the address: registration must not tell who has an account.
    return done('Registration received; check your email to verify your address');
  }

  @Post('/verify-email', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Verify the email address',
    description:
      'Spends the token of the verification link: its registration becomes the owner of the address, and the ' +
      'other unverified registrations of that address end. A registration of an address another account has ' +
      'proved since is refused like a spent token.',
    response: 'Detail',
    errors: ['invalid_verification_token'],
  })
  @UseBefore(rateLimit('verify-email.ip'))
  async verifyEmail(@Body() body: TokenBody, @Accounts() accounts: AccountService) {
    await accounts.verifyEmail(body.token);
    return done('Email verified');
  }

  @Post('/resend-verification', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Send a new verification link',
    description:
      'The same answer for every address; each unexpired unverified registration of it (the newest three) is ' +
      'mailed a new link naming its username, and its older link stops working. An address a verified account ' +
      'owns is mailed nothing.',
    response: 'Detail',
  })
  @UseBefore(rateLimit('resend-verification.ip'))
  async resendVerification(@Body() body: EmailBody, @Accounts() accounts: AccountService) {
    await accounts.resendVerification(body.email);
    return done('If the address belongs to an unverified account, a new verification email is on its way');
  }

  @Post('/login', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Log in',
    description:
      'Exchanges username and password for a new session token; `unverified_user` comes only after a correct ' +
      'password. For an account with two-factor sign-in on, a right password answers a challenge instead ' +
      '(`second_factor_required: true`, no session yet), to answer with `POST /login/second-factor`. An account ' +
      'an administrator has disabled gets `account_disabled`, also only after a correct password.',
    response: 'LoginAnswer',
    errors: ['invalid_credentials', 'unverified_user', 'account_disabled'],
  })
  @UseBefore(rateLimit('login.ip'), hashingCapacity)
  async login(
    @Body() body: LoginBody,
    @SessionClientInfo() client: SessionClient,
    @Accounts() accounts: AccountService,
  ) {
    // Recorded on the session for its owner's list of sessions: display only, never a check.
    return loginAnswer(await accounts.signIn(body.username, body.password, client));
  }

  @Post('/logout', PLAIN_ANSWER)
  @ApiDoc({ summary: 'Log out', description: 'Ends the presented session.', response: 'Detail', bearer: true })
  async logout(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    await accounts.logout(token);
    return done('Logged out');
  }

  @Post('/logout-all', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Log out everywhere',
    description:
      'Ends every session of the user, and drops a pending email change (its link then answers like a used one).',
    response: 'Detail',
    bearer: true,
  })
  async logoutAll(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    await accounts.logoutAll(token);
    return done('Logged out of all sessions');
  }

  @Get('/me', PLAIN_ANSWER)
  @ApiDoc({ summary: 'The signed-in user', response: 'User', bearer: true })
  me(@BearerToken() token: string) {
    // The core itself, not a request's view: a session check logs and audits nothing, and this runs on every request.
    // Not async: where the store reads synchronously (SQLite) the answer is ready in this call.
    return whenReady(resolveAccountService().checkSession(token), (session) => {
      if (!session) throw invalidSession();
      const answer = resolveSerializer()(session.user);
      // A host's serializer may return a class instance whose @Exclude()/@Expose() rules class-transformer applied
      // before answers skipped it: those still go through it, so a field it hides is never sent.
      return isPlain(answer) ? answer : instanceToPlain(answer);
    });
  }

  @Post('/password-reset/request', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Request a password reset link',
    description:
      'The same answer for every address; the owner of an account is mailed a link (superseding older ones). ' +
      'Nothing changes until it is used.',
    response: 'Detail',
  })
  @UseBefore(rateLimit('reset-request.ip'))
  async requestPasswordReset(@Body() body: EmailBody, @Accounts() accounts: AccountService) {
    await accounts.requestPasswordReset(body.email);
    return done('If the address belongs to an account, a password reset email is on its way');
  }

  @Post('/password-reset/confirm', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Set a new password with a reset link',
    description:
      'Spends the token of the reset link and ends every session of the user; it does not log in. A refused ' +
      'password leaves the token usable. API keys are kept unless `revoke_api_keys` is true (then each is revoked ' +
      'and audited in the same transaction).',
    response: 'Detail',
    errors: ['invalid_password_reset_token', 'weak_password'],
  })
  @UseBefore(rateLimit('reset-confirm.ip'), hashingCapacity)
  async confirmPasswordReset(@Body() body: PasswordResetConfirmBody, @Accounts() accounts: AccountService) {
    await accounts.confirmPasswordReset(body.token, body.new_password, { revokeApiKeys: body.revoke_api_keys });
    return done('Password reset; sign in with the new password');
  }

  @Post('/password/change', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Change the password',
    description:
      'Needs the current password; ends every session of the user, this one included. API keys are kept unless ' +
      '`revoke_api_keys` is true.',
    response: 'Detail',
    errors: ['invalid_credentials', 'weak_password'],
    bearer: true,
  })
  @UseBefore(rateLimit('password-change.ip'), hashingCapacity)
  async changePassword(
    @BearerToken() token: string,
    @Body() body: PasswordChangeBody,
    @Accounts() accounts: AccountService,
  ) {
    await accounts.changePassword(token, body.old_password, body.new_password, {
      revokeApiKeys: body.revoke_api_keys,
    });
    return done('Password changed; sign in again');
  }

  @Delete('/account', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Delete the account',
    description: 'Needs the password; deletes the user with every session, token and grant.',
    response: 'Detail',
    errors: ['invalid_credentials'],
    bearer: true,
  })
  @UseBefore(hashingCapacity)
  async deleteAccount(@BearerToken() token: string, @Body() body: PasswordBody, @Accounts() accounts: AccountService) {
    await accounts.deleteAccount(token, body.password);
    return done('Account deleted');
  }
}
