import { Authorized, Body, CurrentUser, Get, JsonController, Post, QueryParams, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { OrganizationIdParam, UserIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { PLAIN_ANSWER } from '../plain-answer';
import {
  adminOrganizationAnswer,
  adminOrganizationPageAnswer,
  userOrganizationListAnswer,
} from './admin-organization-answer';
import { OrganizationPageQuery, UserIdBody } from './organization-bodies';

const ORG_ID = { orgId: 'The organization’s `id`, as `GET /admin/organizations` lists it.' };

/**
 * What an administrator sees of organizations and does to them: the list, one with its members (with addresses) and
 * pending invitations, a user's organizations, and naming a new owner (an organization whose owners are gone or
 * unreachable). As on every admin route, the route only authenticates; the core checks the global permission
 * (`gatehouse.organizations.read` / `.manage`) and audits reads and changes.
 */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminOrganizationsController {
  @Get('/admin/organizations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List organizations',
    description:
      'Needs `gatehouse.organizations.read`; audited. A page at a time: pass `next_cursor` back as `cursor` for ' +
      'the next.',
    response: 'AdminOrganizationPage',
    errors: ['organization_not_found', 'permission_denied', 'invalid_cursor'],
    bearer: true,
    query: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listOrganizations(
    @CurrentUser({ required: true }) user: AccountUser,
    @QueryParams() query: OrganizationPageQuery,
    @Accounts() accounts: AccountService,
  ) {
    return adminOrganizationPageAnswer(await accounts.organizations.admin.list(asAdmin(user), query.toPage()));
  }

  @Get('/admin/organizations/:orgId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Read an organization',
    description:
      'Needs `gatehouse.organizations.read`; audited. The organization, its members with their addresses and ' +
      'roles, and its pending invitations (never a token).',
    response: 'AdminOrganization',
    errors: ['organization_not_found', 'permission_denied'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async getOrganization(
    @CurrentUser({ required: true }) user: AccountUser,
    @OrganizationIdParam() orgId: string,
    @Accounts() accounts: AccountService,
  ) {
    return adminOrganizationAnswer(await accounts.organizations.admin.get(asAdmin(user), orgId));
  }

  @Get('/admin/users/:id/organizations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List an account’s organizations',
    description: 'Needs `gatehouse.organizations.read`; audited. Each organization with the account’s role there.',
    response: 'UserOrganizationList',
    errors: ['organization_not_found', 'permission_denied', 'user_not_found'],
    bearer: true,
    pathParameters: { id: 'The account’s `id`, as `GET /admin/users` lists it.' },
  })
  @UseBefore(rateLimit('admin.ip'))
  async listUserOrganizations(
    @CurrentUser({ required: true }) user: AccountUser,
    @UserIdParam() id: string,
    @Accounts() accounts: AccountService,
  ) {
    return userOrganizationListAnswer(await accounts.organizations.admin.userOrganizations(asAdmin(user), id));
  }

  @Post('/admin/organizations/:orgId/owner', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Name an owner',
    description:
      'Needs `gatehouse.organizations.manage` and the administrator’s session proved recently; audited. The ' +
      'account becomes an `owner` of the organization, joining it when it was not a member (the member limits ' +
      'still hold). Nobody else’s role changes. Answers the organization as `GET /admin/organizations/{orgId}` does.',
    response: 'AdminOrganization',
    errors: [
      'organization_not_found',
      'permission_denied',
      'reauthentication_required',
      'user_not_found',
      'organization_limit_reached',
      'member_limit_reached',
    ],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @UseBefore(rateLimit('admin.ip'))
  async setOwner(
    @CurrentUser({ required: true }) user: AccountUser,
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Body() body: UserIdBody,
    @Accounts() accounts: AccountService,
  ) {
    return adminOrganizationAnswer(
      await accounts.organizations.admin.setOwner(asAdmin(user, token), orgId, body.user_id),
    );
  }
}
