import type { EmailMessage, NoticeContext } from '../templates/contexts';
import { renderMessage } from '../templates/render';

/**
 * The API keys' notices. They name no key: a key's name is the owner's own words, and the security page lists the keys
 * with their names and last characters. They never carry the key.
 */
export interface ApiKeyTemplates {
  /** An API key was created for the account. */
  apiKeyCreated(context: NoticeContext): EmailMessage;
  /** An API key of the account was revoked by someone else than the owner: by whoever held it, or an administrator. */
  apiKeyRevoked(context: NoticeContext): EmailMessage;
}

const render = (subject: string, blocks: Parameters<typeof renderMessage>[1]) => renderMessage(subject, blocks, 'en');

/** The API keys' notices in English, part of `englishTemplates`. */
export const englishApiKeyTemplates: ApiKeyTemplates = {
  apiKeyCreated: ({ appName, username }) =>
    render(`A new API key was created for your ${appName} account`, [
      `Hello ${username},`,
      `An API key was just created for your ${appName} account. Programs holding it can call the services that ` +
        'accept it, with the permissions it was given, until it expires or is revoked.',
      'If you did not create it, sign in, revoke it on your security page and change your password.',
    ]),

  apiKeyRevoked: ({ appName, username }) =>
    render(`An API key of your ${appName} account was revoked`, [
      `Hello ${username},`,
      `An API key of your ${appName} account was revoked, by an administrator or by someone who held the key and ` +
        'reported it. Programs using it are refused from now on; your security page lists the keys that remain.',
      'If the key was posted or shared by mistake, check where it was used and create a new one.',
    ]),
};
