import { renderedPage, type HostedPages } from '../hosted-page';
import { adminPage } from './admin-page';

/** The administration page, which works through the admin API. */
export const ADMINISTRATION_PAGES: HostedPages = {
  '/admin': renderedPage(
    'The administration page: accounts by prefix, a user’s details and audit events, and the admin actions on them',
    adminPage,
  ),
};
