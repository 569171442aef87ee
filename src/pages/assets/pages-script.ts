/*
 * The pages' one script, assembled here and only here. It runs in the browser, not in Node: the served file is the
 * compiled source (Function.prototype.toString) of the functions of ./script/, one per module, each handed the
 * others as arguments by `runPages`. So a function of ./script/ uses nothing of its module but types and the
 * browser globals it declares, and reaches the other modules only through its arguments (the project compiles
 * without the DOM library: ./script/browser.ts types the few browser APIs it touches). test/pages/pages-script.test.ts
 * holds the modules to that.
 *
 * It reads no HTML from anywhere: every text it shows goes in through `textContent`, and the pages' CSP enforces
 * that with Trusted Types.
 */
import { accountPage } from './script/account-page';
import { adminPage } from './script/admin-page';
import { adminRows } from './script/admin-rows';
import { apiCalls } from './script/api-calls';
import { apiKeysSection } from './script/api-keys-section';
import { emailChangeConfirmPage } from './script/email-change-page';
import { formHelpers } from './script/form-helpers';
import { invitationPage } from './script/invitation-page';
import { myOrganizationsPage } from './script/my-organizations-page';
import { oidcIdentitiesSection } from './script/oidc-identities-section';
import { oidcReturnPage } from './script/oidc-return-page';
import { organizationPage } from './script/organization-page';
import { pageDisplay } from './script/page-display';
import { passkeyCeremonies } from './script/passkey-ceremonies';
import { passkeyLogin } from './script/passkey-login';
import { passkeysSection } from './script/passkeys-section';
import { passwordResetPage } from './script/password-reset-page';
import { reauthentication } from './script/reauthentication-prompt';
import { runPages, type ScriptParts } from './script/run-pages';
import { secondFactorSection } from './script/second-factor-section';
import { secondFactorStep } from './script/second-factor-step';
import { securityPage } from './script/security-page';
import { loginPage } from './script/sign-in-page';
import { registerPage } from './script/sign-up-page';
import { tabSession } from './script/tab-session';
import { verifyEmailPage } from './script/verify-email-page';

/** The functions `runPages` is handed, in the order the file lists them. */
export const SCRIPT_PARTS: ScriptParts = {
  apiCalls,
  tabSession,
  pageDisplay,
  formHelpers,
  reauthentication,
  registerPage,
  loginPage,
  secondFactorStep,
  oidcReturnPage,
  verifyEmailPage,
  passwordResetPage,
  accountPage,
  securityPage,
  secondFactorSection,
  passkeyCeremonies,
  passkeysSection,
  passkeyLogin,
  oidcIdentitiesSection,
  apiKeysSection,
  emailChangeConfirmPage,
  adminPage,
  adminRows,
  myOrganizationsPage,
  organizationPage,
  invitationPage,
};

const parts = Object.entries(SCRIPT_PARTS).map(([name, part]) => `  ${name}: ${part.toString()},\n`);

/** The served script: `runPages` called with the other functions, once the page is parsed (the tag is `defer`). */
export const PAGES_SCRIPT = `'use strict';\n(${runPages.toString()})({\n${parts.join('')}});\n`;
