import { renderedPage, type HostedPages } from '../hosted-page';
import { invitationPage } from './invitation-page';
import { organizationPage } from './organization-page';
import { ORGANIZATIONS_PAGE_PATH, organizationsPage } from './organizations-page';

/**
 * The organizations' pages. They render nothing of an organization: the script reads it from the API with the tab's
 * session, so an id or a token in the address never makes the server render anything. The list is not at
 * `/organizations`: a page takes the GET of its path, and GET /organizations is the API's list.
 */
export const ORGANIZATION_PAGES: HostedPages = {
  [ORGANIZATIONS_PAGE_PATH]: renderedPage(
    'The organizations page: the organizations of the person signed in, and the creation of one',
    organizationsPage,
  ),
  '/organization': renderedPage(
    'The page of one organization (its id in the fragment): members, roles, invitations, leaving, transfer, deletion',
    organizationPage,
  ),
  '/invitation': renderedPage(
    'The page of an invitation link: previews the invitation (POST /invitations/preview), then Accept or Decline',
    invitationPage,
  ),
};
