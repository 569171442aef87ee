import { RETURN_PAGE_PATH } from '../../services/oidc/oidc-options';
import { renderedPage, type HostedPages } from '../hosted-page';
import { oidcReturnPage } from './oidc-return-page';

/** The provider's return page: the default of `OidcOptions.returnUrls`, so its path is the core's. */
export const OIDC_PAGES: HostedPages = {
  [RETURN_PAGE_PATH]: renderedPage(
    'The return page of a provider sign-in or link: sends the one-time code of its fragment to POST /oidc/exchange',
    oidcReturnPage,
  ),
};
