import { renderedPage, type HostedPages } from '../hosted-page';
import { SECURITY_PAGE_CSP } from '../page-headers';
import { securityPage } from './security-page';

/** The security page: sessions, re-authentication, and the sections of the second factor and the email change. */
export const SECURITY_PAGES: HostedPages = {
  // The one page that shows an image: the QR code of the two-factor set-up, as a data: URL.
  '/security': renderedPage(
    'The security page: sessions (each can be ended), re-authentication, email change',
    securityPage,
    SECURITY_PAGE_CSP,
  ),
};
