import { AccountController } from '../controllers/account-controller';
import { AdminAuditController } from '../controllers/admin-audit-controller';
import { AdminRolesController } from '../controllers/admin-roles-controller';
import { AdminUsersController } from '../controllers/admin-users-controller';
import { EmailChangeController } from '../controllers/email-changes/email-change-controller';
import { SecondFactorController } from '../controllers/second-factor-controller';
import { SessionsController } from '../controllers/sessions-controller';
import { ACCOUNT_PAGES, ADMINISTRATION_PAGES, SECURITY_PAGES } from '../pages/core-pages';
import { EMAIL_CHANGE_PAGES } from '../pages/email-changes/email-change-pages';
import type { HostedPages } from '../pages/hosted-page';
import type { AuditEventType } from '../services/audit-event';
import type { CredentialKind } from '../services/credential-kinds';
import type { OutboxKind } from '../services/outbox-message';

/**
 * A sign-in method or account feature, as the one list below registers it: what it adds to the routes, the pages,
 * the credential, email and audit kinds and the tables. Its code lives in a sub-folder named `name` of each layer it has code in
 * (`src/services/<name>/`, `src/controllers/<name>/`...: docs/architecture.md, "Features as slices").
 */
export interface Feature {
  /** Its name, and the name of its sub-folder in each layer (features from before slices have none yet). */
  readonly name: string;
  /** Its routes, in the order the API document lists their paths. */
  readonly controllers: readonly (new () => object)[];
  /** The kinds of credential it signs in with (`CREDENTIAL_KINDS`). */
  readonly credentialKinds: readonly CredentialKind[];
  /** Its hosted pages, by path below the prefix. */
  readonly pages: HostedPages;
  /** The outbox kinds of the emails it sends. */
  readonly emailKinds: readonly OutboxKind[];
  /** The audit event types it writes. */
  readonly auditKinds: readonly AuditEventType[];
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
    controllers: [AccountController],
    credentialKinds: ['password'],
    pages: ACCOUNT_PAGES,
    emailKinds: [
      'verification',
      'passwordReset',
      'emailVerified',
      'passwordChanged',
      'accountDeleted',
      'registrationAttempt',
    ],
    auditKinds: [
      'register',
      'verify_email',
      'login',
      'logout',
      'logout_all',
      'password_reset_requested',
      'password_reset',
      'password_change',
      'account_deleted',
    ],
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
    controllers: [SessionsController],
    credentialKinds: [],
    pages: SECURITY_PAGES,
    emailKinds: [],
    auditKinds: ['reauthenticate', 'session_ended', 'other_sessions_ended'],
    tables: ['sessions'],
    // It made the email_changes table too: a migration from before slices may serve two features.
    migrations: ['2026-11-26-sessions-and-email-changes', '2026-12-01-session-methods'],
  },
  {
    name: 'email-changes',
    controllers: [EmailChangeController],
    credentialKinds: [],
    pages: EMAIL_CHANGE_PAGES,
    emailKinds: ['emailChange', 'emailChangeRequested', 'emailChanged', 'emailChangeAttempt'],
    auditKinds: ['email_change_requested', 'email_change'],
    tables: ['email_changes'],
    migrations: [],
  },
  {
    name: 'second-factor',
    controllers: [SecondFactorController],
    credentialKinds: ['totp', 'recovery_code'],
    pages: {},
    emailKinds: ['secondFactorEnabled', 'secondFactorDisabled', 'recoveryCodesRegenerated', 'recoveryCodeUsed'],
    auditKinds: [
      'login_second_factor',
      'second_factor_enabled',
      'second_factor_disabled',
      'recovery_codes_regenerated',
      'recovery_code_used',
    ],
    tables: ['login_challenges'],
    migrations: ['2026-11-27-second-factor'],
  },
  {
    name: 'administration',
    controllers: [AdminUsersController, AdminAuditController],
    credentialKinds: [],
    pages: ADMINISTRATION_PAGES,
    emailKinds: [],
    auditKinds: [
      'admin.users_listed',
      'admin.user_viewed',
      'admin.audit_read',
      'admin.user_disabled',
      'admin.user_enabled',
      'admin.sessions_ended',
      'admin.email_verified',
      'admin.verification_resent',
      'admin.user_deleted',
    ],
    tables: [],
    migrations: ['2026-11-28-administration-and-audit'],
  },
  {
    name: 'access',
    controllers: [AdminRolesController],
    credentialKinds: [],
    pages: {},
    emailKinds: [],
    auditKinds: [
      'admin.role_granted',
      'admin.role_revoked',
      'admin.role_created',
      'admin.permission_created',
      'admin.permission_granted',
      'admin.permission_revoked',
    ],
    tables: ['user_roles'],
    migrations: ['2026-11-29-scoped-grants'],
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
