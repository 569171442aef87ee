import {
  Authorized,
  CurrentUser,
  Delete,
  Get,
  HttpCode,
  JsonController,
  OnUndefined,
  UseBefore,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { PasskeyIdParam, UserIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { PLAIN_ANSWER } from '../plain-answer';
import { passkeyListAnswer, requirePasskeys } from './passkey-answer';

const USER_ID = { id: 'The account’s `id`, as `GET /admin/users` lists it.' };

/**
 * An administrator's view of an account's passkeys, and their removal (a lost device, a support request). As on
 * every admin route, the route only authenticates; the core checks the permission (and, for the removal, that the
 * administrator's session was proved recently) before it reads anything, and audits both.
 */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminPasskeysController {
  @Get('/admin/users/:id/passkeys', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List an account’s passkeys',
    description:
      'Needs `gatehouse.users.read`; audited. The same view the owner has: never a public key or credential id.',
    response: 'PasskeyList',
    errors: ['passkeys_not_configured', 'permission_denied', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listUserPasskeys(
    @CurrentUser({ required: true }) user: AccountUser,
    @UserIdParam() id: string,
    @Accounts() accounts: AccountService,
  ) {
    requirePasskeys();
    return passkeyListAnswer(await accounts.passkeys.listOf(asAdmin(user), id));
  }

  @Delete('/admin/users/:id/passkeys/:passkeyId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Remove an account’s passkey',
    description:
      'Needs `gatehouse.users.manage` and the administrator’s session proved recently; audited, and the owner is ' +
      'told by email. Removing the account’s last way to sign in is 409 `last_sign_in_method`, as for the owner.',
    response: null,
    errors: [
      'passkeys_not_configured',
      'permission_denied',
      'reauthentication_required',
      'user_not_found',
      'passkey_not_found',
      'last_sign_in_method',
    ],
    bearer: true,
    pathParameters: { ...USER_ID, passkeyId: 'The passkey’s `id`, as `GET /admin/users/{id}/passkeys` lists it.' },
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('admin.ip'))
  async removeUserPasskey(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @PasskeyIdParam('passkeyId') passkeyId: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    requirePasskeys();
    await accounts.passkeys.removeOf(asAdmin(user, token), id, passkeyId);
  }
}
