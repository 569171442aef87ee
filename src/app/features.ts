import { AccountController } from '../controllers/account/account-controller';
import { AdminApiKeysController } from '../controllers/api-keys/admin-api-keys-controller';
import { ApiKeysController } from '../controllers/api-keys/api-keys-controller';
import { AdminAuditController } from '../controllers/administration/admin-audit-controller';
import { AdminRolesController } from '../controllers/administration/admin-roles-controller';
import { AdminUsersController } from '../controllers/administration/admin-users-controller';
import { EmailChangeController } from '../controllers/email-changes/email-change-controller';
import { OidcController } from '../controllers/oidc/oidc-controller';
import { AdminOrganizationsController } from '../controllers/organizations/admin-organizations-controller';
import { InvitationsController } from '../controllers/organizations/invitations-controller';
import { OrganizationsController } from '../controllers/organizations/organizations-controller';
import { AdminPasskeysController } from '../controllers/passkeys/admin-passkeys-controller';
import { PasskeysController } from '../controllers/passkeys/passkeys-controller';
import { SecondFactorController } from '../controllers/second-factor/second-factor-controller';
import { SessionsController } from '../controllers/sessions/sessions-controller';
import { ACCOUNT_PAGES } from '../pages/account/account-hosted-pages';
import { ADMINISTRATION_PAGES } from '../pages/administration/administration-pages';
import { SECURITY_PAGES } from '../pages/sessions/security-pages';
import { EMAIL_CHANGE_PAGES } from '../pages/email-changes/email-change-pages';
import { OIDC_PAGES } from '../pages/oidc/oidc-pages';
import { ORGANIZATION_PAGES } from '../pages/organizations/organization-pages';
import type { HostedPages } from '../pages/hosted-page';
import { ACCOUNT_KINDS } from '../services/account/account-kinds';
import { API_KEY_KINDS } from '../services/api-keys/api-key-kinds';
import { ADMINISTRATION_KINDS } from '../services/administration/administration-kinds';
import { EMAIL_CHANGE_KINDS } from '../services/email-changes/email-change-kinds';
import type { FeatureKinds } from '../services/feature-kinds';
import { OIDC_KINDS } from '../services/oidc/oidc-kinds';
import { ORGANIZATION_KINDS } from '../services/organizations/organization-kinds';
import { PASSKEY_KINDS } from '../services/passkeys/passkey-kinds';
import { SECOND_FACTOR_KINDS } from '../services/second-factor/second-factor-kinds';
import { SESSIONS_KINDS } from '../services/sessions/sessions-kinds';

/**
 * A sign-in method or account feature, as the one list below registers it: what it adds to the routes, the pages,
 * the credential, email and audit kinds and the tables. Its code lives in a sub-folder named `name` of each layer it has code in
 * (`src/services/<name>/`, `src/controllers/<name>/`...: docs/architecture.md, "Features as slices").
 */
export interface Feature {
  /** Its name, and the name of its sub-folder in each layer it has code in. */
  readonly name: string;
  /** Its routes, in the order the API document lists their paths. */
  readonly controllers: readonly (new () => object)[];
  /**
   * Its credential kinds, email kinds and audit event types, as its slice declares them
   * (`services/<name>/<name>-kinds.ts`); the core gathers the same objects (`services/kinds-of-features.ts`).
   */
  readonly kinds: FeatureKinds;
  /** Its hosted pages, by path below the prefix. */
  readonly pages: HostedPages;
  /**
   * The tables whose rows hang off a user that it owns, by name: each is also in the stores' registry of user-owned
   * tables (`stores/sql/records/user-owned-tables.ts`), which the app layer does not import; the architecture test
   * holds the two together.
   */
  readonly tables: readonly string[];
  /** The migrations that made its tables (`stores/sql/migrate.ts`, frozen and flat), by name; checked the same way. */
  readonly migrations: readonly string[];
}

/**
 * Every feature, in the order of the API document's paths. The account routes, the hosted pages and the API
 * document read their controllers and pages from here, and `test/architecture/features.test.ts` proves that every
 * controller, page, credential kind, email kind, audit kind, user-owned table and migration belongs to exactly one feature.
 */
export const FEATURES: readonly Feature[] = [
  {
    name: 'account',
    kinds: ACCOUNT_KINDS,
    controllers: [AccountController],
    pages: ACCOUNT_PAGES,
    tables: ['tokens', 'credentials'],
    migrations: [
      '2026-11-22-initial',
      '2026-11-23-expiry-indexes',
      '2026-11-24-outbox',
      '2026-11-25-address-claims',
      '2026-11-30-kinds-checked-in-code',
      '2026-12-02-credentials',
    ],
  },
  {
    name: 'sessions',
    kinds: SESSIONS_KINDS,
    controllers: [SessionsController],
    pages: SECURITY_PAGES,
    tables: ['sessions'],
    // It made the email_changes table too: a migration from before slices may serve two features.
    migrations: ['2026-11-26-sessions-and-email-changes', '2026-12-01-session-methods'],
  },
  {
    name: 'email-changes',
    kinds: EMAIL_CHANGE_KINDS,
    controllers: [EmailChangeController],
    pages: EMAIL_CHANGE_PAGES,
    tables: ['email_changes'],
    migrations: [],
  },
  {
    name: 'second-factor',
    kinds: SECOND_FACTOR_KINDS,
    controllers: [SecondFactorController],
    pages: {},
    tables: ['login_challenges'],
    migrations: ['2026-11-27-second-factor'],
  },
  {
    name: 'passkeys',
    kinds: PASSKEY_KINDS,
    controllers: [PasskeysController, AdminPasskeysController],
    pages: {},
    tables: ['passkey_challenges'],
    migrations: ['2026-12-03-passkeys'],
  },
  {
    name: 'oidc',
    kinds: OIDC_KINDS,
    controllers: [OidcController],
    pages: OIDC_PAGES,
    tables: ['oidc_flows', 'oidc_handoffs'],
    migrations: ['2026-12-04-oidc'],
  },
  {
    name: 'organizations',
    kinds: ORGANIZATION_KINDS,
    controllers: [OrganizationsController, InvitationsController, AdminOrganizationsController],
    pages: ORGANIZATION_PAGES,
    tables: ['organization_members'],
    migrations: ['2026-12-05-organizations'],
  },
  {
    name: 'api-keys',
    kinds: API_KEY_KINDS,
    controllers: [ApiKeysController, AdminApiKeysController],
    pages: {},
    tables: ['api_keys', 'service_accounts'],
    migrations: ['2026-12-06-api-keys'],
  },
  {
    name: 'administration',
    kinds: ADMINISTRATION_KINDS,
    controllers: [AdminUsersController, AdminAuditController, AdminRolesController],
    pages: ADMINISTRATION_PAGES,
    tables: ['user_roles'],
    migrations: ['2026-11-28-administration-and-audit', '2026-11-29-scoped-grants'],
  },
];

/** Every feature's pages, by path below the prefix; a path two features claim fails at start. */
export function featurePages(features: readonly Feature[] = FEATURES): HostedPages {
  const pages: Record<string, HostedPages[string]> = {};
  for (const feature of features) {
    for (const [path, page] of Object.entries(feature.pages)) {
      if (pages[path]) throw new Error(`Two features serve the page ${path}`);
      pages[path] = page;
    }
  }
  return pages;
}
