import {
  Authorized,
  Body,
  Delete,
  Get,
  HttpCode,
  JsonController,
  OnUndefined,
  Post,
  UseBefore,
} from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { BearerToken } from '../../guards/bearer-token';
import { InvitationIdParam, OrganizationIdParam } from '../../guards/path-params';
import { Accounts } from '../../guards/request-accounts';
import { rateLimit, userRateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountService } from '../../services/account-service';
import { PLAIN_ANSWER } from '../plain-answer';
import { InvitationBody, InvitationTokenBody } from './organization-bodies';
import {
  invitationAnswer,
  invitationListAnswer,
  invitationPreviewAnswer,
  organizationAnswer,
} from './organization-answer';
import { ORG_ID } from './organizations-controller';

const INVITATION_ID = {
  ...ORG_ID,
  invitationId:
    'The invitation’s `id`, as `GET /organizations/{orgId}/invitations` lists it; not a pending invitation of ' +
    'this organization: 404 `invitation_not_found`.',
};

/**
 * Invitations: managers invite an address with a role, list, resend and cancel; the holder of the mail's token sees
 * what it offers without a session, and the verified account owning the address accepts or declines it, by POST.
 * The token travels in bodies only, never in a URL of the API.
 */
@JsonController()
@Service()
@UseBefore(accountRoute)
export class InvitationsController {
  @Post('/organizations/:orgId/invitations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Invite an address',
    description:
      'Needs `gatehouse.members.invite` and a role whose permissions are all the caller’s (`owner` only by an ' +
      'owner: else 403 `role_not_assignable`). Mails a link with a single-use token, bound to the address and ' +
      'valid for the deployer’s invitation lifetime (7 days by default); a pending invitation of the same address ' +
      'is replaced (its token stops working). The answer never holds the token. An address whose verified account ' +
      'is a member already: 409 `already_member`. Limits: 409 `invitation_limit_reached`, `member_limit_reached`.',
    response: 'Invitation',
    errors: [
      'organization_not_found',
      'permission_denied',
      'invalid_email',
      'account_error',
      'role_not_assignable',
      'already_member',
      'invitation_limit_reached',
      'member_limit_reached',
    ],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @HttpCode(201)
  @Authorized()
  @UseBefore(rateLimit('org-invite.ip'), userRateLimit('org-invite.user'))
  async invite(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @Body() body: InvitationBody,
    @Accounts() accounts: AccountService,
  ) {
    return invitationAnswer(await accounts.organizations.invite(token, orgId, { email: body.email, role: body.role }));
  }

  @Get('/organizations/:orgId/invitations', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'List the pending invitations',
    description: 'Needs `gatehouse.members.manage`: address, role, inviter, when sent and until when it works.',
    response: 'InvitationList',
    errors: ['organization_not_found', 'permission_denied'],
    bearer: true,
    pathParameters: ORG_ID,
  })
  @Authorized()
  @UseBefore(rateLimit('organizations.ip'))
  async list(@BearerToken() token: string, @OrganizationIdParam() orgId: string, @Accounts() accounts: AccountService) {
    return invitationListAnswer(await accounts.organizations.listInvitations(token, orgId));
  }

  @Post('/organizations/:orgId/invitations/:invitationId/resend', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Resend an invitation',
    description: 'Needs `gatehouse.members.manage`: a new token and expiry, mailed again; the old token stops working.',
    response: 'Invitation',
    errors: ['organization_not_found', 'permission_denied', 'invitation_not_found'],
    bearer: true,
    pathParameters: INVITATION_ID,
  })
  @Authorized()
  @UseBefore(rateLimit('org-invite.ip'), userRateLimit('org-invite.user'))
  async resend(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @InvitationIdParam() invitationId: string,
    @Accounts() accounts: AccountService,
  ) {
    return invitationAnswer(await accounts.organizations.resendInvitation(token, orgId, invitationId));
  }

  @Delete('/organizations/:orgId/invitations/:invitationId', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Cancel an invitation',
    description: 'Needs `gatehouse.members.manage`; its token stops working. Audited.',
    response: null,
    errors: ['organization_not_found', 'permission_denied', 'invitation_not_found'],
    bearer: true,
    pathParameters: INVITATION_ID,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @Authorized()
  @UseBefore(rateLimit('organizations.ip'))
  async cancel(
    @BearerToken() token: string,
    @OrganizationIdParam() orgId: string,
    @InvitationIdParam() invitationId: string,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.cancelInvitation(token, orgId, invitationId);
  }

  @Post('/invitations/preview', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'See what an invitation offers',
    description:
      'No session needed, nothing changes: the organization, the role, the inviter and the expiry, for the page ' +
      'that asks the invitee to accept or decline. Never the invited address. Unknown, used, expired, cancelled ' +
      'or replaced: 400 `invalid_invitation_token`.',
    response: 'InvitationPreview',
    errors: ['organization_not_found', 'invalid_invitation_token'],
  })
  @UseBefore(rateLimit('org-accept.ip'))
  async preview(@Body() body: InvitationTokenBody, @Accounts() accounts: AccountService) {
    return invitationPreviewAnswer(await accounts.organizations.previewInvitation(body.token));
  }

  @Post('/invitations/accept', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Accept an invitation',
    description:
      'Only the verified account owning the invited address (else 403 `invitation_address_mismatch`, and the ' +
      'invitation stays for its invitee). Claiming the token and joining are one transaction: two accepts make ' +
      'one membership. A newcomer registers and verifies the address first, as usual. Answers the organization ' +
      'with the role joined.',
    response: 'Organization',
    errors: [
      'organization_not_found',
      'invalid_invitation_token',
      'unverified_user',
      'invitation_address_mismatch',
      'already_member',
      'organization_limit_reached',
      'member_limit_reached',
    ],
    bearer: true,
  })
  @Authorized()
  @UseBefore(rateLimit('org-accept.ip'))
  async accept(@BearerToken() token: string, @Body() body: InvitationTokenBody, @Accounts() accounts: AccountService) {
    return organizationAnswer(await accounts.organizations.acceptInvitation(token, body.token));
  }

  @Post('/invitations/decline', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Decline an invitation',
    description:
      'As accepting, without joining: only the verified account owning the address; the token stops working.',
    response: null,
    errors: ['organization_not_found', 'invalid_invitation_token', 'unverified_user', 'invitation_address_mismatch'],
    bearer: true,
  })
  @HttpCode(204)
  @OnUndefined(204)
  @Authorized()
  @UseBefore(rateLimit('org-accept.ip'))
  async decline(
    @BearerToken() token: string,
    @Body() body: InvitationTokenBody,
    @Accounts() accounts: AccountService,
  ): Promise<void> {
    await accounts.organizations.declineInvitation(token, body.token);
  }
}
