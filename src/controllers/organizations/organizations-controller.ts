import {
  Authorized,
  Body,
  Delete,
  Get,
  HttpCode,
  JsonController,
  OnUndefined,
  Patch,
  Post,
  UseBefore,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { MemberIdParam, OrganizationIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { PLAIN_ANSWER } from '../plain-answer';
import { MemberRoleBody, OrganizationNameBody, UserIdBody } from './organization-bodies';
import { memberAnswer, memberListAnswer, organizationAnswer, organizationListAnswer } from './organization-answer';

/** What every organization route's path parameter means. */
export const ORG_ID = {
  orgId:
    'The organization’s `id`. Unknown, malformed, and one you are not a member of are the same 404 ' +
    '`organization_not_found`.',
};
const MEMBER_ID = {
  ...ORG_ID,
  userId:
    'The member’s `user_id`, as `GET /organizations/{orgId}/members` lists it; not a member of this organization: 404 `member_not_found`.',
};

/**
 * Organizations as their members see them: creating one, the caller's list, reading, renaming and deleting one, the
 * roster, role changes, removal, leaving and transfer of ownership. Every route needs a session (401 first); the
 * core then checks that the caller is a member of the organization in the path (else one 404 for unknown, malformed
 * and others' ids) and holds the permission of the template the action needs (else 403 `permission_denied`),
 * reading the membership with the session on every request (docs/organizations.md).
 */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class OrganizationsController {
  @Post('/organizations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Create an organization',
    description:
      'The caller becomes its `owner`. Needs a verified account; when the deployer leaves creation to ' +
      'administrators, the global permission `gatehouse.organizations.manage` too (else 403 `permission_denied`). ' +
      'A member of as many organizations as allowed: 409 `organization_limit_reached`.',
    response: 'Organization',
    errors: ['organization_not_found', 'unverified_user', 'permission_denied', 'organization_limit_reached'],
    bearer: true,
  })
  @HttpCode(201)
  @UseBefore(rateLimit('organizations.ip'))
  async create(@BearerToken() token: string, @Body() body: OrganizationNameBody, @Accounts() accounts: AccountService) {
    return organizationAnswer(await accounts.organizations.create(token, { name: body.name }));
  }

  @Get('/organizations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List your organizations',
    description:
      'The organizations the caller is a member of, oldest membership first, each with the caller’s role and its ' +
      'permissions there. Read from the store on every request: nothing is kept on the session.',
    response: 'OrganizationList',
    errors: ['organization_not_found'],
    bearer: true,
  })
  @UseBefore(rateLimit('organizations.ip'))
  async listMine(@BearerToken() token: string, @Accounts() accounts: AccountService) {
    return organizationListAnswer(await accounts.organizations.listMine(token));
  }

  @Get('/organizations/:orgId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Read an organization',
    description: 'Any member: its name, the caller’s role and permissions there, and how many members it has.',
    response: 'Organization',
    errors: ['organization_not_found'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @UseBefore(rateLimit('organizations.ip'))
  async get(@BearerToken() token: string, @OrganizationIdParam() orgId: string, @Accounts() accounts: AccountService) {
    return organizationAnswer(await accounts.organizations.get(token, orgId));
  }

  @Patch('/organizations/:orgId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Rename an organization',
    description: 'Needs `gatehouse.organization.update`; audited.',
    response: 'Organization',
    errors: ['organization_not_found', 'permission_denied'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @UseBefore(rateLimit('organizations.ip'))
  async rename(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Body() body: OrganizationNameBody,
    @Accounts() accounts: AccountService,
  ) {
    return organizationAnswer(await accounts.organizations.rename(token, orgId, body.name));
  }

  @Delete('/organizations/:orgId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Delete an organization',
    description:
      'Needs `gatehouse.organization.delete` (owners, by default) and the session proved recently. Removes its ' +
      'memberships and invitations, tells every other member by email, and calls the host’s `onDeleted` after ' +
      'commit; audited.',
    response: null,
    errors: ['organization_not_found', 'permission_denied', 'reauthentication_required'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('organizations.ip'))
  async delete(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.delete(token, orgId);
  }

  @Get('/organizations/:orgId/members', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List the members',
    description:
      'Needs `gatehouse.members.read`. Each member’s user id, username, role and when they joined; their ' +
      '`email` only for holders of `gatehouse.members.manage`.',
    response: 'MemberList',
    errors: ['organization_not_found', 'permission_denied'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @UseBefore(rateLimit('organizations.ip'))
  async listMembers(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Accounts() accounts: AccountService,
  ) {
    return memberListAnswer(await accounts.organizations.listMembers(token, orgId));
  }

  @Patch('/organizations/:orgId/members/:userId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Change a member’s role',
    description:
      'Needs `gatehouse.members.manage`, and a role of the template whose permissions are all the caller’s; only ' +
      'an owner gives or takes `owner`, and nobody changes their own role (403 `role_not_assignable`). A role the ' +
      'template does not have: 400 `account_error`. Demoting ' +
      'the last owner: 409 `last_owner`. Applies on the member’s next request; audited.',
    response: 'Member',
    errors: [
      'organization_not_found',
      'permission_denied',
      'member_not_found',
      'account_error',
      'role_not_assignable',
      'last_owner',
    ],
    bearer: true,
    pathParameters: MEMBER_ID,
  })
  @UseBefore(rateLimit('organizations.ip'))
  async changeRole(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @MemberIdParam() userId: string,
    @Body() body: MemberRoleBody,
    @Accounts() accounts: AccountService,
  ) {
    return memberAnswer(await accounts.organizations.changeRole(token, orgId, userId, body.role));
  }

  @Delete('/organizations/:orgId/members/:userId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Remove a member',
    description:
      'Needs `gatehouse.members.manage`; only an owner removes an owner (403 `role_not_assignable`). Your own ' +
      '`user_id` is leaving. Removing the last owner: 409 `last_owner`. Applies at once; audited.',
    response: null,
    errors: ['organization_not_found', 'permission_denied', 'member_not_found', 'role_not_assignable', 'last_owner'],
    bearer: true,
    pathParameters: MEMBER_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('organizations.ip'))
  async removeMember(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @MemberIdParam() userId: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.removeMember(token, orgId, userId);
  }

  @Post('/organizations/:orgId/leave', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Leave an organization',
    description: 'Any member; the last owner cannot (409 `last_owner`: transfer first, or delete it). Audited.',
    response: null,
    errors: ['organization_not_found', 'last_owner'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('organizations.ip'))
  async leave(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.leave(token, orgId);
  }

  @Post('/organizations/:orgId/transfer', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Transfer ownership',
    description:
      'By an owner with the session proved recently: the member named by `user_id` becomes `owner` and the caller ' +
      '`admin` (the template’s role with the most permissions below owner when it has no `admin`), in one ' +
      'transaction; audited. Not a member: 404 `member_not_found`.',
    response: null,
    errors: ['organization_not_found', 'permission_denied', 'reauthentication_required', 'member_not_found'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @UseBefore(rateLimit('organizations.ip'))
  async transfer(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Body() body: UserIdBody,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.transfer(token, orgId, body.user_id);
  }
}
