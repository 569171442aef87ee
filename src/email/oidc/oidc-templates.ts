import type { EmailMessage, NoticeContext } from '../templates/contexts';
import { renderMessage } from '../templates/render';

/** The provider sign-in's notices: each carries no credential, only what happened and what to do if it wasn't you. */
export interface OidcTemplates {
  /** A sign-in provider's identity was linked to the account: it can now sign in to it. */
  oidcLinked(context: NoticeContext): EmailMessage;
  /** A sign-in provider's identity was unlinked, by the person or by the operator. */
  oidcUnlinked(context: NoticeContext): EmailMessage;
  /**
   * Someone signed in at a provider with this account's address: no account was made and nothing was linked; the
   * owner links the provider from the security page if it was them.
   */
  oidcLinkRequired(context: NoticeContext): EmailMessage;
}

const render = (subject: string, blocks: Parameters<typeof renderMessage>[1]) => renderMessage(subject, blocks, 'en');

/** The provider sign-in's notices in English, part of `englishTemplates`. */
export const englishOidcTemplates: OidcTemplates = {
  oidcLinked: ({ appName, username }) =>
    render(`A sign-in provider was linked to your ${appName} account`, [
      `Hello ${username},`,
      `An account at a sign-in provider was just linked to your ${appName} account; it can now sign in to it.`,
      "If this wasn't you, unlink it on the security page and reset your password right away with the " +
        '"forgot password" option on the sign-in page.',
    ]),

  oidcUnlinked: ({ appName, username }) =>
    render(`A sign-in provider was unlinked from your ${appName} account`, [
      `Hello ${username},`,
      `An account at a sign-in provider was just unlinked from your ${appName} account; it no longer signs in to it.`,
      'If this wasn\'t you, reset your password right away with the "forgot password" option on the sign-in page.',
    ]),

  oidcLinkRequired: ({ appName, username }) =>
    render(`Someone tried to sign in to ${appName} with your address through a provider`, [
      `Hello ${username},`,
      `Someone just signed in at a sign-in provider with this address and tried to use it for ${appName}. Your ` +
        'account already uses this address, so nothing was created or linked and nobody was signed in.',
      'If it was you, sign in to your account as usual and link the provider on the security page. If it was not ' +
        'you, there is nothing to do: your account is unchanged.',
    ]),
};
