import { Body, Delete, Get, JsonController, Post, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { SessionIdParam } from '../../guards/path-params';
import { BearerToken } from '../../guards/bearer-token';
import { Accounts } from '../../guards/request-accounts';
import { hashingCapacity } from '../../http/hashing-capacity';
import { rateLimit } from '../../http/rate-limit';
import { sessionsAnswer } from '../../http/session-answer';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { ReauthenticateBody } from './reauthenticate-body';
import { done, PLAIN_ANSWER } from '../plain-answer';

/**
 * The signed-in user's sessions: the list, ending one or all the others, and proving the password again, which
 * ending another session needs when the last proof is older than the re-authentication window.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class SessionsController {
  @Get('/sessions', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List your sessions',
    description:
      'The live sessions of the signed-in user, newest first; `current` marks the one asking. Each shows where it ' +
      'signed in from (address and user agent as presented then, for recognising it only). Never a token.',
    response: 'SessionList',
    bearer: true,
  })
  @UseBefore(rateLimit('sessions.ip'))
  async listSessions(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return sessionsAnswer(await accounts.sessions.list(token));
  }

  // Declared before `/sessions/:id`, so the document lists this path first and a reader matching paths in order
  // (as the contract check does) does not take `end-others` for an id.
  @Post('/sessions/end-others', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'End your other sessions',
    description:
      'Ends every session of the user but this one, on every instance from their next request. Needs the password ' +
      'proved recently (at login or by `POST /reauthenticate`).',
    response: 'OtherSessionsEnded',
    errors: ['reauthentication_required'],
    bearer: true,
  })
  @UseBefore(rateLimit('sessions.ip'))
  async endOtherSessions(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    const ended = await accounts.sessions.endOthers(token);
    return { detail: 'Other sessions ended', ended };
  }

  @Delete('/sessions/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'End one of your sessions',
    description:
      'Ends the session with this id (from `GET /sessions`): its token is refused from its next request. Ending ' +
      'this very session is a logout; ending another needs the password proved recently. An id that is not one of ' +
      'your sessions is `session_not_found`, whoever it belongs to.',
    response: 'Detail',
    errors: ['session_not_found', 'reauthentication_required'],
    bearer: true,
    pathParameters: { id: 'The `id` of the session, as `GET /sessions` lists it.' },
  })
  @UseBefore(rateLimit('sessions.ip'))
  async endSession(@BearerToken() token: string, @SessionIdParam() id: string, @Accounts() accounts: AccountService) {
    await accounts.sessions.end(token, id);
    return done('Session ended');
  }

  @Post('/reauthenticate', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Confirm your password',
    description:
      'Proves the password again on this session, which may then end other sessions and change the email address ' +
      'until `reauthenticated_until`. An account with two-factor sign-in on also sends a `code` (from the ' +
      'authenticator app, or a recovery code, which this spends): the right password alone is ' +
      '`second_factor_required` and leaves the session as it was. Wrong passwords and codes count against the ' +
      'account like failed logins; for an account with a second factor only a right code clears the count.',
    response: 'Reauthenticated',
    errors: ['invalid_credentials', 'second_factor_required', 'invalid_second_factor_code'],
    bearer: true,
  })
  @UseBefore(rateLimit('reauthenticate.ip'), hashingCapacity)
  async reauthenticate(
    @BearerToken() token: string,
    @Body() body: ReauthenticateBody,
    @Accounts() accounts: AccountService,
  ) {
    const { authenticatedUntil } = await accounts.sessions.reauthenticate(token, body.password, body.code);
    return { detail: 'Password confirmed', reauthenticated_until: authenticatedUntil.toISOString() };
  }
}
