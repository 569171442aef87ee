import { Body, JsonController, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { EmailChangeBody } from './email-change-body';
import { EmailChangeConfirmBody } from './email-change-confirm-body';
import { done, PLAIN_ANSWER } from '../plain-answer';

/** Changing the account's email address: asked for while signed in, made by the link sent to the new address. */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class EmailChangeController {
  @Post('/email-change', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Ask to change the email address',
    description:
      'Needs the password proved recently. Mails the new address a single-use link (superseding an earlier ' +
      'request) and tells the current address; nothing changes until the link is confirmed. An address another ' +
      'account owns gets the same answer, and its owner is told instead of a link being sent. With ' +
      '`end_other_sessions` (default true) the other sessions end when the change is made.',
    response: 'Detail',
    errors: ['reauthentication_required', 'invalid_email', 'email_change_unavailable'],
    bearer: true,
  })
  @UseBefore(rateLimit('email-change.ip'))
  async requestEmailChange(
    @BearerToken() token: string,
    @Body() body: EmailChangeBody,
    @Accounts() accounts: AccountService,
  ) {
    await accounts.emailChanges.request(token, body.new_email, { endOtherSessions: body.end_other_sessions });
    // The same words whoever owns the address: the answer must not tell who has an account.
    return done('Check the new address for a link to confirm the change');
  }

  @Post('/email-change/confirm', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Confirm the new email address',
    description:
      'Spends the token of the email-change link and makes its address the account’s; the previous address is ' +
      'told. Refused like a spent token when another account has come to own the address since.',
    response: 'Detail',
    errors: ['invalid_email_change_token'],
  })
  @UseBefore(rateLimit('email-change-confirm.ip'))
  async confirmEmailChange(@Body() body: EmailChangeConfirmBody, @Accounts() accounts: AccountService) {
    await accounts.emailChanges.confirm(body.token);
    return done('Email address changed');
  }
}
