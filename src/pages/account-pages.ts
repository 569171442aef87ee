import { Container } from 'typedi';
import { resolveAccountService } from '../di/resolve';
import { ACCOUNT_OPTIONS } from '../di/tokens';
import { resolveAccountOptions } from '../services/account-options';
import { isStoreUnavailable } from '../errors/store-unavailable-error';
import { PAGES_SCRIPT } from './assets/pages-script';
import { PAGES_STYLES } from './assets/pages-styles';
import { SCRIPT_PATH, STYLES_PATH } from './layout';
import { assetAnswer, pageAnswer, SECURITY_PAGE_CSP } from './page-headers';
import { seeOther, type PageAnswer, type PageRoute } from './page-answer';
import { accountPage } from './views/account-page';
import { adminPage } from './views/admin-page';
import { emailChangePage, type EmailChangeLink } from './email-changes/email-change-page';
import type { PageContext } from './views/page-context';
import { passwordResetPage } from './views/password-reset-page';
import { securityPage } from './views/security-page';
import { signInPage } from './views/sign-in-page';
import { signUpPage } from './views/sign-up-page';
import { verifyEmailPage, type VerificationLink } from './views/verify-email-page';

export interface AccountPagesOptions {
  /** The prefix the account routes are mounted under (the pages call them); default `/auth`. */
  prefix?: string;
}

/** Each page sits on the GET of the API route it drives, so the email links' paths are both the page and the API. */
const PAGES: Record<string, (context: PageContext) => string> = {
  '/register': signUpPage,
  '/login': signInPage,
  '/password-reset': passwordResetPage,
  '/account': accountPage,
  '/security': securityPage,
  '/admin': adminPage,
};

/** The paths below the prefix that answer a page on GET and HEAD (the API document lists them). */
export const PAGE_PATHS: readonly string[] = [...Object.keys(PAGES), '/verify-email', '/email-change/confirm'];

/**
 * The routes of the hosted pages, below `prefix`: sign-up, sign-in, the landing pages of the verification, reset
 * and email-change links, the account page, the security page (sessions, two-factor sign-in, email change) and the
 * administration page (accounts and their audit events, through the admin API), as server-rendered HTML with one
 * same-origin script and stylesheet. A GET only
 * renders a page: tokens in links are spent by the POST the page sends when the person confirms. Each driver
 * serves them as middleware (`accountPages()` of `gatehouse` or `gatehouse/express`).
 */
export function accountPageRoutes(options: AccountPagesOptions = {}): Record<string, PageRoute> {
  const prefix = options.prefix ?? '/auth';
  const routes: Record<string, PageRoute> = {
    // The bare prefix is where a person lands from the server's start-up line.
    '': () => seeOther(`${prefix}/account`),
    ...pageAssetRoutes(),
  };
  for (const [route, render] of Object.entries(PAGES)) {
    // The security page is the one that shows an image: the QR code of the two-factor set-up, as a data: URL.
    const csp = route === '/security' ? SECURITY_PAGE_CSP : undefined;
    routes[route] = () => pageAnswer(render(pageContext(prefix)), 200, csp);
  }
  routes['/verify-email'] = async ({ query }): Promise<PageAnswer> => {
    const context = pageContext(prefix);
    const link = await verificationLinkOf(tokenOf(query));
    if (link.state === 'unavailable') return unavailable(pageAnswer(verifyEmailPage(context, link), 503));
    return pageAnswer(verifyEmailPage(context, link));
  };
  routes['/email-change/confirm'] = async ({ query }): Promise<PageAnswer> => {
    const context = pageContext(prefix);
    const link = await emailChangeLinkOf(tokenOf(query));
    if (link.state === 'unavailable') return unavailable(pageAnswer(emailChangePage(context, link), 503));
    return pageAnswer(emailChangePage(context, link));
  };
  return routes;
}

/** A page that could not look its link up: the person is asked to reload, and clients when. */
function unavailable(answer: PageAnswer): PageAnswer {
  return { ...answer, headers: { ...answer.headers, 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) } };
}

/** The link's `token` parameter as a query parser gives it: absent, one value, or several. */
function tokenOf(query: URLSearchParams): string | string[] | undefined {
  const values = query.getAll('token');
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0] : values;
}

const UNAVAILABLE_RETRY_SECONDS = 5;

/** The registration the link's token would confirm; a failed lookup (the database restarting) is said as such. */
async function verificationLinkOf(token: string | string[] | undefined): Promise<VerificationLink> {
  if (typeof token !== 'string' || token === '') return { state: 'none', tokenGiven: token !== undefined };
  try {
    const pending = await resolveAccountService().pendingVerification(token);
    return pending ? { state: 'pending', username: pending.username } : { state: 'none', tokenGiven: true };
  } catch (error) {
    if (isStoreUnavailable(error)) return { state: 'unavailable' };
    throw error;
  }
}

/** The change the link's token would make, read without spending it; a failed lookup is said as such. */
async function emailChangeLinkOf(token: string | string[] | undefined): Promise<EmailChangeLink> {
  if (typeof token !== 'string' || token === '') return { state: 'none', tokenGiven: token !== undefined };
  try {
    const pending = await resolveAccountService().emailChanges.pending(token);
    return pending ? { state: 'pending', ...pending } : { state: 'none', tokenGiven: true };
  } catch (error) {
    if (isStoreUnavailable(error)) return { state: 'unavailable' };
    throw error;
  }
}

/** The script and the stylesheet; the API reference serves the stylesheet too, so it works without the pages. */
export function pageAssetRoutes(): Record<string, PageRoute> {
  return {
    [SCRIPT_PATH]: () => assetAnswer('application/javascript; charset=utf-8', PAGES_SCRIPT),
    [STYLES_PATH]: () => assetAnswer('text/css; charset=utf-8', PAGES_STYLES),
  };
}

/** The rules the pages explain, read from the options in force, as the account routes read them. */
function pageContext(prefix: string): PageContext {
  // Fails as the API routes do (a ConfigurationError saying which token to set) when the host has not configured it.
  resolveAccountService();
  const options = resolveAccountOptions(Container.get(ACCOUNT_OPTIONS));
  return {
    prefix,
    passwordPolicy: options.password,
    verificationTokenTtlMs: options.verificationTokenTtlMs,
    resetTokenTtlMs: options.resetTokenTtlMs,
    emailChangeTokenTtlMs: options.emailChangeTokenTtlMs,
    reauthenticationWindowMs: options.reauthenticationWindowMs,
    loginChallengeTtlMs: options.loginChallengeTtlMs,
  };
}
