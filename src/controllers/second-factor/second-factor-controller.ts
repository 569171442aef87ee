import { Body, Get, JsonController, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { Accounts } from '../../guards/request-accounts';
import { qrCodeSvg } from '../../http/qr-code';
import { rateLimit } from '../../http/rate-limit';
import { secondFactorStatusAnswer } from '../../http/second-factor-answer';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { SecondFactorCodeBody } from './second-factor-code-body';
import { SecondFactorLoginBody } from './second-factor-login-body';
import { TotpCodeBody } from './totp-code-body';
import { done, PLAIN_ANSWER } from '../plain-answer';

/**
 * Two-factor sign-in: answering the challenge `POST /login` gives an account with a second factor, and, signed in,
 * switching the authenticator app on, making new recovery codes and switching it off.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class SecondFactorController {
  @Post('/login/second-factor', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Answer the second-factor challenge',
    description:
      'Completes a login that answered `second_factor_required`: the challenge with a code from the authenticator ' +
      'app, or with a recovery code (which this spends, and the owner is told by email). A code works once. A ' +
      'challenge takes 5 answers; the next is `invalid_login_challenge` even with a right code. Each wrong code ' +
      'counts against the account like a wrong password.',
    response: 'AccessToken',
    errors: ['invalid_second_factor_code', 'invalid_login_challenge'],
  })
  @UseBefore(rateLimit('second-factor.ip'))
  async answerChallenge(@Body() body: SecondFactorLoginBody, @Accounts() accounts: AccountService) {
    // The session records where the login came from, as the challenge kept it.
    const proof = body.code !== undefined ? { code: body.code } : { recoveryCode: body.recovery_code };
    const token = await accounts.secondFactors.completeSignIn(body.challenge_token, proof);
    return { access_token: token, token_type: 'bearer' };
  }

  @Get('/second-factor', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Your second factor',
    description: 'Whether two-factor sign-in is on, waiting for its first code, and how many recovery codes remain.',
    response: 'SecondFactorStatus',
    bearer: true,
  })
  @UseBefore(rateLimit('second-factor-manage.ip'))
  async status(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return secondFactorStatusAnswer(await accounts.secondFactors.status(token));
  }

  @Post('/second-factor/totp', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Start setting up an authenticator app',
    description:
      'Needs the password proved recently. Makes a new secret and answers it, as text, as an `otpauth://` URI and ' +
      'as a QR code, this once; it waits for its first code (`POST /second-factor/totp/confirm`), and signing in is ' +
      'unchanged until then. Starting again replaces a secret still waiting.',
    response: 'TotpEnrolment',
    errors: ['reauthentication_required', 'second_factor_already_enabled'],
    bearer: true,
  })
  @UseBefore(rateLimit('second-factor-manage.ip'))
  async startTotp(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    const { secret, uri } = await accounts.secondFactors.startEnrolment(token);
    return { secret, otpauth_uri: uri, qr_code_svg: await qrCodeSvg(uri) };
  }

  @Post('/second-factor/totp/confirm', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Switch two-factor sign-in on',
    description:
      'Needs the password proved recently and a code from the authenticator app set up by `POST /second-factor/totp`. ' +
      'Switches the second factor on, counts this session as signed in with it, ends the account’s other sessions ' +
      '(unless `end_other_sessions` is false), mails the owner a notice, and answers the recovery codes: shown this ' +
      'once, keep them somewhere safe. Exactly the secret the code is for goes on: when set-up was started again ' +
      'meanwhile, the answer is `second_factor_setup_replaced` and nothing changed.',
    response: 'RecoveryCodes',
    errors: [
      'reauthentication_required',
      'invalid_second_factor_code',
      'second_factor_not_enabled',
      'second_factor_already_enabled',
      'second_factor_setup_replaced',
    ],
    bearer: true,
  })
  @UseBefore(rateLimit('second-factor-manage.ip'))
  async confirmTotp(@BearerToken() token: string, @Body() body: TotpCodeBody, @Accounts() accounts: AccountService) {
    const { recoveryCodes } = await accounts.secondFactors.confirmEnrolment(token, body.code, {
      endOtherSessions: body.end_other_sessions,
    });
    return { recovery_codes: recoveryCodes };
  }

  @Post('/second-factor/recovery-codes', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Make new recovery codes',
    description:
      'Needs the password proved recently and a code (from the authenticator app, or a recovery code). The old ' +
      'codes stop working; the new ones are answered this once, and the owner is told by email.',
    response: 'RecoveryCodes',
    errors: ['reauthentication_required', 'invalid_second_factor_code', 'second_factor_not_enabled'],
    bearer: true,
  })
  @UseBefore(rateLimit('second-factor-manage.ip'))
  async regenerateRecoveryCodes(
    @BearerToken() token: string,
    @Body() body: SecondFactorCodeBody,
    @Accounts() accounts: AccountService,
  ) {
    const { recoveryCodes } = await accounts.secondFactors.regenerateRecoveryCodes(token, body.code);
    return { recovery_codes: recoveryCodes };
  }

  @Post('/second-factor/disable', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Switch two-factor sign-in off',
    description:
      'Needs the password proved recently and a code (from the authenticator app, or a recovery code). Signing in ' +
      'asks for the password only again, the recovery codes stop working, and the owner is told by email.',
    response: 'Detail',
    errors: ['reauthentication_required', 'invalid_second_factor_code', 'second_factor_not_enabled'],
    bearer: true,
  })
  @UseBefore(rateLimit('second-factor-manage.ip'))
  async disable(
    @BearerToken() token: string,
    @Body() body: SecondFactorCodeBody,
    @Accounts() accounts: AccountService,
  ) {
    await accounts.secondFactors.disable(token, body.code);
    return done('Two-factor sign-in is off');
  }
}
