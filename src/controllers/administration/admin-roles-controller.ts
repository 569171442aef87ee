import { Authorized, Body, CurrentUser, Delete, Get, JsonController, Post, Put, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { PermissionParam, RoleParam } from '../../guards/path-params';
import { Administrator } from '../../guards/request-accounts';
import type { Administration } from '../../services/administration/administration';
import { rolesAnswer } from '../../http/admin-answer';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { AnswerStatus, type SetStatus } from '../answer-status';
import { NameBody } from './name-body';
import { done, PLAIN_ANSWER } from '../plain-answer';

const GRANT = {
  role: 'A role name.',
  permission: 'A permission name.',
};

/** Roles and permissions themselves, for administrators holding `gatehouse.roles.manage`. */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminRolesController {
  @Get('/admin/roles', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List roles',
    description: 'Needs `gatehouse.roles.manage`. Every role with its permissions, sorted by name.',
    response: 'RoleList',
    errors: ['permission_denied'],
    bearer: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listRoles(@CurrentUser({ required: true }) user: AccountUser, @Administrator() admin: Administration) {
    return rolesAnswer(await admin.listRoles(asAdmin(user)));
  }

  @Post('/admin/roles', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create a role',
    description: 'Needs `gatehouse.roles.manage`. 201 when created now, 200 when it existed (nothing changes).',
    response: 'NameCreated',
    createdWhen: 'The role was created now.',
    errors: ['permission_denied', 'reauthentication_required', 'invalid_role'],
    bearer: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async createRole(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @Body() body: NameBody,
    @AnswerStatus() status: SetStatus,
    @Administrator() admin: Administration,
  ) {
    const created = await admin.createRole(asAdmin(user, token), body.name);
    if (created) status(201);
    return { name: body.name, created };
  }

  @Get('/admin/permissions', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List permissions',
    description: 'Needs `gatehouse.roles.manage`. Every permission, sorted, the `gatehouse.*` ones included.',
    response: 'PermissionList',
    errors: ['permission_denied'],
    bearer: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listPermissions(@CurrentUser({ required: true }) user: AccountUser, @Administrator() admin: Administration) {
    return { permissions: await admin.listPermissions(asAdmin(user)) };
  }

  @Post('/admin/permissions', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create a permission',
    description: 'Needs `gatehouse.roles.manage`. 201 when created now, 200 when it existed (nothing changes).',
    response: 'NameCreated',
    createdWhen: 'The permission was created now.',
    errors: ['permission_denied', 'reauthentication_required', 'invalid_permission'],
    bearer: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async createPermission(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @Body() body: NameBody,
    @AnswerStatus() status: SetStatus,
    @Administrator() admin: Administration,
  ) {
    const created = await admin.createPermission(asAdmin(user, token), body.name);
    if (created) status(201);
    return { name: body.name, created };
  }

  @Put('/admin/roles/:role/permissions/:permission', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Grant a permission to a role',
    description:
      'Needs `gatehouse.roles.manage` and the permission itself (403 `permission_denied` otherwise), on a role the ' +
      'administrator does not hold. Both must exist; granting one the role has changes nothing.',
    response: 'Detail',
    errors: [
      'permission_denied',
      'reauthentication_required',
      'invalid_role',
      'invalid_permission',
      'unknown_role',
      'unknown_permission',
    ],
    bearer: true,
    pathParameters: GRANT,
  })
  @UseBefore(rateLimit('admin.ip'))
  async grantPermission(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @RoleParam() role: string,
    @PermissionParam() permission: string,
    @Administrator() admin: Administration,
  ) {
    await admin.grantPermission(asAdmin(user, token), role, permission);
    return done('Permission granted');
  }

  @Delete('/admin/roles/:role/permissions/:permission', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Revoke a permission from a role',
    description:
      'Needs `gatehouse.roles.manage`, on a role the administrator does not hold. Revoking one the role lacks ' +
      'changes nothing. The `gatehouse.*` permissions ' +
      'cannot leave `gatehouse-admin` (409 `protected_permission`).',
    response: 'Detail',
    errors: [
      'permission_denied',
      'reauthentication_required',
      'invalid_role',
      'invalid_permission',
      'unknown_role',
      'unknown_permission',
      'protected_permission',
    ],
    bearer: true,
    pathParameters: GRANT,
  })
  @UseBefore(rateLimit('admin.ip'))
  async revokePermission(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @RoleParam() role: string,
    @PermissionParam() permission: string,
    @Administrator() admin: Administration,
  ) {
    await admin.revokePermission(asAdmin(user, token), role, permission);
    return done('Permission revoked');
  }
}
