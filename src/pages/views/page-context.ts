import type { PasswordPolicyOptions } from '../../services/account-options';

/** What a page needs to render: where the API lives, and the rules in force that the page explains. */
export interface PageContext {
  prefix: string;
  passwordPolicy: PasswordPolicyOptions;
  verificationTokenTtlMs: number;
  resetTokenTtlMs: number;
  emailChangeTokenTtlMs: number;
  reauthenticationWindowMs: number;
  /** How long the second step of a sign-in can be answered. */
  loginChallengeTtlMs: number;
  /** Whether passkeys are configured (`AccountOptions.passkeys`): the pages offer them only then. */
  passkeys?: boolean;
  /** The OpenID providers configured (`AccountOptions.oidc`), in their order: none when it is off. */
  oidcProviders?: readonly OidcProviderName[];
  /** The organizations' rules in force (`AccountOptions.organizations`); null when organizations are off. */
  organizations?: OrganizationRules | null;
  /** The API keys' lifetimes in days (`apiKeyDefaultLifetimeDays`, `apiKeyMaxLifetimeDays`): 30 and 366 if absent. */
  apiKeys?: { defaultDays: number; maxDays: number };
}

/** What the organization pages explain and offer. */
export interface OrganizationRules {
  /**
   * The role template, `owner` first, each role with its permissions: the organization page offers the roles the
   * signed-in member may give.
   */
  roles: readonly OrganizationRoleName[];
  /** How long an invitation works. */
  invitationTtlMs: number;
}

/** A role of the organizations' template, as the pages offer it. */
export interface OrganizationRoleName {
  name: string;
  permissions: readonly string[];
}

/** A provider as the pages name it: its id (in the routes) and the name its buttons show. */
export interface OidcProviderName {
  id: string;
  name: string;
}
