import { Authorized, CurrentUser, Get, JsonController } from 'routing-controllers';
import { Service } from 'typedi';
import type { AccountUser } from 'gatehouse';

/** The host's own route, the same on every driver: guarded by a permission, and answering with the injected user. */
@Service()
@JsonController('/reports')
export class ReportsController {
  @Authorized('perm:reports.read')
  @Get('/')
  list(@CurrentUser() user: AccountUser) {
    return { user, reports: [] };
  }
}
