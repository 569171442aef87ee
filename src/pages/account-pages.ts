import type { Context, Middleware } from 'koa';
import { Container } from 'typedi';
import { resolveAccountService } from '../di/resolve';
import { ACCOUNT_OPTIONS } from '../di/tokens';
import { resolveAccountOptions } from '../services/account-options';
import { isStoreUnavailable } from '../errors/store-unavailable-error';
import { PAGES_SCRIPT } from './assets/pages-script';
import { PAGES_STYLES } from './assets/pages-styles';
import { SCRIPT_PATH, STYLES_PATH } from './layout';
import { sendAsset, sendPage } from './page-headers';
import { PageHandler, pageRoutes } from './page-routes';
import { accountPage } from './views/account-page';
import type { PageContext } from './views/page-context';
import { passwordResetPage } from './views/password-reset-page';
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
};

/** The paths below the prefix that answer a page on GET and HEAD (the API document lists them). */
export const PAGE_PATHS: readonly string[] = [...Object.keys(PAGES), '/verify-email'];

/**
 * The hosted pages, as one Koa middleware: sign-up, sign-in, the landing pages of the verification and reset links,
 * and the account page, as server-rendered HTML with one same-origin script and stylesheet under `prefix`. A GET
 * only renders a page: tokens in links are spent by the POST the page sends when the person confirms.
 * Install it after `gatehouseHttp()` (whose headers it keeps, replacing only the CSP) and before the account routes;
 * `mountAccountRoutes(app, { pages: true })` does so.
 *
 * @example
 * app.use(gatehouseHttp());
 * app.use(accountPages({ prefix: '/auth' }));
 * useKoaServer(app, { routePrefix: '/auth', ...accountRoutes() });
 */
export function accountPages(options: AccountPagesOptions = {}): Middleware {
  const prefix = options.prefix ?? '/auth';
  const routes: Record<string, PageHandler> = {
    // The bare prefix is where a person lands from the server's start-up line.
    '': (ctx) => {
      ctx.status = 303;
      ctx.redirect(`${prefix}/account`);
    },
    ...pageAssetRoutes(),
  };
  for (const [route, render] of Object.entries(PAGES)) {
    routes[route] = (ctx) => sendPage(ctx, render(pageContext(prefix)));
  }
  routes['/verify-email'] = async (ctx) => {
    const context = pageContext(prefix);
    const link = await verificationLinkOf(ctx.query.token);
    if (link.state === 'unavailable') {
      ctx.set('Retry-After', String(UNAVAILABLE_RETRY_SECONDS));
      sendPage(ctx, verifyEmailPage(context, link), 503);
      return;
    }
    sendPage(ctx, verifyEmailPage(context, link));
  };
  return pageRoutes(prefix, routes);
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

/** The script and the stylesheet; the API reference serves the stylesheet too, so it works without the pages. */
export function pageAssetRoutes(): Record<string, PageHandler> {
  return {
    [SCRIPT_PATH]: (ctx: Context) => sendAsset(ctx, 'application/javascript; charset=utf-8', PAGES_SCRIPT),
    [STYLES_PATH]: (ctx: Context) => sendAsset(ctx, 'text/css; charset=utf-8', PAGES_STYLES),
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
  };
}
