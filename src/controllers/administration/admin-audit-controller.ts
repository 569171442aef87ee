import { Authorized, CurrentUser, Get, JsonController, QueryParams, UseBefore } from 'routing-controllers';
import { Service } from 'typedi';
import { accountRoute } from '../account-route';
import { UserIdParam } from '../../guards/path-params';
import { Administrator } from '../../guards/request-accounts';
import type { Administration } from '../../services/administration/administration';
import { auditPageAnswer } from '../../http/admin-answer';
import { rateLimit } from '../../http/rate-limit';
import { ApiDoc } from '../../openapi/api-doc';
import type { AccountUser } from '../../services/types';
import { asAdmin } from '../admin-actor';
import { PLAIN_ANSWER } from '../plain-answer';
import { AuditEventQuery, UserAuditEventQuery } from './audit-event-query';

const PAGING =
  'Newest first, a page at a time: pass `next_cursor` back as `cursor` (with the same filters) for the next. ' +
  'Filters combine with AND.';

/** The audit trail, for administrators holding `gatehouse.audit.read`. */
@JsonController()
@Service()
@Authorized()
@UseBefore(accountRoute)
export class AdminAuditController {
  @Get('/admin/audit-events', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Read the audit trail',
    description: `Needs \`gatehouse.audit.read\`. ${PAGING} \`user_id\` keeps the events whose subject or actor is that account.`,
    response: 'AuditEventPage',
    errors: ['permission_denied', 'invalid_cursor'],
    bearer: true,
    query: true,
  })
  @UseBefore(rateLimit('admin.ip'))
  async listEvents(
    @CurrentUser({ required: true }) user: AccountUser,
    @QueryParams() query: AuditEventQuery,
    @Administrator() admin: Administration,
  ) {
    return auditPageAnswer(await admin.listAuditEvents(asAdmin(user), query.toFilters()));
  }

  @Get('/admin/users/:id/audit-events', PLAIN_ANSWER)
  @ApiDoc({
    summary: 'Read an account’s audit events',
    description: `Needs \`gatehouse.audit.read\`: the events whose subject or actor is the account. ${PAGING}`,
    response: 'AuditEventPage',
    errors: ['permission_denied', 'invalid_cursor'],
    bearer: true,
    query: true,
    pathParameters: { id: 'The account’s `id`; events outlive their account, so a deleted one’s still show.' },
  })
  @UseBefore(rateLimit('admin.ip'))
  async listUserEvents(
    @CurrentUser({ required: true }) user: AccountUser,
    @UserIdParam() id: string,
    @QueryParams() query: UserAuditEventQuery,
    @Administrator() admin: Administration,
  ) {
    return auditPageAnswer(await admin.listAuditEvents(asAdmin(user), { ...query.toFilters(), userId: id }));
  }
}
