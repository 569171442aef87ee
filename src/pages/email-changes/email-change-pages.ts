import { resolveAccountService } from '../../di/resolve';
import { linkPage, type HostedPages } from '../hosted-page';
import { emailChangePage } from './email-change-page';

/** The email change's page: the landing page of the link sent to the new address. */
export const EMAIL_CHANGE_PAGES: HostedPages = {
  '/email-change/confirm': linkPage(
    'The page of the email-change link: names the account and the new address; the button confirms the change',
    'account and new address',
    (token) => resolveAccountService().emailChanges.pending(token),
    emailChangePage,
  ),
};
