import { resolveAccountService } from '../di/resolve';
import { linkPage, renderedPage, type HostedPages } from './hosted-page';
import { SECURITY_PAGE_CSP } from './page-headers';
import { accountPage } from './views/account-page';
import { adminPage } from './views/admin-page';
import { passwordResetPage } from './views/password-reset-page';
import { securityPage } from './views/security-page';
import { signInPage } from './views/sign-in-page';
import { signUpPage } from './views/sign-up-page';
import { verifyEmailPage } from './views/verify-email-page';

/*
 * The pages of the features that predate slice folders (their views stay in ./views/). Each page sits on the GET of
 * the API route it drives, so the email links' paths are both the page and the API.
 */

/** The account's life: sign-up, sign-in, the reset link's page, the account page, the verification link's page. */
export const ACCOUNT_PAGES: HostedPages = {
  '/register': renderedPage('The sign-up page', signUpPage),
  '/login': renderedPage('The sign-in page', signInPage),
  '/password-reset': renderedPage(
    'The page of the password reset link: request a link, or set the new password',
    passwordResetPage,
  ),
  '/account': renderedPage('The account page: who is signed in, password change, logout, deletion', accountPage),
  '/verify-email': linkPage(
    'The page of the verification link: confirms the address when the person presses the button',
    'registration',
    (token) => resolveAccountService().pendingVerification(token),
    verifyEmailPage,
  ),
};

/** The security page: sessions, re-authentication, and the sections of the second factor and the email change. */
export const SECURITY_PAGES: HostedPages = {
  // The one page that shows an image: the QR code of the two-factor set-up, as a data: URL.
  '/security': renderedPage(
    'The security page: sessions (each can be ended), re-authentication, email change',
    securityPage,
    SECURITY_PAGE_CSP,
  ),
};

/** The administration page, which works through the admin API. */
export const ADMINISTRATION_PAGES: HostedPages = {
  '/admin': renderedPage(
    'The administration page: accounts by prefix, a user’s details and audit events, and the admin actions on them',
    adminPage,
  ),
};
