import {
  Authorized,
  CurrentUser,
  Delete,
  Get,
  HttpCode,
  JsonController,
  Post,
  Put,
  QueryParams,
  UseBefore,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { RoleParam, UserIdParam } from '../../guards/path-params';
import { Administrator } from '../../guards/request-accounts';
import type { Administration } from '../../services/administration/administration';
import { rateLimit } from '../../http/rate-limit';
import { adminUserAnswer, userPageAnswer } from '../../http/admin-answer';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { UserListQuery } from './user-list-query';
import { done, PLAIN_ANSWER } from '../plain-answer';

const USER_ID = { id: 'The account’s `id`, as `GET /admin/users` lists it.' };
const ROLE = { ...USER_ID, role: 'A role name.' };

/**
 * What an administrator does to accounts: list, read, disable and enable, end sessions, verify, resend the link,
 * delete, grant and revoke roles. Every route needs a session; the core checks the permission of each action, and an
 * unknown id is answered only after that check.
 */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminUsersController {
  @Get('/admin/users', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List accounts',
    description:
      'Needs `gatehouse.users.read`. Newest account first, a page at a time: pass `next_cursor` back as `cursor` ' +
      '(with the same filters) for the next. The pages are cut by keyset, so accounts registered meanwhile never ' +
      'shift or repeat a row. Filters combine with AND.',
    response: 'UserPage',
    errors: ['permission_denied', 'invalid_cursor', 'invalid_role'],
    bearer: true,
    query: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listUsers(
    @CurrentUser({ required: true }) user: AccountUser,
    @QueryParams() query: UserListQuery,
    @Administrator() admin: Administration,
  ) {
    return userPageAnswer(await admin.listUsers(asAdmin(user), query.toFilters()));
  }

  @Get('/admin/users/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Read an account',
    description:
      'Needs `gatehouse.users.read`: roles, permissions, verification, second factor on or off, live sessions, ' +
      'created, last sign-in, disabled.',
    response: 'AdminUser',
    errors: ['permission_denied', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async getUser(
    @CurrentUser({ required: true }) user: AccountUser,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    return adminUserAnswer(await admin.getUser(asAdmin(user), id));
  }

  @Post('/admin/users/:id/disable', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Disable an account',
    description:
      'Needs `gatehouse.users.manage`. At once: its sessions end, its links and pending changes die, and it cannot ' +
      'sign in (the right password answers 403 `account_disabled`). Disabling a disabled account changes nothing. ' +
      'The last enabled holder of `gatehouse-admin` cannot be disabled.',
    response: 'AdminUser',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'last_administrator'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async disableUser(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    return adminUserAnswer(await admin.disableUser(asAdmin(user, token), id));
  }

  @Post('/admin/users/:id/enable', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Enable an account',
    description:
      'Needs `gatehouse.users.manage`. The account can sign in again; enabling an enabled one changes nothing.',
    response: 'AdminUser',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async enableUser(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    return adminUserAnswer(await admin.enableUser(asAdmin(user, token), id));
  }

  @Post('/admin/users/:id/sessions/end', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'End an account’s sessions',
    description: 'Needs `gatehouse.sessions.end`. Every session of the account ends, on every instance at once.',
    response: 'SessionsEnded',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async endUserSessions(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    const ended = await admin.endSessions(asAdmin(user, token), id);
    return { detail: 'Sessions ended', ended };
  }

  @Post('/admin/users/:id/verify-email', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Mark the address verified',
    description:
      'Needs `gatehouse.users.manage`. The account becomes the owner of its address, as if it had followed its link; ' +
      'other unverified registrations of the address end. 409 `address_owned` when another verified account owns ' +
      'it. Marking a verified account changes nothing.',
    response: 'AdminUser',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'address_owned'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async markVerified(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    return adminUserAnswer(await admin.markVerified(asAdmin(user, token), id));
  }

  @Post('/admin/users/:id/resend-verification', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Send the account a new verification link',
    description:
      'Needs `gatehouse.users.manage`. Its older link stops working; the mail leaves through the outbox. 400 ' +
      '`account_error` when the account is verified already.',
    response: 'Detail',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'account_error'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @HttpCode(202)
  @UseBefore(rateLimit('admin.ip'))
  async resendUserVerification(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    await admin.resendVerification(asAdmin(user, token), id);
    return done('A new verification link is on its way');
  }

  @Delete('/admin/users/:id', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Delete an account',
    description:
      'Needs `gatehouse.users.delete`. The account and everything of it go, its sessions first; its audit events ' +
      'stay. The last enabled holder of `gatehouse-admin` cannot be deleted.',
    response: 'Detail',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'last_administrator'],
    bearer: true,
    pathParameters: USER_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async deleteUser(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @Administrator() admin: Administration,
  ) {
    await admin.deleteUser(asAdmin(user, token), id);
    return done('User deleted');
  }

  @Put('/admin/users/:id/roles/:role', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Grant a role',
    description:
      'Needs `gatehouse.roles.manage` and every permission the role carries (403 `permission_denied` otherwise); ' +
      'nobody grants a role to their own account. Granting a role the account holds changes nothing.',
    response: 'UserRoles',
    errors: ['permission_denied', 'reauthentication_required', 'user_not_found', 'invalid_role', 'unknown_role'],
    bearer: true,
    pathParameters: ROLE,
  })
  @UseBefore(rateLimit('admin.ip'))
  async grantRole(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @RoleParam() role: string,
    @Administrator() admin: Administration,
  ) {
    return { roles: await admin.grantRole(asAdmin(user, token), id, role) };
  }

  @Delete('/admin/users/:id/roles/:role', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke a role',
    description:
      'Needs `gatehouse.roles.manage`; nobody revokes a role of their own account. Revoking a role the account does ' +
      'not hold changes nothing. `gatehouse-admin` ' +
      'cannot be revoked from its last enabled holder.',
    response: 'UserRoles',
    errors: [
      'permission_denied',
      'reauthentication_required',
      'user_not_found',
      'invalid_role',
      'unknown_role',
      'last_administrator',
    ],
    bearer: true,
    pathParameters: ROLE,
  })
  @UseBefore(rateLimit('admin.ip'))
  async revokeRole(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @UserIdParam() id: string,
    @RoleParam() role: string,
    @Administrator() admin: Administration,
  ) {
    return { roles: await admin.revokeRole(asAdmin(user, token), id, role) };
  }
}
