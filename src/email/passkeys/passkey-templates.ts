import type { EmailMessage, NoticeContext } from '../templates/contexts';
import { renderMessage } from '../templates/render';

/** The passkeys' notices: each carries no credential, only that something changed and what to do if it wasn't you. */
export interface PasskeyTemplates {
  /** A passkey was added to the account. */
  passkeyAdded(context: NoticeContext): EmailMessage;
  /** A passkey was removed, by the person or by an administrator. */
  passkeyRemoved(context: NoticeContext): EmailMessage;
  /** A passkey's signature counter went backwards: it may have been copied; that sign-in was refused. */
  passkeyCloneSuspected(context: NoticeContext): EmailMessage;
}

const render = (subject: string, blocks: Parameters<typeof renderMessage>[1]) => renderMessage(subject, blocks, 'en');

/** The passkeys' notices in English, part of `englishTemplates`. */
export const englishPasskeyTemplates: PasskeyTemplates = {
  passkeyAdded: ({ appName, username }) =>
    render(`A passkey was added to your ${appName} account`, [
      `Hello ${username},`,
      `A new passkey was just added to your ${appName} account; it can now sign in to it.`,
      "If this wasn't you, remove it on the security page and reset your password right away with the " +
        '"forgot password" option on the sign-in page.',
    ]),

  passkeyRemoved: ({ appName, username }) =>
    render(`A passkey was removed from your ${appName} account`, [
      `Hello ${username},`,
      `A passkey was just removed from your ${appName} account; it no longer signs in to it.`,
      'If this wasn\'t you, reset your password right away with the "forgot password" option on the sign-in page, ' +
        'and check the passkeys listed on the security page.',
    ]),

  passkeyCloneSuspected: ({ appName, username }) =>
    render(`A sign-in to ${appName} with a copied passkey was refused`, [
      `Hello ${username},`,
      `Someone just tried to sign in to your ${appName} account with one of your passkeys, and the passkey's ` +
        'counter showed it may have been copied. The sign-in was refused.',
      'If your security key was out of your hands, remove that passkey on the security page and add it again; ' +
        'if you did not try to sign in, reset your password and review your passkeys.',
    ]),
};
