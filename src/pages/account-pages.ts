import { PAGES_STYLES } from './assets/pages-styles';
import type { HostedPages } from './hosted-page';
import { webauthnLibrary } from './assets/webauthn-library';
import { SCRIPT_PATH, STYLES_PATH, WEBAUTHN_SCRIPT_PATH } from './layout';
import { seeOther, type PageRoute } from './page-answer';
import { assetAnswer } from './page-headers';

export interface AccountPagesOptions {
  /** The prefix the account routes are mounted under (the pages call them); default `/auth`. */
  prefix?: string;
}

/**
 * The routes of the hosted pages, below `prefix`: the `pages` the features list (`featurePages()` of
 * `src/app/features.ts`: sign-up, sign-in, the landing pages of the verification, reset and email-change links, the
 * account page, the security page, the administration page), as server-rendered HTML with one same-origin script and
 * stylesheet, and the bare prefix, which redirects to the account page. A GET only renders a page: tokens in links
 * are spent by the POST the page sends when the person confirms. Each driver serves them as middleware
 * (`accountPages()` of `gatehouse` or `gatehouse/express`).
 */
export function accountPageRoutes(pages: HostedPages, options: AccountPagesOptions = {}): Record<string, PageRoute> {
  const prefix = options.prefix ?? '/auth';
  const routes: Record<string, PageRoute> = {
    // The bare prefix is where a person lands from the server's start-up line.
    '': () => seeOther(`${prefix}/account`),
    ...pageAssetRoutes(),
  };
  for (const [path, page] of Object.entries(pages)) routes[path] = page.route(prefix);
  return routes;
}

/**
 * The script, the stylesheet and the WebAuthn library; the API reference serves the stylesheet too, so it works
 * without the pages.
 */
export function pageAssetRoutes(): Record<string, PageRoute> {
  return {
    [SCRIPT_PATH]: () => assetAnswer('application/javascript; charset=utf-8', pagesScript()),
    [STYLES_PATH]: () => assetAnswer('text/css; charset=utf-8', PAGES_STYLES),
    [WEBAUTHN_SCRIPT_PATH]: () => assetAnswer('application/javascript; charset=utf-8', webauthnLibrary()),
  };
}

let script: string | undefined;

/**
 * The pages' script, assembled on the first request for it and kept: not at start, since its modules (a function per
 * page, compiled for the browser) are only text to the server, and a server whose pages nobody opens (an API behind a
 * host's own front end) should not hold them.
 */
function pagesScript(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at the first request for the script
  script ??= (require('./assets/pages-script') as typeof import('./assets/pages-script')).PAGES_SCRIPT;
  return script;
}
