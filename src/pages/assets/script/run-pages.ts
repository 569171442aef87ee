import type { accountPage } from './account-page';
import type { adminPage } from './admin-page';
import type { adminRows } from './admin-rows';
import type { apiCalls } from './api-calls';
import type { apiKeysSection } from './api-keys-section';
import type { BrowserDocument, BrowserHistory, BrowserLocation } from './browser';
import type { emailChangeConfirmPage } from './email-change-page';
import type { formHelpers } from './form-helpers';
import type { invitationPage } from './invitation-page';
import type { myOrganizationsPage } from './my-organizations-page';
import type { oidcIdentitiesSection } from './oidc-identities-section';
import type { oidcReturnPage } from './oidc-return-page';
import type { organizationPage } from './organization-page';
import type { PageKit, SharedKit } from './page-kit';
import type { pageDisplay } from './page-display';
import type { passkeyCeremonies } from './passkey-ceremonies';
import type { passkeyLogin } from './passkey-login';
import type { passkeysSection } from './passkeys-section';
import type { passwordResetPage } from './password-reset-page';
import type { reauthentication } from './reauthentication-prompt';
import type { secondFactorSection } from './second-factor-section';
import type { secondFactorStep } from './second-factor-step';
import type { securityPage } from './security-page';
import type { loginPage } from './sign-in-page';
import type { registerPage } from './sign-up-page';
import type { tabSession } from './tab-session';
import type { verifyEmailPage } from './verify-email-page';

declare const document: BrowserDocument;
declare const location: BrowserLocation;
declare const history: BrowserHistory;

/**
 * Every other function of the script, by name. The served file hands them to `runPages` as one object
 * (../pages-script.ts), since no module of the script can import another at run time.
 */
export interface ScriptParts {
  apiCalls: typeof apiCalls;
  tabSession: typeof tabSession;
  pageDisplay: typeof pageDisplay;
  formHelpers: typeof formHelpers;
  reauthentication: typeof reauthentication;
  registerPage: typeof registerPage;
  loginPage: typeof loginPage;
  oidcReturnPage: typeof oidcReturnPage;
  secondFactorStep: typeof secondFactorStep;
  verifyEmailPage: typeof verifyEmailPage;
  passwordResetPage: typeof passwordResetPage;
  accountPage: typeof accountPage;
  securityPage: typeof securityPage;
  secondFactorSection: typeof secondFactorSection;
  passkeyCeremonies: typeof passkeyCeremonies;
  passkeysSection: typeof passkeysSection;
  passkeyLogin: typeof passkeyLogin;
  oidcIdentitiesSection: typeof oidcIdentitiesSection;
  apiKeysSection: typeof apiKeysSection;
  emailChangeConfirmPage: typeof emailChangeConfirmPage;
  adminPage: typeof adminPage;
  adminRows: typeof adminRows;
  myOrganizationsPage: typeof myOrganizationsPage;
  organizationPage: typeof organizationPage;
  invitationPage: typeof invitationPage;
}

/** A page's script; the parts give it its sections (the security and administration pages have some). */
type PageScript = (kit: PageKit, parts: ScriptParts) => void | Promise<void>;

/**
 * The script's start, once the page is parsed: puts the shared pieces together, shows the notice another page left,
 * and runs the script of the page the markup names (`data-page`).
 */
export function runPages(parts: ScriptParts): void {
  const api = document.body.dataset.api ?? '';
  const page = document.body.dataset.page ?? '';

  // The emailed link's token is read once and at once taken out of the address bar and of this history entry, so
  // it is not left on screen, in the history or in a bookmark. It stays in memory until the person confirms.
  const linkToken = new URLSearchParams(location.search).get('token') ?? '';
  if (location.search) history.replaceState(null, '', location.pathname);

  const display = parts.pageDisplay();
  const tab = parts.tabSession(api);
  const shared: SharedKit = {
    api,
    linkToken,
    passkeys: parts.passkeyCeremonies(),
    ...display,
    ...tab,
    ...parts.apiCalls(api),
    ...parts.formHelpers(display),
  };
  const kit: PageKit = {
    ...shared,
    reauthentication: (token, afterFailure, cancelFocus) =>
      parts.reauthentication(shared, token, afterFailure, cancelFocus),
  };

  const notice = tab.takeNotice();
  if (notice) display.showNotice(notice);
  // The provider's links (sign-in, sign-up) leave the page: the name they go to is kept for the return page's words.
  for (const link of document.body.querySelectorAll('a[data-provider-name]')) {
    link.addEventListener('click', () => tab.noteProvider(link.dataset.providerName ?? ''));
  }
  const { registerPage, loginPage, verifyEmailPage, passwordResetPage, accountPage } = parts;
  const { securityPage, emailChangeConfirmPage, adminPage } = parts;
  const pages: Record<string, PageScript> = {
    register: registerPage,
    login: loginPage,
    'verify-email': verifyEmailPage,
    'password-reset': passwordResetPage,
    account: accountPage,
    security: securityPage,
    'email-change-confirm': emailChangeConfirmPage,
    admin: adminPage,
    'oidc-return': parts.oidcReturnPage,
    organizations: parts.myOrganizationsPage,
    organization: parts.organizationPage,
    invitation: parts.invitationPage,
  };
  void pages[page]?.(kit, parts);
}
