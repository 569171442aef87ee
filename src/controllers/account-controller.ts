import { Body, Delete, Get, HttpCode, JsonController, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { resolveAccountService, resolveSerializer } from '../di/resolve';
import { BearerToken } from '../guards/bearer-token';
import { rateLimit } from '../http/rate-limit';
import type { AccountService } from '../services/account-service';
import { EmailBody } from './dto/email-body';
import { LoginBody } from './dto/login-body';
import { PasswordBody } from './dto/password-body';
import { PasswordChangeBody } from './dto/password-change-body';
import { PasswordResetConfirmBody } from './dto/password-reset-confirm-body';
import { RegisterBody } from './dto/register-body';
import { TokenBody } from './dto/token-body';
import { jsonObjectBody } from './json-object-body';

/** A `{ detail }` confirmation; answers that could reveal whether an address has an account are worded alike. */
const done = (detail: string) => ({ detail });

/**
 * The account routes of spec section 4. Each action is one call to the account core; bodies are validated by
 * their DTOs before it, and failures are rendered by `gatehouseHttp()`'s error middleware.
 */
@JsonController()
@Service()
@UseBefore(jsonObjectBody)
export class AccountController {
  // Resolved per request (memoized), so a host that sets a DI token after mounting the routes is still obeyed.
  private get accounts(): AccountService {
    return resolveAccountService();
  }

  @Post('/register')
  @HttpCode(201)
  @UseBefore(rateLimit('register.ip'))
  async register(@Body() body: RegisterBody) {
    await this.accounts.register({ username: body.username, email: body.email, password: body.password });
    // The same words when the email already had an account: registration must not tell who has one.
    return done('Registration received; check your email to verify your address');
  }

  @Post('/verify-email')
  @UseBefore(rateLimit('verify-email.ip'))
  async verifyEmail(@Body() body: TokenBody) {
    await this.accounts.verifyEmail(body.token);
    return done('Email verified');
  }

  @Post('/resend-verification')
  @UseBefore(rateLimit('resend-verification.ip'))
  async resendVerification(@Body() body: EmailBody) {
    await this.accounts.resendVerification(body.email);
    return done('If the address belongs to an unverified account, a new verification email is on its way');
  }

  @Post('/login')
  @UseBefore(rateLimit('login.ip'))
  async login(@Body() body: LoginBody) {
    const token = await this.accounts.login(body.username, body.password);
    return { access_token: token, token_type: 'bearer' };
  }

  @Post('/logout')
  async logout(@BearerToken() token: string) {
    await this.accounts.logout(token);
    return done('Logged out');
  }

  @Post('/logout-all')
  async logoutAll(@BearerToken() token: string) {
    await this.accounts.logoutAll(token);
    return done('Logged out of all sessions');
  }

  @Get('/me')
  async me(@BearerToken() token: string) {
    return resolveSerializer()(await this.accounts.authenticate(token));
  }

  @Post('/password-reset/request')
  @UseBefore(rateLimit('reset-request.ip'))
  async requestPasswordReset(@Body() body: EmailBody) {
    await this.accounts.requestPasswordReset(body.email);
    return done('If the address belongs to an account, a password reset email is on its way');
  }

  @Post('/password-reset/confirm')
  @UseBefore(rateLimit('reset-confirm.ip'))
  async confirmPasswordReset(@Body() body: PasswordResetConfirmBody) {
    await this.accounts.confirmPasswordReset(body.token, body.new_password);
    return done('Password reset; sign in with the new password');
  }

  @Post('/password/change')
  @UseBefore(rateLimit('password-change.ip'))
  async changePassword(@BearerToken() token: string, @Body() body: PasswordChangeBody) {
    await this.accounts.changePassword(token, body.old_password, body.new_password);
    return done('Password changed; sign in again');
  }

  @Delete('/account')
  async deleteAccount(@BearerToken() token: string, @Body() body: PasswordBody) {
    await this.accounts.deleteAccount(token, body.password);
    return done('Account deleted');
  }
}
