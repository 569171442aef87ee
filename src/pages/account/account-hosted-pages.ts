import { resolveAccountService } from '../../di/resolve';
import { linkPage, renderedPage, type HostedPages } from '../hosted-page';
import { accountPage } from './account-page';
import { passwordResetPage } from './password-reset-page';
import { signInPage } from './sign-in-page';
import { signUpPage } from './sign-up-page';
import { verifyEmailPage } from './verify-email-page';

/*
 * Each page sits on the GET of the API route it drives, so the email links' paths are both the page and the API.
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
